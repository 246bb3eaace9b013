/**
 * The messages between a pool and its workers. A task runs in two phases when outputs
 * go to shared memory: the worker decodes and reports sizes (phase 1, the batch stays in
 * its wasm memory), then writes into the shared buffers at offsets only known once every
 * task has reported (phase 2). Without SharedArrayBuffer the worker sends the batch's
 * buffers back in phase 1 (transferred, not copied).
 */
import type { FileIdentity, HttpPolicy } from '../io/http.js';
import type { MsgpackDecodeOptions } from '../wasm/msgpack-options.js';
import type { BatchDesc, TsFileQuery } from '../types.js';
import type { CompiledWasm, Format } from '../wasm/instance.js';

/** How a worker reaches a file's bytes without the main thread copying them per read. */
export type FileRef =
  | { id: number; kind: 'shared'; buffer: SharedArrayBuffer; offset: number; length: number }
  | { id: number; kind: 'blob'; blob: Blob }
  /** The file as the main thread opened it: workers check every range against its identity. */
  | { id: number; kind: 'url'; url: string; format: string; identity: FileIdentity; policy: HttpPolicy }
  /** A file the worker opens itself (Node: a path or `file:` URL). */
  | { id: number; kind: 'path'; path: string }
  /** Bytes asked of the main thread (custom `{ size, read }` sources, or no shared memory). */
  | { id: number; kind: 'proxy'; size: number };

export type Job =
  | { kind: 'msgpack'; bytes: Uint8Array; base: number; inArray: boolean; options: MsgpackDecodeOptions }
  | {
      kind: 'tsfile';
      file: FileRef;
      query: Omit<TsFileQuery, 'signal'> & { mods?: Uint8Array };
      /**
       * The bytes the read plans to touch, fetched by the main thread (`ranges`: flat
       * [start, end, ...] of the file; `bytes`: theirs, one after another), so that the
       * windows of one chunk do not each fetch it again from a Blob or URL.
       */
      given?: Given<Uint8Array>;
    }
  /** `select`: a hyperslab as the wasm reader takes it (see `selectSpec` in formats/hdf5/select.ts); then `start`/`count` are unused. */
  | { kind: 'hdf5'; file: FileRef; path: string; start: number; count: number; maxReadBytes?: number; select?: number[] };

/**
 * Bytes as they cross to a worker: the buffer and a range, never a typed array. Deno's
 * worker_threads clone a posted Uint8Array element by element (measured: ~0.5 s per MiB,
 * transferred or not), while an ArrayBuffer or SharedArrayBuffer crosses at once.
 */
export interface WireBytes {
  buffer: ArrayBufferLike;
  offset: number;
  length: number;
}
export const toWire = (b: Uint8Array): WireBytes => ({ buffer: b.buffer, offset: b.byteOffset, length: b.byteLength });
export const fromWire = (w: WireBytes): Uint8Array => new Uint8Array(w.buffer, w.offset, w.length);

/** Byte ranges of a file handed to a job with their bytes (see the TsFile job). */
export interface Given<B> {
  ranges: number[];
  bytes: B;
}

/** A job as posted: bytes travel as {@link WireBytes}. */
export type WireJob =
  | Extract<Job, { kind: 'hdf5' }>
  | (Omit<Extract<Job, { kind: 'tsfile' }>, 'given'> & { given?: Given<WireBytes> })
  | (Omit<Extract<Job, { kind: 'msgpack' }>, 'bytes'> & { bytes: WireBytes });
export function wireJob(job: Job): WireJob {
  if (job.kind === 'msgpack') return { ...job, bytes: toWire(job.bytes) };
  if (job.kind === 'tsfile' && job.given) return { ...job, given: { ranges: job.given.ranges, bytes: toWire(job.given.bytes) } };
  return job as WireJob;
}

/** Phase-2 writes, in the worker's terms (buffer indices of its batch). */
export type WriteOp =
  /** Fixed-width values: bytes at a byte offset. */
  | { op: 'bytes'; src: number; dst: SharedArrayBuffer; at: number }
  /** Bit-packed validity or booleans at a bit offset; src -1 = all set. */
  | { op: 'bits'; src: number; n: number; dst: SharedArrayBuffer; bit: number }
  /** Int32 offsets (n of them) at an index, each plus `add`. */
  | { op: 'offsets'; src: number; n: number; dst: SharedArrayBuffer; at: number; add: number }
  /** Int32 dictionary indices at an index, through a task-to-global map. */
  | { op: 'remap'; src: number; n: number; dst: SharedArrayBuffer; at: number; map: Int32Array }
  /** Variable-size bytes (Utf8/Binary values): sent back in an ordinary ArrayBuffer. */
  | { op: 'out'; src: number };

export type ToWorker =
  /** The compiled module of a format, sent before the worker's first job of that format. */
  | { type: 'module'; format: Format; module: CompiledWasm; simd: boolean }
  /**
   * `lend`: shared memory to write the batch's buffers into (each at its source pointer's
   * alignment mod 8, one after another) when they fit, instead of sending buffers back.
   */
  | { type: 'task'; id: number; job: WireJob; shared: boolean; lend?: SharedArrayBuffer }
  | { type: 'write'; id: number; ops: WriteOp[] }
  | { type: 'drop'; id: number }
  | { type: 'forget'; file: number }
  | { type: 'bytes'; req: number; bytes?: WireBytes; error?: string };

/** What a worker tells about the batch it decoded. */
export interface Decoded {
  desc: BatchDesc;
  /** Byte length of each buffer. */
  lens: number[];
  /** Dictionary values of each dictionary column, in pre-order. */
  dicts: string[][];
  /** Transfer mode: the buffers themselves. */
  buffers?: ArrayBuffer[];
  /** Lent mode: where each buffer was written in the task's `lend` memory (byte offsets; -1: in `buffers`). */
  lent?: number[];
}

export interface WireError {
  name: string;
  message: string;
  /** A DecodeError's fields, to rebuild it on the main thread. */
  decode?: { format: string; offset?: number; code: string; message: string; bytesNeeded?: number };
}

/** Bytes of wasm memory of each format module a worker instantiated. */
export type WasmMemory = Partial<Record<Format, number>>;

/**
 * Workers, their wasm memory as last reported (in all, and per format module), jobs queued,
 * workers running a job now, workers recycled and jobs taken so far.
 */
export interface PoolStats {
  workers: number;
  wasmBytes: number[];
  wasm: WasmMemory[];
  queued: number;
  running: number;
  recycled: number;
  jobs: number;
}

export type FromWorker =
  | { type: 'ready'; memory: WasmMemory }
  | { type: 'decoded'; id: number; result: Decoded; memory: WasmMemory }
  | { type: 'written'; id: number; out: ArrayBuffer[]; memory: WasmMemory }
  | { type: 'failed'; id: number; error: WireError; memory: WasmMemory }
  | { type: 'read'; file: number; req: number; offset: number; length: number };

/** True for a SharedArrayBuffer (browsers without cross-origin isolation have no such global). */
export function isShared(b: ArrayBufferLike): b is SharedArrayBuffer {
  return typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer;
}
