/**
 * What TsFile and HDF5 share on the JS side: a wasm reader fed by a RangeReader. The
 * reader asks for ranges (sans-I/O); we prefetch what a query plans to read, coalescing
 * neighbours, and answer any range it still misses. Opening (and failing to), moving to a
 * fresh module instance, the pool a file reads on, and closing are handled here once for
 * both formats; the parts are `cache.ts`, `fetch.ts`, `hosts.ts`, `sequence.ts`, `supply.ts`.
 */
import type { RecordBatch } from '../arrow/lib.js';
import { toRecordBatch } from '../arrow/batch.js';
import { closedError, wasmCall } from '../errors.js';
import { abortable } from '../io/abort.js';
import type { HttpOptions } from '../io/http.js';
import { toRangeReader, type FileSource, type Source } from '../io/source.js';
import type { Pool } from '../pool/pool.js';
import type { FileRef } from '../pool/protocol.js';
import type { WasmBatchHandle } from '../types.js';
import type { Loaded } from '../wasm/instance.js';
import { SuppliedRanges } from './cache.js';
import { fetchGiven, fetchOwned, type ReusedBuffers } from './fetch.js';
import { givenHost, sourceHost, type ByteHost } from './hosts.js';
import { sequence, type SequenceHost } from './sequence.js';
import type { OpenOptions } from './reader.js';
import { withBytes, type SupplyTarget } from './supply.js';

/** What every format's wasm reader has. @internal */
export interface WasmFileReader extends SupplyTarget {
  clearCache(): void;
  free(): void;
}

/**
 * The formats read as files. A file holds a wasm reader in one instance of its format's
 * module; when that instance is replaced (it grew past the memory limit, see `wasm/instance.ts`), the
 * file moves to the fresh instance at its next operation: a new reader, the kept ranges
 * supplied again, the open step repeated. Until then it keeps using the old instance (the
 * glue binds every object to its own instance), which is garbage once no file uses it.
 */
export type FileFormat = 'tsfile' | 'hdf5';

function checkLimit(bytes: number | undefined): number | undefined {
  if (bytes !== undefined && !(bytes > 0)) throw new RangeError(`maxReadBytes must be a positive number of bytes, not ${bytes}`);
  return bytes;
}


/**
 * One open file of a format, as its class uses it: the module instance and wasm reader `R`
 * (moved to a fresh instance between operations), the source, what the reader holds of it,
 * and the pool it reads on. Each format's file class holds one (composition: its helpers
 * take the core, not the class).
 */
export class FileCore<F extends FileFormat, R extends WasmFileReader> {
  #wasm: Loaded<F>;
  /** Undefined once closed. */
  #handle: R | undefined;
  #closing?: Promise<void>;
  #pooled?: { pool: Pool; ref: FileRef };
  readonly #make: (w: Loaded<F>, size: number) => R;
  /** The step that opened the reader, repeated on a fresh instance. */
  #openStep?: (h: R) => unknown;
  /** Operations in flight: the reader moves only between them. */
  #ops = 0;
  #moving?: Promise<void>;
  /** What the wasm reader holds of the file's bytes. */
  readonly #cache: SuppliedRanges;

  constructor(
    wasm: Loaded<F>,
    /** The file's bytes, opened for ranged reads. */
    readonly reader: Source,
    make: (w: Loaded<F>, size: number) => R,
    /** The format's name in errors. */
    readonly format: string,
  ) {
    this.#wasm = wasm;
    this.#make = make;
    this.#handle = make(wasm, reader.size);
    this.#cache = new SuppliedRanges(reader, format);
  }

  /** The source opened for ranged reads, and a wasm reader of its size (`make`). */
  static async open<F extends FileFormat, R extends WasmFileReader>(
    wasm: Loaded<F>,
    source: FileSource,
    make: (w: Loaded<F>, size: number) => R,
    how: { who: string; format: string; http?: HttpOptions },
  ): Promise<FileCore<F, R>> {
    const reader = await abortable(how.http?.signal, () => toRangeReader(source, how));
    try {
      how.http?.signal?.throwIfAborted();
      return new FileCore(wasm, reader, make, how.format);
    } catch (e) {
      await reader.close?.();
      throw e;
    }
  }

  /** The module instance this file reads with now. */
  get wasm(): Loaded<F> {
    return this.#wasm;
  }

