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

/** Magic numbers of common files that are none of the three formats. */
const FOREIGN: [string, number[]][] = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['a ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip-compressed data', [0x1f, 0x8b]],
  ['a Parquet file', [0x50, 0x41, 0x52, 0x31]],
  ['an Arrow IPC file', [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]],
  ['an SQLite database', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
];

/**
 * Why a file that is neither TsFile nor HDF5 is not MessagePack either, or undefined when it
 * may be (MessagePack has no magic number, so only what it clearly is not is ruled out): an
 * empty file, a known foreign magic number, or text (valid UTF-8, printable characters only,
 * which a MessagePack file almost never is).
 */
export function unrecognised(head: Uint8Array, size: number): string | undefined {
  if (size === 0) return 'the file is empty';
  for (const [what, magic] of FOREIGN) if (magic.every((x, i) => head[i] === x)) return `it looks like ${what}`;
  const sample = head.subarray(0, 4096);
  if (sample.every((b) => b >= 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) && !sample.includes(0x7f)) {
    try {
      // A cut at the end of the sample may split a character: only complete ones must be valid.
      new TextDecoder('utf-8', { fatal: true }).decode(sample.length < head.length ? sample.subarray(0, Math.max(0, sample.length - 3)) : sample);
      return 'it looks like text (MessagePack is binary)';
    } catch {
      // Not UTF-8: may be MessagePack.
    }
  }
  return undefined;
}
