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

export async function withBytes<T>(reader: RangeReader, target: SupplyTarget, call: () => T): Promise<T> {
  const seen = new Set<string>();
  for (;;) {
    try {
      return call();
    } catch (e) {
      const err = toDecodeError(e);
      if (!(err instanceof DecodeError) || err.code !== 'need-bytes') throw err;
      const need = err.needLength ?? 0;
      const key = `${err.offset}:${need}`;
      if (seen.has(key)) throw new Error(`arrowsmith: internal error: bytes ${key} were supplied but asked for again`);
      seen.add(key);
      const length = Math.min(reader.size - err.offset, Math.max(need, READ_AHEAD));
      target.supply(err.offset, await reader.read(err.offset, length));
    }
  }
}
