/// <reference lib="esnext.disposable" preserve="true" />
// (The published types declare Symbol.dispose members: this brings their lib along, so
// consumers need neither `esnext.disposable` in `lib` nor @types/node; TypeScript >= 5.2.)
/**
 * What TsFile and HDF5 share on the JS side: a wasm reader fed by a RangeReader. The
 * reader asks for ranges (sans-I/O); we prefetch what a query plans to read, coalescing
 * neighbours, and answer any range it still misses. Opening (and failing to), the pool a
 * file reads on, and closing are handled here once for both formats.
 */
import type { RecordBatch } from 'apache-arrow';
import { abortable } from './abort.js';
import { toRecordBatch } from './arrow.js';
import { closedError, DecodeError, NeedBytes, toDecodeError, wasmCall } from './errors.js';
import type { HttpOptions } from './http.js';
import type { Pool } from './pool/pool.js';
import { isShared, type FileRef } from './pool/protocol.js';
import { READ_AHEAD, shortRead, supplyRange, withBytes, type SupplyTarget } from './sansio.js';
import { toRangeReader, wholeBytes, type FileSource, type Source } from './source.js';
import type { WasmBatchHandle } from './types.js';
import type { Loaded } from './wasm.js';

/** Copies a file's bytes into wasm memory on request (the wasm side's `ByteHost`). @internal */
export interface ByteHost {
  /** Copy the file's `len` bytes at `offset` to wasm memory at `ptr` (all of them, or throw). */
  readInto(offset: number, ptr: number, len: number): void;
}

/** What every format's wasm reader has. @internal */
export interface WasmFileReader extends SupplyTarget {
  clearCache(): void;
  free(): void;
}

/** Staging for copies out of shared memory (see `copyMisaligned`). */
const STAGE = 1 << 20;
let stage: Uint8Array | undefined;

/**
 * Copy out of a SharedArrayBuffer to a target of another alignment. V8 copies shared memory
 * with relaxed atomics, a word at a time only when source and target share their alignment
 * mod 8 and byte by byte otherwise (measured ~8x slower: 1.2 ms against 0.15 ms per 4 MB).
 * Pool workers read files from shared memory at any offset, so this is their hot path:
 * stage through plain memory at the source's alignment (two fast copies), 1 MiB at a time.
 */
function copyMisaligned(src: Uint8Array, dst: Uint8Array): void {
  stage ??= new Uint8Array(STAGE + 8);
  const k = src.byteOffset & 7;
  for (let at = 0; at < src.length; at += STAGE) {
    const n = Math.min(STAGE, src.length - at);
    stage.set(src.subarray(at, at + n), k);
    dst.set(stage.subarray(k, k + n), at);
  }
}

/**
 * Copy `src` to wasm memory at `ptr` (a fresh view each time: a read may have grown the
 * memory since the last copy); out of shared memory at another alignment, staged.
 */
function toWasm(memory: WebAssembly.Memory, src: Uint8Array, ptr: number, shared: boolean): void {
  const dst = new Uint8Array(memory.buffer, ptr, src.length);
  if (shared && src.length >= 64 && ((src.byteOffset - ptr) & 7) !== 0) copyMisaligned(src, dst);
  else dst.set(src);
}

/**
 * Bytes past a range a read may fetch with it (crates/core's HostSource `FETCH_TAIL` past a
 * page body, `FETCH_MIN` for a header field): given ranges carry them (`fetchGiven`); a
 * read that needs more fetches it from the source.
 */
const GIVEN_TAIL = 128;

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

/** Bytes each read of `fetchGiven` fills at most (several go at once). */
const FILL_PART = 4 * 1024 * 1024;

/** Ranges closer than this are fetched as one request. */
const COALESCE_GAP = 4 * 1024;
/** Requests in flight at once. */
const CONCURRENCY = 4;
/**
 * Ranges a read asked for one at a time up to this size are metadata (headers, indexes):
 * they are kept across reads, up to KEEP_BYTES in all, so a sequence of reads (batches)
 * does not walk them again one round trip at a time. Larger ranges (data) are dropped
 * after the read that fetched them.
 */
