/// <reference lib="esnext.disposable" preserve="true" />
// (The published types declare Symbol.dispose members: this brings their lib along, so
// consumers need neither `esnext.disposable` in `lib` nor @types/node; TypeScript >= 5.2.)
/**
 * A pool of workers, each with its own instance of the module the main thread compiled
 * (compiled once, instantiated per worker). Decoders split their work into jobs at the
 * format's natural boundaries; the pool runs them, one per idle worker, and assembles
 * one Arrow table (see assemble.ts). Abort terminates and replaces the busy workers;
 * workers whose wasm memory grew large are recycled after their job to give it back.
 */
import { Table, type RecordBatch } from '../arrow/lib.js';
import type { BatchDesc } from '../types.js';
import { abortReason } from '../io/abort.js';
import { closedError, DecodeError, SchemaMismatch, type DecodeErrorCode } from '../errors.js';
import { isHttp } from '../io/http.js';
import { lendRange, wholeBytes, type RangeReader, type Source } from '../io/source.js';
import { FORMATS, load, platform, type Format, type WasmModule, type WorkerPort } from '../wasm/instance.js';
import { layout, placeOuts, sharedBatch, transferredBatches } from './assemble.js';
import { isShared, toWire, wireJob, type Decoded, type FileRef, type FromWorker, type Job, type ToWorker, type WasmMemory, type WireError } from './protocol.js';

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

/** A job decoded by a worker (in shared-memory mode its batch is still held there). */
interface Done {
  slot: Slot;
  id: number;
  result: Decoded;
}

/** What waits for a worker's answer: a phase-1 task (the worker is busy until it answers) or a phase-2 write. */
type Wait =
  | { task: true; resolve: (d: Done) => void; reject: (e: unknown) => void }
  | { task: false; resolve: (out: ArrayBuffer[]) => void; reject: (e: unknown) => void };

