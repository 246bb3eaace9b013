/**
 * A sequence of reads with the bytes of the next fetched while this one decodes: the
 * prefetch behind `batches()` of a file.
 */
import { DecodeError, NeedBytes, toDecodeError, wasmCall } from '../errors.js';
import type { Source } from '../io/source.js';
import { KEEP_RANGE } from './cache.js';
import { readAll } from './fetch.js';
import { READ_AHEAD } from './supply.js';

/** What a sequence reads through: the file's source and cache, within one of its operations. */
export interface SequenceHost {
  readonly reader: Source;
  readonly format: string;
  /** Hand fetched bytes to the wasm reader. */
  supply(offset: number, bytes: Uint8Array): void;
  /** Drop the data bytes of the read just done. */
  release(): void;
  /** Run `f` as one operation of the file (it stays on its module instance meanwhile). */
  op<T>(f: () => Promise<T>): Promise<T>;
}

/**
 * Reads `read(0..count)` in order, each yielded as soon as it decodes, with the bytes of
 * the next read fetched while this one decodes and is consumed: before read i decodes,
 * read i+1 is tried once, and the range it misses is fetched in the background (supplied
 * after read i, whose data bytes are then dropped). A read is a wasm call that throws
 * NeedBytes for what it misses. Runs as one operation.
 */
export async function* sequence<T extends { free(): void }>(host: SequenceHost, count: number, read: (i: number) => T, signal?: AbortSignal): AsyncGenerator<T> {
  type Step = { done: T } | { error: unknown } | { fetch: Promise<Uint8Array>; offset: number; length: number };
  const attempt = (i: number): Step => {
    try {
      return { done: wasmCall(() => read(i)) };
    } catch (e) {
      const err = toDecodeError(e);
      if (!(err instanceof NeedBytes)) return { error: err };
      const length = Math.min(host.reader.size - err.offset, Math.max(err.length, READ_AHEAD));
      const fetch = readAll(host.reader, host.format, err.offset, length, signal);
      fetch.catch(() => {}); // awaited (or dropped with the sequence) below
      return { fetch, offset: err.offset, length };
    }
  };
  let resolveOp!: () => void;
  const opDone = new Promise<void>((r) => (resolveOp = r));
  let started!: () => void;
  const inOp = new Promise<void>((r) => (started = r));
  void host.op(() => (started(), opDone));
  await inOp;
  let ahead: Step | undefined;
  try {
    for (let i = 0; i < count; i++) {
      let cur = ahead ?? attempt(i);
      ahead = undefined;
      const seen = new Set<string>();
      while ('fetch' in cur) {
        const key = `${cur.offset}:${cur.length}`;
        if (seen.has(key)) throw new DecodeError(host.format, cur.offset, 'invalid', `the reader asked for bytes ${cur.offset}..${cur.offset + cur.length} again after they were supplied`);
        seen.add(key);
        const bytes = await cur.fetch;
        signal?.throwIfAborted();
        host.supply(cur.offset, bytes);
        // The next read's first fetch goes out before this one decodes.
        if (!ahead && i + 1 < count && bytes.length > KEEP_RANGE) ahead = attempt(i + 1);
        cur = attempt(i);
      }
      if ('error' in cur) throw cur.error;
      host.release();
      yield cur.done;
    }
  } finally {
    if (ahead && 'done' in ahead) ahead.done.free(); // the consumer stopped early
    host.release();
    resolveOp();
  }
}
