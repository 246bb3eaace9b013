/// <reference lib="esnext.disposable" preserve="true" />
// (The published types declare Symbol.dispose members: this brings their lib along, so
// consumers need neither `esnext.disposable` in `lib` nor @types/node; TypeScript >= 5.2.)
/**
 * A pool of workers, each with its own instance of the module the main thread compiled
 * (compiled once, instantiated per worker). Decoders split their work into jobs at the
 * format's natural boundaries; the pool runs them, one per idle worker, and assembles
 * one Arrow table (see assemble.ts); `workers.ts` keeps the workers. Abort terminates and replaces the busy workers;
 * workers whose wasm memory grew large are recycled after their job to give it back.
 */
import { Table, type RecordBatch } from '../arrow/lib.js';
import { closedError, DecodeError, SchemaMismatch } from '../errors.js';
import { isHttp } from '../io/http.js';
import { wholeBytes, type Source } from '../io/source.js';
import type { BatchDesc } from '../types.js';
import { platform } from '../wasm/instance.js';
import { layout, placeOuts, sharedBatch, transferredBatches } from './assemble.js';
import { LentMemory } from './lent.js';
import { isShared, type Decoded, type FileRef, type Job, type PoolStats } from './protocol.js';
import { Call, type Done } from './slot.js';
import { Workers } from './workers.js';

export interface PoolOptions {
  /** Number of workers. Default: logical cores. */
  size?: number;
  /**
   * The worker script, for hosting it yourself (default: the package's own worker, which
   * Vite and webpack bundle and emit by themselves).
   */
  workerUrl?: string | URL;
  /**
   * A worker whose wasm memory exceeds this after a job is replaced by a fresh one (wasm
   * memory never shrinks). Default 512 MiB: big enough that steady workloads keep their
   * warm memory, small enough that one huge job does not pin it for good.
   */
  recycleBytes?: number;
  /**
   * Have workers write outputs in place into SharedArrayBuffers (one contiguous batch, no
   * transfer), where they exist (Node; cross-origin isolated pages). Default `false`: each
   * job returns its own RecordBatch by transfer. Why opt-in: V8 does not count
   * SharedArrayBuffer memory towards garbage-collection pressure, and every worker that
   * wrote one holds it until its own next GC, so dropped shared outputs pile up (measured:
   * 60 pooled 8 MB reads left 516 MB behind, 10M-row TsFile reads 360 MB each; transferred
   * outputs stay flat, 47 MB, and were faster). Input files are shared either way.
   */
  sharedMemory?: boolean;
  /** How long workers may take to start (load the script, instantiate the module). Default 30 s. */
  startTimeoutMs?: number;
  /**
   * A read is split into parallel jobs only when its input holds at least two jobs of this
   * size (default 1 MiB): below that, the round trips and the assembly cost more than the
   * decoding the workers share, and HDF5 and MessagePack decode on the calling thread
   * (measured on 2 workers: VL reads break even at ~25k cells, 1.6 MB by the estimate;
   * 50k cells read 1.2× faster split, 100k 1.4×). `0` splits every read.
   */
  minJobBytes?: number;
}

/** Options every pooled call accepts. */
export interface PoolCallOptions {
  signal?: AbortSignal;
}

let nextFile = 1;

export class Pool {
  readonly size: number;
  /** True when outputs land in SharedArrayBuffers (opt-in, see {@link PoolOptions.sharedMemory}). */
  readonly sharedMemory: boolean;
  /**
   * Jobs may share input bytes in SharedArrayBuffers (they exist here): in-memory files reach
   * the workers through one shared copy. @internal
   */
  readonly sharesInput: boolean;
  /** See {@link PoolOptions.minJobBytes}. */
  readonly minJobBytes: number;
  readonly #w: Workers;
  /**
   * Lent memory no job or consumer uses, kept for the next lending calls (2 × size + 2 at
   * most): workers hold a SharedArrayBuffer they were sent until their own next GC (V8
   * counts no pressure for it), so fresh pieces for every call would pile up there.
   */
  readonly #lendable: SharedArrayBuffer[] = [];

  /** Use `createPool`. @internal */
  constructor(options: PoolOptions & { size: number; workerUrl?: URL }) {
    this.size = options.size;
    const canShare = typeof SharedArrayBuffer !== 'undefined' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
    this.sharedMemory = (options.sharedMemory ?? false) && canShare;
    this.sharesInput = canShare;
    this.minJobBytes = Math.max(0, options.minJobBytes ?? 1024 * 1024);
    this.#w = new Workers(this.size, options.workerUrl, options.recycleBytes ?? 512 * 1024 * 1024, this.sharedMemory);
  }

