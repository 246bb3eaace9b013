/**
 * The host side of the sans-I/O file readers: the wasm reader answers "need bytes
 * offset..offset+len" instead of doing I/O; we fetch that range (rounded up to a
 * read-ahead size so neighbouring small reads are served together), hand it over and
 * call again. The same reader code thus serves memory, Blobs and URLs.
 */
import { DecodeError, toDecodeError } from './errors.js';
import type { RangeReader } from './source.js';

/** What a wasm file handle exposes for this loop. */
export interface SupplyTarget {
  supply(offset: number, bytes: Uint8Array): void;
}

/** Minimum bytes per request: metadata reads are small and clustered; a round trip costs more than a few KB. */
const READ_AHEAD = 4 * 1024;

export async function withBytes<T>(reader: RangeReader, target: SupplyTarget, call: () => T, signal?: AbortSignal): Promise<T> {
  const seen = new Set<string>();
  for (;;) {
    try {
      return call();
    } catch (e) {
      const err = toDecodeError(e);
      if (!(err instanceof DecodeError) || err.code !== 'need-bytes') throw err;
      const need = err.needLength ?? 0;
      const key = `${err.offset}:${need}`;
      // Supplied and asked for again: the reader cannot make progress on these bytes. A
      // bug, but the caller's input is what shows it: a typed error, never a loop.
      if (seen.has(key)) throw new DecodeError(err.format, err.offset, 'invalid', `the reader asked for bytes ${err.offset}..${err.offset + need} again after they were supplied`);
      seen.add(key);
      signal?.throwIfAborted();
      const length = Math.min(reader.size - err.offset, Math.max(need, READ_AHEAD));
      const bytes = await reader.read(err.offset, length, signal);
      if (bytes.length < length) throw shortRead(err.format, err.offset, bytes.length, length);
      target.supply(err.offset, bytes);
    }
  }
}

/** A source that returned fewer bytes than its size promised (a Blob or reader that shrank). */
export function shortRead(format: string, offset: number, got: number, asked: number): DecodeError {
  return new DecodeError(format, offset + got, 'truncated', `the source returned ${got} of the ${asked} bytes at ${offset}: it ends before its size`);
}
