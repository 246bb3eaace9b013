/** A worker of the pool as the main thread tracks it, and the calls and jobs it runs. */
import { DecodeError, type DecodeErrorCode } from '../errors.js';
import type { Format, WorkerPort } from '../wasm/instance.js';
import type { Decoded, Job, WasmMemory, WireError } from './protocol.js';

/** A job decoded by a worker (in shared-memory mode its batch is still held there). */
export interface Done {
  slot: Slot;
  id: number;
  result: Decoded;
}

/** What waits for a worker's answer: a phase-1 task (the worker is busy until it answers) or a phase-2 write. */
type Wait =
  | { task: true; queued: Queued }
  | { task: false; resolve: (out: ArrayBuffer[]) => void; reject: (e: unknown) => void };

/** Fail what waits: a task's queued job, or a write. */
export function rejectWait(w: Wait, e: unknown): void {
  (w.task ? w.queued.reject : w.reject)(e);
}

export class Slot {
  /** The worker instantiated the module and answers. */
  ready = false;
  readonly started: Promise<void>;
  #onReady!: () => void;
  /** Tasks sent and not yet answered (at most `DEPTH`, workers.ts). */
  running = 0;
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

  get busy(): boolean {
    return this.running > 0;
  }

  markReady(): void {
    this.ready = true;
    this.#onReady();
  }
}

export interface Queued {
  job: Job;
  call: Call;
  /** Write into shared buffers (two phases) rather than send the batch back; default: the pool's mode. */
  shared?: boolean;
  /** Memory the batch is written into when it fits (`batches()` lending, see `LentMemory`). */
  lend?: SharedArrayBuffer;
  resolve: (d: Done) => void;
  reject: (e: unknown) => void;
}

export class Call {
  readonly slots = new Set<Slot>();
  aborted?: unknown;
  /** The caller wants no more of its results (the table is made, or `batches()` closed). */
  finished = false;
  constructor(readonly signal?: AbortSignal) {}
}

/** A worker's error as this thread raises it (a DecodeError keeps the worker's wording). */
export function rebuild(e: WireError): Error {
  if (e.decode) {
    const d = e.decode;
    // The worker's message, as it was worded there.
    return Object.assign(new DecodeError(d.format, d.offset, d.code as DecodeErrorCode, '', d.bytesNeeded), { message: d.message });
  }
  const x = new Error(e.message);
  x.name = e.name;
  return x;
}