class Slot {
  /** The worker instantiated the module and answers. */
  ready = false;
  readonly started: Promise<void>;
  #onReady!: () => void;
  busy = false;
  held = 0;
  /** Wasm memory per format module, as last reported; `memory` is their sum. */
  wasm: WasmMemory = {};
  memory = 0;
  /** The formats whose compiled module this worker was sent. */
  readonly formats = new Set<Format>();
  readonly waits = new Map<number, Wait>();
  constructor(readonly port: WorkerPort) {
    this.started = new Promise((resolve) => (this.#onReady = resolve));
  }

  markReady(): void {
    this.ready = true;
    this.#onReady();
  }
}



interface Queued {
  job: Job;
  call: Call;
  /** Write into shared buffers (two phases) rather than send the batch back; default: the pool's mode. */
  shared?: boolean;
  /** Memory the batch is written into when it fits (`batches()` lending, see `LentMemory`). */
  lend?: SharedArrayBuffer;
  resolve: (d: Done) => void;
  reject: (e: unknown) => void;
}

class Call {
  readonly slots = new Set<Slot>();
  aborted?: unknown;
  constructor(readonly signal?: AbortSignal) {}
}

function rebuild(e: WireError): Error {
  if (e.decode) {
    const d = e.decode;
    // The worker's message, as it was worded there.
    return Object.assign(new DecodeError(d.format, d.offset, d.code as DecodeErrorCode, '', d.bytesNeeded), { message: d.message });
  }
  const x = new Error(e.message);
  x.name = e.name;
  return x;
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
  /** The worker script given (or Node's); undefined: the package's own browser worker. */
  readonly #url?: URL;
  /** The compiled module of each format jobs were queued for. */
  readonly #modules = new Map<Format, WasmModule>();
  readonly #recycle: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Queued[] = [];
  readonly #proxied = new Map<number, RangeReader>();
  /**
   * Lent memory no job or consumer uses, kept for the next lending calls (2 × size + 2 at
   * most): workers hold a SharedArrayBuffer they were sent until their own next GC (V8
   * counts no pressure for it), so fresh pieces for every call would pile up there.
   */
  readonly #lendable: SharedArrayBuffer[] = [];
  #next = 1;
  #closed = false;
  #recycled = 0;
  #jobs = 0;

  /** Use `createPool`. @internal */
  constructor(options: PoolOptions & { size: number; workerUrl?: URL }) {
    this.size = options.size;
    this.#url = options.workerUrl;
    this.#recycle = options.recycleBytes ?? 512 * 1024 * 1024;
    const canShare = typeof SharedArrayBuffer !== 'undefined' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
    this.sharedMemory = (options.sharedMemory ?? false) && canShare;
    this.sharesInput = canShare;
    this.minJobBytes = Math.max(0, options.minJobBytes ?? 1024 * 1024);
    for (let i = 0; i < this.size; i++) this.#slots.push(this.#start());
  }

  #start(): Slot {
    const slot = new Slot(platform.startWorker && this.#url ? platform.startWorker(this.#url) : browserWorker(this.#url));
    slot.port.onMessage((m) => this.#receive(slot, m as FromWorker));
    slot.port.onFailure((e) => this.#replace(slot, e));
    return slot;
  }

  #send(slot: Slot, m: ToWorker, transfer?: Transferable[]): void {
    slot.port.post(m, transfer);
    slot.port.keepAlive?.(slot.busy || slot.waits.size > 0);
  }

  /** Terminate a worker, fail what it was doing, and put a fresh one in its place. */
  #replace(slot: Slot, why: unknown): void {
    const i = this.#slots.indexOf(slot);
    if (i < 0) return;
    // A worker that fails before it is ready fails the pool's start, not a loop of restarts.
    if (!slot.ready && this.#startFailure) return this.#startFailure(why);
    // The slot leaves the pool and its jobs are taken before terminate(): Deno fires the
    // worker's 'exit' inside terminate(), and that failure must find nothing left to do
    // (else it rejects the jobs with the wrong error and starts a second replacement).
    const waits = [...slot.waits.values()];
    slot.waits.clear();
    if (this.#closed) this.#slots.splice(i, 1);
    else this.#slots[i] = this.#start();
    slot.port.terminate();
    for (const w of waits) w.reject(why);
    if (!this.#closed) this.#pump();
  }

  #receive(slot: Slot, m: FromWorker): void {
    if (m.type === 'read') return void this.#serveRead(slot, m);
    this.#memory(slot, m.memory);
    if (m.type === 'ready') {
      slot.markReady();
      return this.#pump();
    }
    const w = slot.waits.get(m.id);
    slot.waits.delete(m.id);
    if (w?.task) slot.busy = false;
    if (m.type === 'decoded') {
      if (!m.result.buffers) slot.held++;
      if (w?.task) w.resolve({ slot, id: m.id, result: m.result });
    } else if (m.type === 'written') {
      slot.held--;
      if (w && !w.task) w.resolve(m.out);
    } else {
      if (!w?.task) slot.held--;
      w?.reject(rebuild(m.error));
    }
    slot.port.keepAlive?.(slot.busy || slot.waits.size > 0);
    this.#pump();
  }

  async #serveRead(slot: Slot, m: Extract<FromWorker, { type: 'read' }>): Promise<void> {
    const reader = this.#proxied.get(m.file);
    try {
      if (!reader) throw new Error('arrowsmith: the file was closed');
      const b = await lendRange(reader, m.offset, m.length, undefined, (bytes) => bytes.slice());
      slot.port.post({ type: 'bytes', req: m.req, bytes: toWire(b) } satisfies ToWorker, [b.buffer]);
    } catch (e) {
      slot.port.post({ type: 'bytes', req: m.req, error: e instanceof Error ? e.message : String(e) } satisfies ToWorker);
    }
  }

  /** Start queued jobs on idle workers. */
  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.busy || !slot.ready) continue;
      const q = this.#queue.shift();
      if (!q) return;
      const id = this.#next++;
      this.#jobs++;
      slot.busy = true;
      q.call.slots.add(slot);
      slot.waits.set(id, { resolve: q.resolve, reject: q.reject, task: true });
      const format = q.job.kind;
      if (!slot.formats.has(format)) {
        // The compiled module of the job's format, once per worker (instantiated there).
        const m = this.#modules.get(format)!;
        slot.formats.add(format);
        this.#send(slot, { type: 'module', format, module: m.module, simd: m.simd });
      }
      this.#send(slot, { type: 'task', id, job: wireJob(q.job), shared: q.shared ?? this.sharedMemory, lend: q.lend }, transferOf(q.job));
    }
  }

