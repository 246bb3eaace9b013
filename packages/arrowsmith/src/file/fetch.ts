/**
 * Fetching ranges of a file's source: coalesced, several requests at once, into buffers the
 * caller owns (`fetchOwned`) or reuses across pool jobs (`fetchGiven`).
 */
import type { Source } from '../io/source.js';
import { shortRead } from './supply.js';

/** Ranges closer than this are fetched as one request. */
export const COALESCE_GAP = 4 * 1024;
/** Requests in flight at once. */
export const CONCURRENCY = 4;
/** Bytes each read of `fetchGiven` fills at most (several go at once). */
const FILL_PART = 4 * 1024 * 1024;
/**
 * Bytes past a range a read may fetch with it (crates/core's HostSource `FETCH_TAIL` past a
 * page body, `FETCH_MIN` for a header field): given ranges carry them (`fetchGiven`); a
 * read that needs more fetches it from the source.
 */
const GIVEN_TAIL = 128;

/** Ranges sorted and merged where they overlap or lie within `gap` bytes of each other. */
export function coalesce(ranges: [number, number][], gap: number): [number, number][] {
  const merged: [number, number][] = [];
  for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && s - last[1] <= gap) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** Run `job(i)` for i in 0..n, at most CONCURRENCY at once. */
export async function concurrently(n: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, worker));
}

/** `length` bytes at `offset`, all of them (a source that returns fewer is cut short). */
export async function readAll(reader: Source, format: string, offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
  signal?.throwIfAborted();
  const bytes = await reader.read(offset, length, signal);
  if (bytes.length < length) throw shortRead(format, offset, bytes.length, length);
  return bytes;
}

/**
 * Buffers a sequence of `fetchGiven` calls reuses once what read them is done: fresh memory
 * costs a page fault per 4 KiB on first touch, and V8 counts shared memory towards no
 * collection, so dropped SharedArrayBuffers would stay until each worker's next GC.
 * @internal
 */
export class ReusedBuffers {
  #free: ArrayBufferLike[] = [];
  /** `shared`: SharedArrayBuffers (for pool workers); at most `keep` are kept for reuse. */
  constructor(
    readonly shared: boolean,
    readonly keep = 4,
  ) {}
  /** A view of `n` bytes, over a buffer given back when one is large enough. */
  take(n: number): Uint8Array {
    const i = this.#free.findIndex((b) => b.byteLength >= n);
    if (i >= 0) return new Uint8Array(this.#free.splice(i, 1)[0]!, 0, n);
    // (A quarter more room, so that the next device's bytes, a little larger, fit it again.)
    const size = this.keep > 0 ? Math.ceil((n * 1.25) / 65536) * 65536 : n;
    return new Uint8Array(this.shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size), 0, n);
  }
  /** The buffer of `bytes` is no longer read by anyone. */
  give(bytes: Uint8Array): void {
    if (this.#free.length < this.keep) this.#free.push(bytes.buffer);
  }
}

/**
 * Ranges (flat [start, end, ...]) and their bytes, one after another, in one buffer of
 * `buffers` (a SharedArrayBuffer for pool jobs on several workers that share them, the
 * windows of one TsFile device), for reads through `givenHost`: read straight into it
 * where the source can (`fill`: a Blob's stream, no intermediate buffer), else copied from
 * its reads. The ranges come back widened: each from a multiple of 8 bytes (the workers'
 * copies out of shared memory are fast only at the same alignment, see `copy.ts`) to
 * GIVEN_TAIL bytes past its end (a read fetches a little more than it asks for), merged
 * where they then meet.
 */
export async function fetchGiven(reader: Source, format: string, flat: ArrayLike<number>, buffers: ReusedBuffers, signal?: AbortSignal): Promise<{ ranges: number[]; bytes: Uint8Array }> {
  const size = reader.size;
  const wide: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) wide.push([flat[i]! - (flat[i]! % 8), Math.min(size, Math.ceil((flat[i + 1]! + GIVEN_TAIL) / 8) * 8)]);
  const spans = coalesce(wide, 0);
  const ranges = spans.flat();
  // Parts of at most FILL_PART bytes, CONCURRENCY at once: a Blob's stream reads one chunk
  // at a time, so several streams keep more of the I/O threads busy.
  const parts: [number, number, number][] = [];
  let total = 0;
  for (const [s, e] of spans) {
    for (let at = s; at < e; at += FILL_PART) parts.push([at, Math.min(FILL_PART, e - at), total + at - s]);
    total += e - s;
  }
  const bytes = buffers.take(total);
  const fill = reader.fill?.bind(reader);
  if (!fill) {
    bytes.set(await fetchOwned(reader, format, ranges, signal));
    return { ranges, bytes };
  }
  await concurrently(parts.length, async (k) => {
    const [s, n, at] = parts[k]!;
    const got = await fill(s, bytes.subarray(at, at + n), signal);
    if (got < n) throw shortRead(format, s, got, n);
  });
  signal?.throwIfAborted();
  return { ranges, bytes };
}

/**
 * The bytes of ranges (flat [start, end, ...]) one after another, in a buffer of their own
 * that the caller may keep: a single range from a Blob or path as its read returned it (a
 * fresh buffer: no copy); otherwise the ranges are read as coalesced spans (ranges within
 * COALESCE_GAP share a request; CONCURRENCY requests at once) and copied into a fresh
 * buffer (other sources may hand out views of memory they reuse or share).
 */
export async function fetchOwned(reader: Source, format: string, flat: ArrayLike<number>, signal?: AbortSignal): Promise<Uint8Array> {
  const want: [number, number][] = [];
  let total = 0;
  for (let i = 0; i < flat.length; i += 2) {
    want.push([flat[i]!, flat[i + 1]!]);
    total += flat[i + 1]! - flat[i]!;
  }
  const spans = coalesce(want, COALESCE_GAP);
  const got: Uint8Array[] = new Array(spans.length);
  await concurrently(spans.length, async (k) => {
    got[k] = await readAll(reader, format, spans[k]![0], spans[k]![1] - spans[k]![0], signal);
  });
  signal?.throwIfAborted();
  // A Blob's and a path's reads return fresh buffers (a FileHandle or custom reader may not).
  const owned = reader.origin?.kind === 'blob' || reader.origin?.kind === 'path';
  const one = got[0]!;
  if (want.length === 1 && owned && one.byteOffset === 0 && one.byteLength === total) return one;
  const out = new Uint8Array(total);
  let at = 0;
  for (const [s, e] of want) {
    // The span holding [s, e): the last starting at or before s (spans are sorted).
    let lo = 0;
    for (let hi = spans.length - 1; lo < hi; ) {
      const mid = (lo + hi + 1) >> 1;
      if (spans[mid]![0] <= s) lo = mid;
      else hi = mid - 1;
    }
    out.set(got[lo]!.subarray(s - spans[lo]![0], e - spans[lo]![0]), at);
    at += e - s;
  }
  return out;
}