const KEEP_RANGE = 64 * 1024;
const KEEP_BYTES = 1024 * 1024;

/** Ranges sorted and merged where they overlap or lie within `gap` bytes of each other. */
function coalesce(ranges: [number, number][], gap: number): [number, number][] {
  const merged: [number, number][] = [];
  for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && s - last[1] <= gap) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/**
 * The formats read as files. A file holds a wasm reader in one instance of its format's
 * module; when that instance is replaced (it grew past the memory limit, see wasm.ts), the
 * file moves to the fresh instance at its next operation: a new reader, the kept ranges
 * supplied again, the open step repeated. Until then it keeps using the old instance (the
 * glue binds every object to its own instance), which is garbage once no file uses it.
 */
export type FileFormat = 'tsfile' | 'hdf5';

/**
 * Options of `openTsFile` / `openHdf5`: `pool` to read on a worker pool (each read becomes
 * parallel jobs); `signal` cancels the open; for a URL also how it is fetched.
 */
export interface OpenOptions extends HttpOptions {
  pool?: Pool;
  /** Every read's default `maxReadBytes` (see `FileReadOptions`). Default 1 GiB. */
  maxReadBytes?: number;
}

function checkLimit(bytes: number | undefined): number | undefined {
  if (bytes !== undefined && !(bytes > 0)) throw new RangeError(`maxReadBytes must be a positive number of bytes, not ${bytes}`);
  return bytes;
}

/** A prepared file: the source, a wasm reader of its size, and how to make another. @internal */
export interface Prepared {
  wasm: Loaded<FileFormat>;
  reader: Source;
  handle: WasmFileReader;
  make: (w: Loaded<FileFormat>, size: number) => WasmFileReader;
}

/**
 * A file of any format: `close()` and `Symbol.dispose`/`Symbol.asyncDispose`. Not generic,
 * and its machinery is internal (stripped from the published types); each format's class
 * narrows `wasm` and `handle` to its own module and reader.
 */
export class FileReaderBase {
  /** The format's name in errors. @internal */
  protected readonly format: string = 'file';
  #wasm: Loaded<FileFormat>;
  /** Undefined once closed. */
  #handle: WasmFileReader | undefined;
  #closing?: Promise<void>;
  #pooled?: { pool: Pool; ref: FileRef };
  readonly #make: Prepared['make'];
  /** The step that opened the reader, repeated on a fresh instance. */
  #openStep?: (h: WasmFileReader) => unknown;
  /** Operations in flight: the reader moves only between them. */
  #ops = 0;
  #moving?: Promise<void>;

  /** @internal */
  protected constructor(prepared: Prepared) {
    this.#wasm = prepared.wasm;
    this.reader = prepared.reader;
    this.#handle = prepared.handle;
    this.#make = prepared.make;
  }

  /** @internal */
  protected readonly reader: Source;

  /** The module instance this file reads with now. @internal */
  protected get wasm(): Loaded<FileFormat> {
    return this.#wasm;
  }

