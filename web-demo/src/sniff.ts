/** The format of a file from its magic bytes (MessagePack has none: it is the default). */
export type FormatName = 'tsfile' | 'hdf5' | 'msgpack';

const HDF5 = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
const TSFILE = [0x54, 0x73, 0x46, 0x69, 0x6c, 0x65];

export function sniff(b: Uint8Array): FormatName {
  const starts = (m: number[], at = 0) => m.every((x, i) => b[at + i] === x);
  if (starts(TSFILE)) return 'tsfile';
  // HDF5's superblock may follow a user block at 0, 512, 1024, 2048, ...
  for (let at = 0; at + 8 <= b.length && at <= 1 << 20; at = at === 0 ? 512 : at * 2) if (starts(HDF5, at)) return 'hdf5';
  return 'msgpack';
}