  /** The wasm reader (in `wasm`); throws once the file is closed. */
  get handle(): R {
    if (!this.#handle) throw closedError(this.format === 'TsFile' ? 'TsFile' : `${this.format} file`);
    return this.#handle;
  }

  /** The pool this file reads on, and how its workers reach the bytes. */
  get pooled(): { pool: Pool; ref: FileRef } | undefined {
    return this.#pooled;
  }

  /**
   * Finish opening: the format's first reads (`steps`), then the pool. A failure (or an
   * abort) closes what was opened, the file descriptor of a path included.
   */
  async setUp(options: OpenOptions, steps: () => Promise<void>): Promise<void> {
    this.#maxReadBytes = checkLimit(options.maxReadBytes);
    try {
      await abortable(options.signal, steps);
      if (options.pool) this.#pooled = { pool: options.pool, ref: options.pool.fileRef(this.reader, this.format) };
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  #maxReadBytes?: number;

  /** A read's memory limit: its own, else the file's; undefined: the decoder's default. */
  readLimit(perRead: number | undefined): number | undefined {
    return checkLimit(perRead) ?? this.#maxReadBytes;
  }

  /**
   * Run the step that opens the reader (remembered: a move to a fresh instance repeats it).
   */
  async openReader<T>(step: (h: R) => T, signal?: AbortSignal): Promise<T> {
    this.#openStep = step;
    return this.call(() => step(this.handle), signal);
  }

  /**
   * One operation of this file (a read, a listing): before it starts, when no other is in
   * flight, the file moves to its module's current instance if that changed.
   */
  async op<T>(f: () => Promise<T>): Promise<T> {
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
      this.#cache.supplyKept(handle);
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
    this.#cache.moved();
    old.free();
  }

  #host?: ByteHost;

  /**
   * For a source held in memory or a Node file: what the wasm reader calls to copy bytes as
   * it reaches them (`readFrom`), so a read copies only what it decodes, straight into wasm
   * memory, and never restarts.
   */
  get byteHost(): ByteHost | undefined {
    return (this.#host ??= sourceHost(this.reader, this.wasm.memory));
  }

  /** Run a reader call, answering its byte requests (fetched under `signal`). */
  call<T>(f: () => T, signal?: AbortSignal): Promise<T> {
    const target: SupplyTarget = { supply: (offset, bytes) => this.#cache.supply(this.handle, offset, bytes) };
    return withBytes(this.reader, target, () => wasmCall(f), signal);
  }

  /** `read(0..count)` in order, the next one's bytes fetched while this one decodes (`file/sequence.ts`). */
  sequence<T extends { free(): void }>(count: number, read: (i: number) => T, signal?: AbortSignal): AsyncGenerator<T> {
    const host: SequenceHost = {
      reader: this.reader,
      format: this.format,
      supply: (offset, bytes) => this.#cache.supply(this.handle, offset, bytes),
      release: () => this.release(),
      op: (f) => this.op(f),
    };
    return sequence(host, count, read, signal);
  }

  /** Fetch the planned ranges (flat [start, end, ...]) ahead of a read (Blob/URL/file sources). */
  prefetch(flat: Float64Array | number[], signal?: AbortSignal): Promise<void> {
    return this.#cache.prefetch(this.handle, flat, signal);
  }

  /** A byte host over ranges fetched elsewhere (see `givenHost` in `file/hosts.ts`). */
  givenHost(flat: ArrayLike<number>, bytes: Uint8Array): ByteHost {
    return givenHost(flat, bytes, this.wasm.memory);
  }

  /** Ranges and their bytes in one reused buffer, for pool jobs (see `fetchGiven` in `file/fetch.ts`). */
  fetchGiven(flat: ArrayLike<number>, buffers: ReusedBuffers, signal?: AbortSignal): Promise<{ ranges: number[]; bytes: Uint8Array }> {
    return fetchGiven(this.reader, this.format, flat, buffers, signal);
  }

  /** The bytes of ranges one after another, in a buffer the caller may keep (`file/fetch.ts`). */
  fetchOwned(flat: ArrayLike<number>, signal?: AbortSignal): Promise<Uint8Array> {
    return fetchOwned(this.reader, this.format, flat, signal);
  }

  /** Bytes supplied since the cache was last cleared (kept ranges included). */
  get suppliedBytes(): number {
    return this.#cache.bytes;
  }

  /** Fetch and supply ranges every read needs, again after each clear (`file/cache.ts`). */
  keep(flat: number[], signal?: AbortSignal): Promise<void> {
    return this.#cache.keep(this.handle, flat, signal);
  }

  /** After a read that fetched ranges: drop them so memory stays bounded. */
  release(): void {
    if (this.#handle) this.#cache.release(this.#handle);
  }

  /** */
  batch(h: WasmBatchHandle, rewrite?: Parameters<typeof toRecordBatch>[3]): RecordBatch {
    try {
      return toRecordBatch(this.wasm, h, true, rewrite);
    } finally {
      h.free();
    }
  }

  /** Release the wasm-side reader, the pool workers' copies, the file descriptor of a path it opened. */
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
}