  /** The wasm reader (in `wasm`); throws once the file is closed. @internal */
  protected get handle(): WasmFileReader {
    if (!this.#handle) throw closedError(this.format === 'TsFile' ? 'TsFile' : `${this.format} file`);
    return this.#handle;
  }

  /** The pool this file reads on, and how its workers reach the bytes. @internal */
  protected get pooled(): { pool: Pool; ref: FileRef } | undefined {
    return this.#pooled;
  }

  /** The source opened for ranged reads, and a wasm reader of its size. @internal */
  protected static async prepare<F extends FileFormat, R extends WasmFileReader>(
    wasm: Loaded<F>,
    source: FileSource,
    make: (w: Loaded<F>, size: number) => R,
    how: { who: string; format: string; http?: HttpOptions },
  ): Promise<Prepared> {
    const reader = await abortable(how.http?.signal, () => toRangeReader(source, how));
    try {
      how.http?.signal?.throwIfAborted();
      // A file's instances are always of its own format (`owner.instance()`), so `make`
      // only ever sees a `Loaded<F>`.
      return { wasm, reader, handle: make(wasm, reader.size), make: make as unknown as Prepared['make'] };
    } catch (e) {
      await reader.close?.();
      throw e;
    }
  }

  /**
   * Finish opening: the format's first reads (`steps`), then the pool. A failure (or an
   * abort) closes what was opened, the file descriptor of a path included.
   * @internal
   */
  protected async setUp(options: OpenOptions, steps: () => Promise<void>): Promise<this> {
    this.#maxReadBytes = checkLimit(options.maxReadBytes);
    try {
      await abortable(options.signal, steps);
      if (options.pool) this.#pooled = { pool: options.pool, ref: options.pool.fileRef(this.reader, this.format) };
      return this;
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  #maxReadBytes?: number;

  /** A read's memory limit: its own, else the file's; undefined: the decoder's default. @internal */
  protected readLimit(perRead: number | undefined): number | undefined {
    return checkLimit(perRead) ?? this.#maxReadBytes;
  }

  /**
   * Run the step that opens the reader (remembered: a move to a fresh instance repeats it).
   * `R` is the format's reader, the one its `make` returns.
   * @internal
   */
  protected async openReader<T, R extends WasmFileReader>(step: (h: R) => T, signal?: AbortSignal): Promise<T> {
    this.#openStep = step as (h: WasmFileReader) => unknown;
    return this.call(() => step(this.handle as R), signal);
  }

  /**
   * One operation of this file (a read, a listing): before it starts, when no other is in
   * flight, the file moves to its module's current instance if that changed.
   * @internal
   */
  protected async op<T>(f: () => Promise<T>): Promise<T> {
    this.#ops++;
    try {
      if (this.#ops === 1) await (this.#moving ??= this.#follow().finally(() => (this.#moving = undefined)));
      else if (this.#moving) await this.#moving;
      return await f();
    } finally {
      this.#ops--;
    }
  }

  async #follow(): Promise<void> {
    const now = this.#wasm.owner.instance();
    if (now === this.#wasm || !this.#openStep || !this.#handle) return;
    const handle = this.#make(now, this.reader.size);
    try {
      for (const [s, bytes] of this.kept) handle.supply(s, bytes);
      const step = this.#openStep;
      await withBytes(this.reader, handle, () => wasmCall(() => step(handle)));
    } catch {
      // The file stays on the old instance (it still works); the next operation tries again.
      handle.free();
      return;
    }
    const old = this.#handle;
    if (!old) return handle.free(); // closed meanwhile
    this.#wasm = now;
    this.#handle = handle;
    this.#host = undefined;
    this.loaded = this.kept.map(([s, b]) => [s, s + b.length]);
    this.dirty = true;
    old.free();
  }

  #host?: ByteHost;

  /**
   * For a source held in memory or a Node file: what the wasm reader calls to copy bytes as
   * it reaches them (`readFrom`), so a read copies only what it decodes, straight into wasm
   * memory, and never restarts.
   * @internal
   */
  protected get byteHost(): ByteHost | undefined {
    const bytes = wholeBytes(this.reader);
    const memory = this.wasm.memory;
    if (!bytes) {
      const readInto = this.reader.readInto?.bind(this.reader);
      if (!readInto) return undefined;
      // A Node file: positioned reads straight into wasm memory (a fresh view each time,
      // since the read may have grown the memory).
      return (this.#host ??= { readInto: (offset, ptr, len) => readInto(offset, new Uint8Array(memory.buffer, ptr, len)) });
    }
    const shared = isShared(bytes.buffer);
    return (this.#host ??= {
      readInto: (offset, ptr, len) => {
        if (offset + len > bytes.length) throw new RangeError(`bytes ${offset}+${len} are past the end of the file`);
        toWasm(memory, bytes.subarray(offset, offset + len), ptr, shared);
      },
    });
  }

  /** Ranges were supplied since the last release (the cache holds more than the kept ranges). @internal */
  private dirty = false;

  /** Run a reader call, answering its byte requests (fetched under `signal`). @internal */
  protected call<T>(f: () => T, signal?: AbortSignal): Promise<T> {
    const target: SupplyTarget = { supply: (offset, bytes) => this.#supply(offset, bytes) };
    return withBytes(this.reader, target, () => wasmCall(f), signal);
  }

  /** Hand bytes a read asked for to the wasm reader; a small range (metadata) is also kept. */
  #supply(offset: number, bytes: Uint8Array): void {
    this.handle.supply(offset, bytes);
    if (bytes.length <= KEEP_RANGE && this.#keptBytes + bytes.length <= KEEP_BYTES) {
      this.#keptBytes += bytes.length;
      this.kept.push([offset, bytes.slice()]); // a copy: the bytes may be a reused buffer
      this.loaded.push([offset, offset + bytes.length]);
    } else {
      this.dirty = true;
    }
  }

  #keptBytes = 0;

  /**
   * Reads `read(0..count)` in order, each yielded as soon as it decodes, with the bytes of
   * the next read fetched while this one decodes and is consumed: before read i decodes,
   * read i+1 is tried once, and the range it misses is fetched in the background (supplied
   * after read i, whose data bytes are then dropped). A read is a wasm call that throws
   * NeedBytes for what it misses. Runs as one operation (the file stays on its module
   * instance while the sequence is open).
   * @internal
   */
  protected async *sequence<T extends { free(): void }>(count: number, read: (i: number) => T, signal?: AbortSignal): AsyncGenerator<T> {
    type Step = { done: T } | { error: unknown } | { fetch: Promise<Uint8Array>; offset: number; length: number };
    const attempt = (i: number): Step => {
      try {
        return { done: wasmCall(() => read(i)) };
      } catch (e) {
        const err = toDecodeError(e);
        if (!(err instanceof NeedBytes)) return { error: err };
        const length = Math.min(this.reader.size - err.offset, Math.max(err.length, READ_AHEAD));
        const fetch = this.#read(err.offset, length, signal);
        fetch.catch(() => {}); // awaited (or dropped with the sequence) below
        return { fetch, offset: err.offset, length };
      }
    };
    let resolveOp!: () => void;
    const opDone = new Promise<void>((r) => (resolveOp = r));
    let started!: () => void;
    const inOp = new Promise<void>((r) => (started = r));
    void this.op(() => (started(), opDone));
    await inOp;
    let ahead: Step | undefined;
    try {
      for (let i = 0; i < count; i++) {
        let cur = ahead ?? attempt(i);
        ahead = undefined;
        const seen = new Set<string>();
        while ('fetch' in cur) {
          const key = `${cur.offset}:${cur.length}`;
          if (seen.has(key)) throw new DecodeError(this.format, cur.offset, 'invalid', `the reader asked for bytes ${cur.offset}..${cur.offset + cur.length} again after they were supplied`);
          seen.add(key);
          const bytes = await cur.fetch;
          signal?.throwIfAborted();
          this.#supply(cur.offset, bytes);
          // The next read's first fetch goes out before this one decodes.
          if (!ahead && i + 1 < count && bytes.length > KEEP_RANGE) ahead = attempt(i + 1);
          cur = attempt(i);
        }
        if ('error' in cur) throw cur.error;
        this.release();
        yield cur.done;
      }
    } finally {
      if (ahead && 'done' in ahead) ahead.done.free(); // the consumer stopped early
      this.release();
      resolveOp();
    }
  }

  /** Fetch the planned ranges (flat [start, end, ...]) ahead of a read (Blob/URL/file sources). @internal */
  protected async prefetch(flat: Float64Array | number[], signal?: AbortSignal): Promise<void> {
    if (flat.length === 0) return;
    const ranges: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) ranges.push(...this.missing(flat[i]!, flat[i + 1]!));
    const merged = coalesce(ranges, COALESCE_GAP);
    let next = 0;
    const worker = async () => {
      while (next < merged.length) {
        const [a, b] = merged[next++]!;
        await supplyRange(this.reader, this.handle, this.format, a, b - a, signal);
        this.dirty = true;
        this.loaded.push([a, b]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, merged.length) }, worker));
  }

  /**
   * A byte host over ranges fetched elsewhere (flat [start, end, ...], their bytes one after
   * another: a pool job's, fetched by the main thread): a read copies from them only the
   * pages it decodes, straight into wasm memory. A range they do not hold fails the copy,
   * and the read asks the source for it instead (NeedBytes).
   * @internal
   */
  protected givenHost(flat: ArrayLike<number>, bytes: Uint8Array): ByteHost {
    const starts: number[] = [];
    let at = 0;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      starts.push(at);
      at += flat[i + 1]! - flat[i]!;
    }
    if (at > bytes.length) throw new RangeError(`arrowsmith: given bytes end before their ranges (${bytes.length} of ${at})`);
    const shared = isShared(bytes.buffer);
    const memory = this.wasm.memory;
    return {
      readInto: (offset, ptr, len) => {
        let k = 0;
        while (k < starts.length && !(flat[2 * k]! <= offset && offset + len <= flat[2 * k + 1]!)) k++;
        if (k === starts.length) throw new RangeError(`arrowsmith: bytes ${offset}+${len} were not given`);
        const from = starts[k]! + offset - flat[2 * k]!;
        toWasm(memory, bytes.subarray(from, from + len), ptr, shared);
      },
    };
  }

  /**
   * Ranges (flat [start, end, ...]) and their bytes, one after another, in one buffer of
   * `buffers` (a SharedArrayBuffer for pool jobs on several workers that share them, the
   * windows of one TsFile device), for reads through `givenHost`: read straight into it
   * where the source can (`fill`: a Blob's stream, no intermediate buffer), else copied from
   * its reads. The ranges come back widened: each from a multiple of 8 bytes (the workers'
   * copies out of shared memory are fast only at the same alignment, see `copyMisaligned`)
   * to GIVEN_TAIL bytes past its end (a read fetches a little more than it asks for), merged
   * where they then meet.
   * @internal
   */
  protected async fetchGiven(flat: ArrayLike<number>, buffers: ReusedBuffers, signal?: AbortSignal): Promise<{ ranges: number[]; bytes: Uint8Array }> {
    const size = this.reader.size;
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
    const fill = this.reader.fill?.bind(this.reader);
    if (!fill) {
      bytes.set(await this.fetchOwned(ranges, signal));
      return { ranges, bytes };
    }
    let next = 0;
    const worker = async () => {
      while (next < parts.length) {
        const [s, n, at] = parts[next++]!;
        const got = await fill(s, bytes.subarray(at, at + n), signal);
        if (got < n) throw shortRead(this.format, s, got, n);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, parts.length) }, worker));
    signal?.throwIfAborted();
    return { ranges, bytes };
  }

