/**
 * The pool's workers: started, sent their format's compiled module once, given queued jobs
 * as they fall idle, answered when they ask this thread for bytes, replaced when they fail,
 * are aborted or grew large. `Pool` (pool.ts) runs calls over them.
 */
import { abortReason } from '../io/abort.js';
import { lendRange, type RangeReader } from '../io/source.js';
import { FORMATS, load, platform, type Format, type WasmModule, type WorkerPort } from '../wasm/instance.js';
import { toWire, wireJob, type FromWorker, type Job, type PoolStats, type ToWorker, type WasmMemory } from './protocol.js';
import { rebuild, rejectWait, Slot, type Call, type Queued } from './slot.js';

/** Jobs a worker is given at once: the one it runs and the next (it runs them in turn). */
const DEPTH = 2;

export class Workers {
  readonly slots: Slot[] = [];
  readonly queue: Queued[] = [];
  /** Readers of files workers reach through this thread, by file id. */
  readonly proxied = new Map<number, RangeReader>();
  closed = false;
  recycled = 0;
  jobs = 0;
  /** The compiled module of each format jobs were queued for. */
  readonly #modules = new Map<Format, WasmModule>();
  #next = 1;

  constructor(
    size: number,
    /** The worker script given (or Node's); undefined: the package's own browser worker. */
    readonly url: URL | undefined,
    readonly recycleBytes: number,
    /** Outputs are written into shared buffers (two phases) unless a job says otherwise. */
    readonly sharedMemory: boolean,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.#start());
  }

  #start(): Slot {
    const slot = new Slot(platform.startWorker && this.url ? platform.startWorker(this.url) : browserWorker(this.url));
    slot.port.onMessage((m) => this.#receive(slot, m as FromWorker));
    slot.port.onFailure((e) => this.#replace(slot, e));
    return slot;
  }

  send(slot: Slot, m: ToWorker, transfer?: Transferable[]): void {
    slot.port.post(m, transfer);
    slot.port.keepAlive?.(slot.busy || slot.waits.size > 0);
  }

  /**
   * Terminate a worker, fail what it was doing, and put a fresh one in its place. When an
   * abort of `call` is why, the tasks of other calls it had not answered go back to the
   * front of the queue (a worker may have been given another call's next job).
   */
  #replace(slot: Slot, why: unknown, call?: Call): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    // A worker that fails before it is ready fails the pool's start, not a loop of restarts.
    if (!slot.ready && this.#startFailure) return this.#startFailure(why);
    // The slot leaves the pool and its jobs are taken before terminate(): Deno fires the
    // worker's 'exit' inside terminate(), and that failure must find nothing left to do
    // (else it rejects the jobs with the wrong error and starts a second replacement).
    const waits = [...slot.waits.values()];
    slot.waits.clear();
    if (this.closed) this.slots.splice(i, 1);
    else this.slots[i] = this.#start();
    slot.port.terminate();
    const again: Queued[] = [];
    for (const w of waits) {
      // (A job whose bytes went by transfer cannot be sent again: it fails as before.)
      if (call && !this.closed && w.task && w.queued.call !== call && !w.queued.call.finished && !transferOf(w.queued.job)) again.push(w.queued);
      else rejectWait(w, why);
    }
    this.queue.unshift(...again);
    if (!this.closed) this.pump();
  }

  #receive(slot: Slot, m: FromWorker): void {
    if (m.type === 'read') return void this.#serveRead(slot, m);
    this.#memory(slot, m.memory);
    if (m.type === 'ready') {
      slot.markReady();
      return this.pump();
    }
    const w = slot.waits.get(m.id);
    slot.waits.delete(m.id);
    if (w?.task) slot.running--;
    if (m.type === 'decoded') {
      if (!m.result.buffers) slot.held++;
      if (w?.task) w.queued.resolve({ slot, id: m.id, result: m.result });
    } else if (m.type === 'written') {
      slot.held--;
      if (w && !w.task) w.resolve(m.out);
    } else {
      if (!w?.task) slot.held--;
      if (w) rejectWait(w, rebuild(m.error));
    }
    slot.port.keepAlive?.(slot.busy || slot.waits.size > 0);
    this.pump();
  }

