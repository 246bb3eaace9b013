/**
 * The host side of the sans-I/O file readers: the wasm reader answers "need bytes
 * offset..offset+len" instead of doing I/O; we fetch that range (rounded up to a
 * read-ahead size so neighbouring small reads are served together), hand it over and
 * call again. The same reader code thus serves memory, Blobs, URLs and files.
 */
import { DecodeError, NeedBytes, toDecodeError } from '../errors.js';
import { lendRange, type RangeReader } from '../io/source.js';

/** What a wasm file handle exposes for this loop. */
export interface SupplyTarget {
  supply(offset: number, bytes: Uint8Array): void;
}

/** Minimum bytes per request: metadata reads are small and clustered; a round trip costs more than a few KB. */
export const READ_AHEAD = 4 * 1024;

export async function withBytes<T>(reader: RangeReader, target: SupplyTarget, call: () => T, signal?: AbortSignal): Promise<T> {
  const seen = new Set<string>();
  for (;;) {
    try {
      return call();
    } catch (e) {
      const err = toDecodeError(e);
      if (!(err instanceof NeedBytes)) throw err;
      const key = `${err.offset}:${err.length}`;
      // Supplied and asked for again: the reader cannot make progress on these bytes. A
      // bug, but the caller's input is what shows it: a typed error, never a loop.
      if (seen.has(key)) throw new DecodeError(err.format, err.offset, 'invalid', `the reader asked for bytes ${err.offset}..${err.offset + err.length} again after they were supplied`);
      seen.add(key);
      signal?.throwIfAborted();
      const length = Math.min(reader.size - err.offset, Math.max(err.length, READ_AHEAD));
      await supplyRange(reader, target, err.format, err.offset, length, signal);
    }
  }
}

/**
 * Fetch `length` bytes at `offset` and supply them (through the reader's reused buffer when
 * it has one); a source that returns fewer is cut short.
 */
export function supplyRange(reader: RangeReader, target: SupplyTarget, format: string, offset: number, length: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  return lendRange(reader, offset, length, signal, (bytes) => {
    if (bytes.length < length) throw shortRead(format, offset, bytes.length, length);
    target.supply(offset, bytes);
  });
}

/** A source that returned fewer bytes than its size promised (a Blob or reader that shrank). */
export function shortRead(format: string, offset: number, got: number, asked: number): DecodeError {
  return new DecodeError(format, offset + got, 'truncated', `the source returned ${got} of the ${asked} bytes at ${offset}: it ends before its size`);
}
