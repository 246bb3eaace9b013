/**
 * Which format a file holds, from its magic bytes: TsFile starts with "TsFile"; HDF5 has its
 * 8-byte signature at 0 or, after a user block, at 512, 1024, 2048, … MessagePack has no
 * magic: a file is a MessagePack candidate when it starts with a map or array header (a
 * top-level record, array of rows or stream of records); it is MessagePack only if the
 * whole input then parses (the caller decodes it to know).
 */

export type Format = 'msgpack' | 'tsfile' | 'hdf5';

export const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
const TSFILE_MAGIC = [0x54, 0x73, 0x46, 0x69, 0x6c, 0x65]; // "TsFile"

/** Offsets where HDF5 looks for its superblock: 0, then 512 doubling, within the file. */
export function hdf5SignatureOffsets(size: number): number[] {
  const out = [0];
  for (let at = 512; at + HDF5_SIGNATURE.length <= size; at *= 2) out.push(at);
  return out;
}

const startsWith = (b: Uint8Array, magic: number[]) => b.length >= magic.length && magic.every((m, i) => b[i] === m);

/** Is this byte a MessagePack map or array header (fixmap, fixarray, map16/32, array16/32)? */
export function isMsgpackContainer(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x80 && b <= 0x9f) || (b >= 0xdc && b <= 0xdf));
}

/**
 * The format from the file's magic, reading only the bytes it needs; 'msgpack' means a
 * candidate still to be parsed, undefined means none of the three.
 */
export async function sniff(size: number, read: (offset: number, length: number) => Promise<Uint8Array>): Promise<Format | undefined> {
  if (size === 0) return undefined;
  const head = await read(0, Math.min(size, 8));
  if (startsWith(head, TSFILE_MAGIC)) return 'tsfile';
  for (const at of hdf5SignatureOffsets(size)) {
    if (startsWith(at === 0 ? head : await read(at, HDF5_SIGNATURE.length), HDF5_SIGNATURE)) return 'hdf5';
  }
  return isMsgpackContainer(head[0]) ? 'msgpack' : undefined;
}