  async #serveRead(slot: Slot, m: Extract<FromWorker, { type: 'read' }>): Promise<void> {
    const reader = this.proxied.get(m.file);
    try {
      if (!reader) throw new Error('arrowsmith: the file was closed');
      const b = await lendRange(reader, m.offset, m.length, undefined, (bytes) => bytes.slice());
      slot.port.post({ type: 'bytes', req: m.req, bytes: toWire(b) } satisfies ToWorker, [b.buffer]);
    } catch (e) {
      slot.port.post({ type: 'bytes', req: m.req, error: e instanceof Error ? e.message : String(e) } satisfies ToWorker);
    }
  }

  /**
   * Start queued jobs on workers: first one on each idle worker, then, while jobs remain,
   * a second on each worker running one, so that it starts that job the moment it posts
   * the first one's batch instead of idling for the round trip to this thread (measured on
   * the seed's 10 device jobs on a pool of 1: ~0.5 ms a job). No worker gets a second job
   * while another has none, nor while the queue holds no more jobs than there are workers.
   */
  pump(): void {
    for (let depth = 1; depth <= DEPTH; depth++) {
      for (const slot of this.slots) {
        if (slot.running >= depth || !slot.ready) continue;
        // The last jobs go only to idle workers: one queued behind a worker that a busy
        // core slows would wait while another worker idles.
        if (depth > 1 && this.queue.length <= this.slots.length) return;
        const q = this.queue.shift();
        if (!q) return;
        this.#run(slot, q);
      }
    }
  }

  #run(slot: Slot, q: Queued): void {
    const id = this.#next++;
    this.jobs++;
    slot.running++;
    q.call.slots.add(slot);
    slot.waits.set(id, { task: true, queued: q });
    const format = q.job.kind;
    if (!slot.formats.has(format)) {
      // The compiled module of the job's format, once per worker (instantiated there).
      const m = this.#modules.get(format)!;
      slot.formats.add(format);
      this.send(slot, { type: 'module', format, module: m.module, simd: m.simd });
    }
    this.send(slot, { type: 'task', id, job: wireJob(q.job), shared: q.shared ?? this.sharedMemory, lend: q.lend }, transferOf(q.job));
  }

  /** Phase 2: have a worker write a held batch into the shared buffers. */
  write(slot: Slot, m: Extract<ToWorker, { type: 'write' }>): Promise<ArrayBuffer[]> {
    return new Promise((resolve, reject) => {
      slot.waits.set(m.id, { resolve, reject, task: false });
      this.send(slot, m);
    });
  }

  /** The compiled modules the jobs' formats need (loaded on this thread first, as the readers did). */
  async need(jobs: Job[]): Promise<void> {
    for (const format of new Set(jobs.map((j) => j.kind))) if (!this.#modules.has(format)) this.#modules.set(format, await load(format));
  }

  #memory(slot: Slot, m: WasmMemory): void {
    slot.wasm = m;
    slot.memory = FORMATS.reduce((sum, f) => sum + (m[f] ?? 0), 0);
  }

  /** Reject and remove the call's jobs still in the queue. */
  dropQueued(call: Call, why: unknown): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i]!.call === call) this.queue.splice(i, 1)[0]!.reject(why);
    }
  }

  /**
   * Abort a call: its queued jobs are dropped and the workers busy with it replaced (with
   * `holding`, also those keeping decoded batches in shared-memory mode).
   */
  abort(call: Call, signal: AbortSignal, holding: boolean): void {
    call.aborted = abortReason(signal);
    this.dropQueued(call, call.aborted);
    for (const slot of call.slots) {
      const runs = [...slot.waits.values()].some((w) => w.task && w.queued.call === call);
      if (runs || (holding && slot.held > 0)) this.#replace(slot, call.aborted, call);
    }
  }

  /** Resolves when every worker is ready; rejects (and closes the pool) when one is not in time. */
  async started(timeoutMs = 30_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`arrowsmith: pool workers did not start within ${timeoutMs / 1000} s; is ${this.url ?? 'the bundled worker'} the arrowsmith pool worker script (arrowsmith/pool-worker.js)?`)),
        timeoutMs,
      );
    });
    const failed = new Promise<never>((_, reject) => (this.#startFailure = reject));
    try {
      await Promise.race([Promise.all(this.slots.map((s) => s.started)), late, failed]);
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
  recycleLarge(call: Call): void {
    for (const slot of call.slots) {
      if (!slot.busy && slot.held === 0 && slot.waits.size === 0 && slot.memory > this.recycleBytes) {
        this.recycled++;
        this.#replace(slot, undefined);
      }
    }
  }

  /** Workers, their wasm memory as last reported, jobs queued and running, recycled, taken. */
  stats(): PoolStats {
    return {
      workers: this.slots.length,
      wasmBytes: this.slots.map((s) => s.memory),
      wasm: this.slots.map((s) => ({ ...s.wasm })),
      queued: this.queue.length,
      running: this.slots.filter((s) => s.busy).length,
      recycled: this.recycled,
      jobs: this.jobs,
    };
  }

  /** Terminate every worker; queued jobs reject. */
  close(): void {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(new Error('arrowsmith: the pool was closed'));
    for (const slot of [...this.slots]) this.#replace(slot, new Error('arrowsmith: the pool was closed'));
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