  /**
   * The bytes of ranges (flat [start, end, ...]) one after another, in a buffer of their own
   * that the caller may keep: a single range from a Blob or path as its read returned it (a
   * fresh buffer: no copy); otherwise the ranges are read as coalesced spans (ranges within
   * COALESCE_GAP share a request; CONCURRENCY requests at once) and copied into a fresh
   * buffer (other sources may hand out views of memory they reuse or share).
   * @internal
   */
  protected async fetchOwned(flat: ArrayLike<number>, signal?: AbortSignal): Promise<Uint8Array> {
    const want: [number, number][] = [];
    let total = 0;
    for (let i = 0; i < flat.length; i += 2) {
      want.push([flat[i]!, flat[i + 1]!]);
      total += flat[i + 1]! - flat[i]!;
    }
    const spans = coalesce(want, COALESCE_GAP);
    const got: Uint8Array[] = new Array(spans.length);
    let next = 0;
    const worker = async () => {
      while (next < spans.length) {
        const k = next++;
        got[k] = await this.#read(spans[k]![0], spans[k]![1] - spans[k]![0], signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, spans.length) }, worker));
    signal?.throwIfAborted();
    // A Blob's and a path's reads return fresh buffers (a FileHandle or custom reader may not).
    const owned = this.reader.origin?.kind === 'blob' || this.reader.origin?.kind === 'path';
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

  /** `length` bytes at `offset`, all of them (a source that returns fewer is cut short). */
  async #read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    signal?.throwIfAborted();
    const bytes = await this.reader.read(offset, length, signal);
    if (bytes.length < length) throw shortRead(this.format, offset, bytes.length, length);
    return bytes;
  }

  /** Bytes supplied since the cache was last cleared (kept ranges included). @internal */
  protected get suppliedBytes(): number {
    return this.loaded.reduce((n, [a, b]) => n + (b - a), 0);
  }

  /** Ranges supplied by prefetch since the cache was last cleared. @internal */
  private loaded: [number, number][] = [];

  /** The parts of [start, end) not supplied yet. @internal */
  private missing(start: number, end: number): [number, number][] {
    let parts: [number, number][] = [[start, end]];
    for (const [a, b] of this.loaded) {
      parts = parts.flatMap(([s, e]): [number, number][] =>
        b <= s || a >= e ? [[s, e]] : [...(s < a ? [[s, a] as [number, number]] : []), ...(b < e ? [[b, e] as [number, number]] : [])],
      );
    }
    return parts;
  }

  /** Ranges kept supplied across reads (a TsFile's footer and index), with their bytes. @internal */
  private kept: [number, Uint8Array][] = [];

  /**
   * Fetch and supply ranges (flat [start, end, ...]; overlaps merged) that every read needs,
   * and supply them again whenever the cache is cleared: otherwise each read would ask for
   * them again, one missing range (one failed call) at a time.
   * @internal
   */
  protected async keep(flat: number[], signal?: AbortSignal): Promise<void> {
    const ranges: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) if (flat[i + 1]! > flat[i]!) ranges.push([flat[i]!, flat[i + 1]!]);
    for (const [s, e] of coalesce(ranges, 0)) {
      const bytes = await this.#read(s, e - s, signal);
      this.handle.supply(s, bytes);
      this.kept.push([s, bytes]);
      this.loaded.push([s, e]);
    }
  }

  /** After a read that fetched ranges: drop them so memory stays bounded. @internal */
  protected release(): void {
    if (this.dirty && this.#handle) {
      this.dirty = false;
      this.handle.clearCache();
      this.loaded = [];
      for (const [s, bytes] of this.kept) {
        this.handle.supply(s, bytes);
        this.loaded.push([s, s + bytes.length]);
      }
    }
  }

  /** @internal */
  protected batch(h: WasmBatchHandle, rewrite?: Parameters<typeof toRecordBatch>[3]): RecordBatch {
    try {
      return toRecordBatch(this.wasm, h, true, rewrite);
    } finally {
      h.free();
    }
  }

  /**
   * Release the file: the wasm-side reader, the pool workers' copies, the file descriptor
   * of a path it opened. Using the file afterwards throws. Also `using` / `await using`.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const h = this.#handle;
      this.#handle = undefined;
      if (this.#pooled) this.#pooled.pool.forget(this.#pooled.ref);
      h?.free();
      await this.reader.close?.();
    })();
    return this.#closing;
  }

  [Symbol.dispose](): void {
    void this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
