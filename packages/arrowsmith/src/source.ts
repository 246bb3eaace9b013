/**
 * Random-access byte sources for the file formats (TsFile, HDF5): the reader asks for
 * ranges, never for the whole file, so a `Blob` is read by slices and a URL with HTTP
 * Range requests (http.ts). A Uint8Array is simply sliced.
 */
import { httpReader, type HttpOptions } from './http.js';

/** Anything with a size and a ranged read. */
export interface RangeReader {
  readonly size: number;
  /** The `length` bytes at `offset`; `signal` cancels the read (URL sources), rejecting with its reason. */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

export type FileSource = Uint8Array | ArrayBuffer | Blob | string | URL | RangeReader;

/** `format` names the file's format in network errors; `http` is how URLs are fetched. */
export async function toRangeReader(source: FileSource, format = 'file', http?: HttpOptions): Promise<RangeReader> {
  if (source instanceof Uint8Array) return bytesReader(source);
  if (source instanceof ArrayBuffer) return bytesReader(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return {
      size: source.size,
      read: async (offset, length) => new Uint8Array(await source.slice(offset, offset + length).arrayBuffer()),
    };
  }
  if (typeof source === 'string' || source instanceof URL) return httpReader(String(source), format, http);
  if (typeof (source as RangeReader).read === 'function' && Number.isFinite((source as RangeReader).size)) return source as RangeReader;
  throw new TypeError('arrowsmith: a file source must be a Uint8Array, ArrayBuffer, Blob, URL or { size, read(offset, length) }');
}

function bytesReader(b: Uint8Array): RangeReader & { bytes: Uint8Array } {
  return { size: b.length, bytes: b, read: async (offset, length) => b.subarray(offset, offset + length) };
}

/** The whole file when the source already holds it in memory (no range round trips). */
export function wholeBytes(r: RangeReader): Uint8Array | undefined {
  return (r as { bytes?: Uint8Array }).bytes;
}