  /**
   * Run jobs and assemble their rows, in job order, into one table.
   * @internal used by the format readers.
   */
  async table(
    jobs: Job[],
    options: PoolCallOptions & {
      rewrite?: (d: BatchDesc) => void;
      /**
       * The jobs were cut at guessed boundaries: a failing job, or decoded results this
       * rejects, mean the guess was wrong (or the input is bad); the call then rejects with
       * SchemaMismatch so the caller redoes the work exactly.
       */
      speculative?: (results: Decoded[]) => boolean;
    } = {},
  ): Promise<Table> {
    if (this.#w.closed) throw closedError('pool');
    const { signal } = options;
    signal?.throwIfAborted();
    await this.#w.need(jobs);
    const call = new Call(signal);
    const onAbort = () => this.#w.abort(call, signal!, true);
    signal?.addEventListener('abort', onAbort, { once: true });
    const decoded = jobs.map(
      (job) => new Promise<Done>((resolve, reject) => this.#w.queue.push({ job, call, resolve, reject })),
    );
    this.#w.pump();
    const settled = await Promise.allSettled(decoded);
    const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const dropAll = () => {
      for (const d of done) {
        if (d.result.buffers || !this.#w.slots.includes(d.slot)) continue;
        d.slot.held--;
        this.#w.send(d.slot, { type: 'drop', id: d.id });
      }
    };
    try {
      const failed = settled.find((s) => s.status === 'rejected');
      if (call.aborted !== undefined || failed) {
        dropAll();
        if (call.aborted === undefined && options.speculative) throw new SchemaMismatch('arrowsmith: a guessed piece did not decode');
        // A piece of a bad input failed: its error may not be the one a read on one thread
        // meets first (another piece, another path), so the caller redoes the read on the
        // calling thread and answers with that (pool = thread, code and offset included).
        // Network failures are not redone: the thread would wait for the same server again.
        const reason = (failed as PromiseRejectedResult | undefined)?.reason;
        if (call.aborted === undefined && reason instanceof DecodeError && reason.code !== 'network') {
          throw new SchemaMismatch('arrowsmith: a piece failed', { cause: reason });
        }
        throw call.aborted ?? (failed as PromiseRejectedResult).reason;
      }
      for (const d of done) options.rewrite?.(d.result.desc);
      const results = done.map((d) => d.result);
      if (options.speculative && !options.speculative(results)) {
        dropAll();
        throw new SchemaMismatch('arrowsmith: the guessed pieces do not add up');
      }
      if (!this.sharedMemory) return new Table(transferredBatches(results));
      let l: ReturnType<typeof layout>;
      try {
        l = layout(results);
      } catch (e) {
        dropAll();
        throw e;
      }
      const outs = await Promise.all(done.map((d, t) => this.#w.write(d.slot, { type: 'write', id: d.id, ops: l.ops[t]! })));
      if (call.aborted !== undefined) throw call.aborted;
      outs.forEach((o, t) => placeOuts(l, t, o));
      return new Table([sharedBatch(l)]);
    } finally {
      call.finished = true;
      signal?.removeEventListener('abort', onAbort);
      this.#w.recycleLarge(call);
    }
  }

  /**
   * Run jobs and yield one RecordBatch per job, in job order, as they complete: at most
   * `ahead` jobs are taken from `jobs` and queued or running at once (default: twice the
   * workers), so a consumer that stops early, or reads slowly, does not make the pool
   * decode everything, and jobs given lazily (an async iterable: the caller may fetch each
   * job's bytes as it makes it) are made only that far ahead. Batches come back by
   * transfer (each its own buffers; nothing is assembled), or with `lend` (where shared
   * memory exists) written into shared memory that is reused for a later batch once the
   * consumer asks for the next one: a lent batch is valid until then.
   * @internal used by the format readers.
   */
  async *batches(jobs: Iterable<Job> | AsyncIterable<Job>, options: PoolCallOptions & { rewrite?: (d: BatchDesc) => void; ahead?: number; lend?: boolean } = {}): AsyncGenerator<RecordBatch> {
    if (this.#w.closed) throw closedError('pool');
    const { signal } = options;
    signal?.throwIfAborted();
    const source: AsyncIterator<Job> | Iterator<Job> = Symbol.asyncIterator in jobs ? jobs[Symbol.asyncIterator]() : jobs[Symbol.iterator]();
    const ahead = Math.max(1, options.ahead ?? 2 * this.size);
    const call = new Call(signal);
    const onAbort = () => this.#w.abort(call, signal!, false);
    signal?.addEventListener('abort', onAbort, { once: true });
    // One entry per job taken (undefined once `jobs` is done), in job order.
    const pending: Promise<{ result: Decoded; lend?: SharedArrayBuffer } | undefined>[] = [];
    // Lending: a piece of memory per job in flight and the batch the consumer holds.
    const lent = options.lend && this.sharesInput ? new LentMemory(ahead + 2, this.#lendable) : undefined;
    let ended = false;
    // Jobs are taken one after another (each waits for the one before it to be made).
    let taking: Promise<unknown> = Promise.resolve();
    const submit = () => {
      const p = taking.then(async () => {
        const next = await source.next();
        if (next.done) {
          ended = true;
          return undefined;
        }
        await this.#w.need([next.value]);
        if (call.aborted !== undefined) throw call.aborted;
        if (call.finished) return undefined; // made after the consumer stopped: not wanted
        const lend = lent?.take();
        const done = new Promise<{ result: Decoded; lend?: SharedArrayBuffer }>((resolve, reject) => this.#w.queue.push({ job: next.value, call, shared: false, lend, resolve, reject }));
        this.#w.pump();
        return { done: done.then((d) => ({ ...d, lend })) };
      });
      taking = p.catch(() => {});
      // Observed when its turn comes, or dropped with the generator.
      const out = p.then((r) => r?.done);
      out.catch(() => {});
      pending.push(out);
    };
    try {
      while (pending.length < ahead) submit();
      while (pending.length > 0) {
        const got = await pending.shift()!;
        if (call.aborted !== undefined) throw call.aborted;
        if (!got) break; // `jobs` is done (the entries after this one are too)
        if (!ended) submit();
        options.rewrite?.(got.result.desc);
        lent?.saw(got.result);
        yield transferredBatches([got.result], got.lend)[0]!;
        // The consumer asked for the next batch: the memory of this one may be reused.
        if (got.lend) lent!.give(got.lend);
      }
    } finally {
      call.finished = true;
      signal?.removeEventListener('abort', onAbort);
      // Stopped early or failed: what is still queued is not wanted; running jobs finish
      // and their batches (transferred, nothing held in a worker) are dropped; the jobs
      // not taken yet are never made.
      this.#w.dropQueued(call, new Error('arrowsmith: batches() was closed'));
      lent?.done();
      if (!ended) void taking.then(() => source.return?.()).catch(() => {});
      this.#w.recycleLarge(call);
    }
  }

  /** Resolves when every worker is ready; rejects (and closes the pool) when one is not in time. */
  started(timeoutMs = 30_000): Promise<void> {
    return this.#w.started(timeoutMs);
  }

  /** Workers, their wasm memory, jobs queued and running, workers recycled, jobs taken ({@link PoolStats}). */
  stats(): PoolStats {
    return this.#w.stats();
  }

  /**
   * How many parallel jobs a read of `bytes` of input should become: `most` when it holds
   * at least two jobs' worth ({@link minJobBytes} each), else 1 (the caller reads on one
   * thread). All or nothing: fewer pieces than the caller's balanced `most` leave a worker idle.
   * @internal
   */
  pieces(bytes: number, most: number): number {
    if (this.#w.closed) throw closedError('pool');
    return bytes >= 2 * this.minJobBytes ? most : 1;
  }

  /**
   * How workers reach a file: shared memory for in-memory bytes (copied once unless they
   * already live in a SharedArrayBuffer), the Blob, URL or file path itself, else via this
   * thread (custom readers, FileHandles).
   * @internal
   */
  fileRef(reader: Source, format: string): FileRef {
    if (this.#w.closed) throw closedError('pool');
    const id = nextFile++;
    const bytes = wholeBytes(reader);
    if (bytes && this.sharesInput) {
      if (isShared(bytes.buffer)) return { id, kind: 'shared', buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length };
      const buffer = new SharedArrayBuffer(bytes.length);
      new Uint8Array(buffer).set(bytes);
      return { id, kind: 'shared', buffer, offset: 0, length: bytes.length };
    }
    const o = bytes ? undefined : reader.origin;
    if (o?.kind === 'blob' && postable(o.blob)) return { id, kind: 'blob', blob: o.blob };
    if (o?.kind === 'url' && isHttp(reader)) return { id, kind: 'url', url: o.url, format, identity: reader.identity, policy: reader.policy };
    if (o?.kind === 'path') return { id, kind: 'path', path: o.path };
    this.#w.proxied.set(id, reader);
    return { id, kind: 'proxy', size: reader.size };
  }

  /** The file is closed: workers drop their readers of it. @internal */
  forget(ref: FileRef): void {
    this.#w.proxied.delete(ref.id);
    if (this.#w.closed) return;
    for (const slot of this.#w.slots) this.#w.send(slot, { type: 'forget', file: ref.id });
  }

  /** Terminate every worker; pending calls reject. */
  close(): void {
    this.#w.close();
  }

  /** `using pool = await createPool()` closes it at the end of the block. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** `await using pool = await createPool()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }
}

/** Whether a Blob can be posted to a worker (Node's file-backed Blobs, from `fs.openAsBlob`, cannot: their workers ask this thread for bytes). */
function postable(blob: Blob): boolean {
  try {
    structuredClone(blob);
    return true;
  } catch {
    return false;
  }
}

/**
 * Start a pool of decoding workers. Pass it as `{ pool }` to `decodeMsgpack`,
 * `openTsFile` and `openHdf5`; `close()` it when done.
 */
export async function createPool(options: PoolOptions = {}): Promise<Pool> {
  const cores = platform.cores?.() ?? (globalThis.navigator?.hardwareConcurrency || 2);
  const size = Math.max(1, Math.floor(options.size ?? cores));
  const workerUrl = options.workerUrl ? new URL(options.workerUrl, globalThis.location?.href) : platform.workerUrl;
  const pool = new Pool({ ...options, size, workerUrl });
  await pool.started(options.startTimeoutMs);
  return pool;
}