  /** Phase 2: have a worker write a held batch into the shared buffers. */
  #write(slot: Slot, m: Extract<ToWorker, { type: 'write' }>): Promise<ArrayBuffer[]> {
    return new Promise((resolve, reject) => {
      slot.waits.set(m.id, { resolve, reject, task: false });
      this.#send(slot, m);
    });
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
    if (this.#closed) throw closedError('pool');
    const { signal } = options;
    signal?.throwIfAborted();
    await this.#need(jobs);
    const call = new Call(signal);
    const onAbort = () => this.#abort(call, signal!, true);
    signal?.addEventListener('abort', onAbort, { once: true });
    const decoded = jobs.map(
      (job) => new Promise<Done>((resolve, reject) => this.#queue.push({ job, call, resolve, reject })),
    );
    this.#pump();
    const settled = await Promise.allSettled(decoded);
    const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const dropAll = () => {
      for (const d of done) {
        if (d.result.buffers || !this.#slots.includes(d.slot)) continue;
        d.slot.held--;
        this.#send(d.slot, { type: 'drop', id: d.id });
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
      const outs = await Promise.all(done.map((d, t) => this.#write(d.slot, { type: 'write', id: d.id, ops: l.ops[t]! })));
      if (call.aborted !== undefined) throw call.aborted;
      outs.forEach((o, t) => placeOuts(l, t, o));
      return new Table([sharedBatch(l)]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#recycleLarge(call);
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
    if (this.#closed) throw closedError('pool');
    const { signal } = options;
    signal?.throwIfAborted();
    const source: AsyncIterator<Job> | Iterator<Job> = Symbol.asyncIterator in jobs ? jobs[Symbol.asyncIterator]() : jobs[Symbol.iterator]();
    const ahead = Math.max(1, options.ahead ?? 2 * this.size);
    const call = new Call(signal);
    const onAbort = () => this.#abort(call, signal!, false);
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
        await this.#need([next.value]);
        if (call.aborted !== undefined) throw call.aborted;
        const lend = lent?.take();
        const done = new Promise<{ result: Decoded; lend?: SharedArrayBuffer }>((resolve, reject) => this.#queue.push({ job: next.value, call, shared: false, lend, resolve, reject }));
        this.#pump();
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
      signal?.removeEventListener('abort', onAbort);
      // Stopped early or failed: what is still queued is not wanted; running jobs finish
      // and their batches (transferred, nothing held in a worker) are dropped; the jobs
      // not taken yet are never made.
      this.#dropQueued(call, new Error('arrowsmith: batches() was closed'));
      lent?.done();
      if (!ended) void taking.then(() => source.return?.()).catch(() => {});
      this.#recycleLarge(call);
    }
  }

  /** The compiled modules the jobs' formats need (loaded on this thread first, as the readers did). */
  async #need(jobs: Job[]): Promise<void> {
    for (const format of new Set(jobs.map((j) => j.kind))) if (!this.#modules.has(format)) this.#modules.set(format, await load(format));
  }

  #memory(slot: Slot, m: WasmMemory): void {
    slot.wasm = m;
    slot.memory = FORMATS.reduce((sum, f) => sum + (m[f] ?? 0), 0);
  }

  /** Reject and remove the call's jobs still in the queue. */
  #dropQueued(call: Call, why: unknown): void {
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      if (this.#queue[i]!.call === call) this.#queue.splice(i, 1)[0]!.reject(why);
    }
  }

  /**
   * Abort a call: its queued jobs are dropped and the workers busy with it replaced (with
   * `holding`, also those keeping decoded batches in shared-memory mode).
   */
  #abort(call: Call, signal: AbortSignal, holding: boolean): void {
    call.aborted = abortReason(signal);
    this.#dropQueued(call, call.aborted);
    for (const slot of call.slots) if (slot.busy || (holding && slot.held > 0)) this.#replace(slot, call.aborted);
  }

  /** Resolves when every worker is ready; rejects (and closes the pool) when one is not in time. */
  async started(timeoutMs = 30_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`arrowsmith: pool workers did not start within ${timeoutMs / 1000} s; is ${this.#url ?? 'the bundled worker'} the arrowsmith pool worker script (arrowsmith/pool-worker.js)?`)),
        timeoutMs,
      );
    });
    const failed = new Promise<never>((_, reject) => (this.#startFailure = reject));
    try {
      await Promise.race([Promise.all(this.#slots.map((s) => s.started)), late, failed]);
    } catch (e) {
      this.close();
      throw e;
    } finally {
      clearTimeout(timer);
      this.#startFailure = undefined;
    }
  }

  #startFailure?: (e: unknown) => void;

  /** Give wasm memory back: replace idle workers that grew past the limit. */
  #recycleLarge(call: Call): void {
    for (const slot of call.slots) {
      if (!slot.busy && slot.held === 0 && slot.waits.size === 0 && slot.memory > this.#recycle) {
        this.#recycled++;
        this.#replace(slot, undefined);
      }
    }
  }

  /**
   * Workers, their wasm memory as last reported (in all, and per format module), jobs
   * queued, workers running a job now, workers recycled and jobs taken so far.
   */
  stats(): { workers: number; wasmBytes: number[]; wasm: WasmMemory[]; queued: number; running: number; recycled: number; jobs: number } {
    return {
      workers: this.#slots.length,
      wasmBytes: this.#slots.map((s) => s.memory),
      wasm: this.#slots.map((s) => ({ ...s.wasm })),
      queued: this.#queue.length,
      running: this.#slots.filter((s) => s.busy).length,
      recycled: this.#recycled,
      jobs: this.#jobs,
    };
  }

  /**
   * How many parallel jobs a read of `bytes` of input should become: `most` when it holds
   * at least two jobs' worth ({@link minJobBytes} each), else 1 (the caller reads on one
   * thread). All or nothing: fewer pieces than the caller's balanced `most` leave a worker idle.
   * @internal
   */
  pieces(bytes: number, most: number): number {
    if (this.#closed) throw closedError('pool');
    return bytes >= 2 * this.minJobBytes ? most : 1;
  }

  /**
   * How workers reach a file: shared memory for in-memory bytes (copied once unless they
   * already live in a SharedArrayBuffer), the Blob, URL or file path itself, else via this
   * thread (custom readers, FileHandles).
   * @internal
   */
  fileRef(reader: Source, format: string): FileRef {
    if (this.#closed) throw closedError('pool');
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
    this.#proxied.set(id, reader);
    return { id, kind: 'proxy', size: reader.size };
  }

  /** The file is closed: workers drop their readers of it. @internal */
  forget(ref: FileRef): void {
    this.#proxied.delete(ref.id);
    if (this.#closed) return;
    for (const slot of this.#slots) this.#send(slot, { type: 'forget', file: ref.id });
  }

  /** Terminate every worker; pending calls reject. */
  close(): void {
    this.#closed = true;
    for (const q of this.#queue.splice(0)) q.reject(new Error('arrowsmith: the pool was closed'));
    for (const slot of [...this.#slots]) this.#replace(slot, new Error('arrowsmith: the pool was closed'));
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

/**
 * The shared memory a `batches()` call lends its batches in: pieces as large as the largest
 * batch so far needs (its buffers and their alignment, a sixteenth more), at most `most` of
 * them, each given to one job at a time and taken back once the consumer moved past its
 * batch; none before a first batch came back (the worker then sends its buffers, as it does
 * when a batch outgrows its piece). Pieces come from the pool's `spare` ones when large
 * enough, and those no job or consumer may still touch go back there when the call ends
 * (one a job was writing when the consumer stopped, or the consumer's last batch, is dropped).
 */
class LentMemory {
  #size = 0;
  #made = 0;
  readonly #free: SharedArrayBuffer[] = [];
  constructor(
    readonly most: number,
    readonly spare: SharedArrayBuffer[],
  ) {}

  /** A piece for the next job, or undefined (no size yet, or all pieces in use). */
  take(): SharedArrayBuffer | undefined {
    if (this.#size === 0) return undefined;
    while (this.#free.length) {
      const m = this.#free.pop()!;
      if (m.byteLength >= this.#size) return m;
      this.#made--; // too small since: dropped
    }
    if (this.#made >= this.most) return undefined;
    this.#made++;
    const i = this.spare.findIndex((m) => m.byteLength >= this.#size);
    return i >= 0 ? this.spare.splice(i, 1)[0]! : new SharedArrayBuffer(this.#size);
  }

  /** The call ended: its free pieces go back to the pool (the largest kept, up to `most`). */
  done(): void {
    this.spare.push(...this.#free.splice(0));
    this.spare.sort((a, b) => b.byteLength - a.byteLength).splice(this.most);
  }

  /** A batch came back: the size pieces need from now on. */
  saw(r: Decoded): void {
    const need = r.lens.reduce((n, len) => n + len + 7, 0);
    if (need > this.#size) this.#size = Math.ceil((need + need / 16) / 65536) * 65536;
  }

  give(m: SharedArrayBuffer): void {
    this.#free.push(m);
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

/** A job's bytes (MessagePack pieces, TsFile ranges given) travel by transfer when they own their buffer. */
function transferOf(job: Job): Transferable[] | undefined {
  const bytes = job.kind === 'msgpack' ? job.bytes : job.kind === 'tsfile' ? job.given?.bytes : undefined;
  const b = bytes?.buffer;
  return b instanceof ArrayBuffer && bytes!.byteLength === b.byteLength ? [b] : undefined;
}

/** What a worker script that failed to start answers when asked (status, type, first bytes). */
async function whyNot(url: URL): Promise<string> {
  try {
    const r = await fetch(url);
    const type = r.headers.get('content-type') ?? 'no content type';
    const head = (await r.text()).slice(0, 60).replace(/\s+/g, ' ');
    return `HTTP ${r.status}, ${type}, starting ${JSON.stringify(head)}`;
  } catch (e) {
    return `fetching it fails too: ${(e as Error)?.message ?? e}`;
  }
}

/**
 * A module Web Worker running the pool's worker script. The default is written as one
 * literal `new Worker(new URL(...), { type: 'module' })` so that bundlers (Vite, webpack)
 * bundle and emit the worker themselves.
 */
function browserWorker(url: URL | undefined): WorkerPort {
  const w = url ? new Worker(url, { type: 'module' }) : new Worker(new URL('../worker/browser.js', import.meta.url), { type: 'module' });
  const name = url ? url.href : "arrowsmith's pool worker (dist/worker/browser.js, as your bundler emitted it)";
  return {
    post: (m, transfer) => w.postMessage(m, (transfer ?? []) as Transferable[]),
    onMessage: (f) => void w.addEventListener('message', (e) => f(e.data)),
    onFailure: (f) =>
      void w.addEventListener('error', (e) => {
        // A script that threw says where; one that never loaded is a bare Event.
        const ev = e as ErrorEvent;
        if (ev.message) return f(new Error(`arrowsmith: pool worker ${name} failed: ${ev.message}${ev.filename ? ` (${ev.filename}:${ev.lineno})` : ''}`, { cause: ev.error }));
        const plain = `arrowsmith: pool worker ${name} failed to load (a 404, a wrong MIME type, a bundler that did not emit it, or a Content-Security-Policy)`;
        if (!url) return f(new Error(plain));
        void whyNot(url).then((why) => f(new Error(`${plain}: ${why}`)));
      }),
    terminate: () => w.terminate(),
  };
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
