/// <reference lib="webworker" />
// Decoding runs here so the page never freezes; tables go back as Arrow IPC bytes
// (transferred, not copied). `?simd=1` / `?simd=0` pin the wasm build (one per realm), so
// the benchmark runs SIMD and scalar side by side in two workers.
import { Table, tableToIPC } from 'apache-arrow';
import { DecodeError, init, memory, simdActive } from 'arrowsmith';
import { MinMax } from './minmax.js';
import { runBench, type BenchResult, type DecoderId } from './bench.js';
import { adapters } from './formats/index.js';
import type { Opened, Selection, TreeNode } from './formats/types.js';
import { sniff, type FormatName } from './sniff.js';

export type WorkerRequest =
  | { type: 'open'; id: number; file: Blob; name: string }
  | { type: 'read'; id: number; sel: Selection }
  /** Stream one series of the selection into a per-pixel min/max downsample `width` pixels wide. */
  | { type: 'stream'; id: number; sel: Selection; width: number }
  /** Stop the running stream (its request answers with an AbortError). */
  | { type: 'cancel'; id: number }
  /**
   * The whole selection as Arrow IPC, one 'batch' reply per batch (the SQL panel's table), at
   * most FEED_AHEAD ahead of the batches the page has taken ('pull', naming the feed's id).
   */
  | { type: 'feed'; id: number; sel: Selection; rows?: number }
  | { type: 'pull'; id: number; of: number }
  /** Stop the running feed (its request answers with an AbortError). */
  | { type: 'stop-feed'; id: number }
  | { type: 'bench'; id: number; file: Blob; format: FormatName; decoder: DecoderId; label: string; runs: number };

export interface WireError {
  message: string;
  name?: string;
  format?: string;
  offset?: number;
  code?: string;
}

export type WorkerReply =
  | { type: 'progress'; id: number; done: number; total: number; phase: string }
  | {
      type: 'opened';
      id: number;
      format: FormatName;
      size: number;
      tree: TreeNode[];
      initial: Selection;
      timeColumn?: string;
      seriesColumns?: string[];
      timeFilterPushed?: boolean;
      simd: boolean;
      /** Opening: for MessagePack the whole decode (its first read), else the file's metadata. */
      ms: number;
      /** Compile and instantiate of the format's module, when this open loaded it. */
      initMs?: number;
      /** The first decode of this format in this worker (the module's code compiles on first use). */
      firstOfFormat: boolean;
    }
  | { type: 'table'; id: number; ipc: Uint8Array; ms: number; numRows: number; about?: string }
  /** One batch of a feed (one IPC stream each), `total` rows expected where known. */
  | { type: 'batch'; id: number; ipc: Uint8Array; rows: number; total?: number; wasmBytes: number }
  /** A feed's end: every batch was sent. */
  | { type: 'fed'; id: number; rows: number; batches: number }
  | { type: 'bench'; id: number; result: BenchResult }
  /** A stream's state: its downsample so far (partial) or in full (done). */
  | { type: 'series'; id: number; done: boolean; plot: SeriesPlot }
  | { type: 'error'; id: number; error: WireError };

export interface SeriesPlot {
  label: string;
  xKind: 'row' | 'time';
  x0: number;
  x1: number;
  width: number;
  min: Float64Array;
  max: Float64Array;
  count: Float64Array;
  rows: number;
  total: number;
  batches: number;
  /** The most rows one batch held. */
  maxBatchRows: number;
  /** Wasm memory of the formats' modules (bytes), the largest seen while streaming. */
  peakWasmBytes: number;
  /** This worker's JS heap in use (bytes), the largest sampled, where the engine tells it. */
  peakHeapBytes?: number;
  ms: number;
}

const param = new URL(self.location.href).searchParams.get('simd');
// Settings only: each format's module is loaded (and timed) when a file of it is first opened.
const ready = init({ simd: param === null ? undefined : param === '1', baseUrl: new URL('./wasm/', self.location.href), formats: [] });
const loadedFormats = new Set<FormatName>();

/** Loads the format's module unless it is loaded; returns the milliseconds it took, if it loaded it. */
async function loadFormat(format: FormatName): Promise<number | undefined> {
  if (loadedFormats.has(format)) return undefined;
  const t0 = performance.now();
  await init({ formats: [format] });
  loadedFormats.add(format);
  return performance.now() - t0;
}
const post = (m: WorkerReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(m, transfer);

let opened: Opened | undefined;
/** The running stream: a new file, a new stream or a cancel request aborts it. */
let streaming: AbortController | undefined;

const wasmBytes = () => Object.values(memory()).reduce((a, b) => a + b, 0);
const heapBytes = () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize;

/** Streams one series batch by batch, folding each into the per-pixel downsample and dropping it. */
async function stream(id: number, sel: Selection, width: number) {
  if (!opened?.series) throw new Error('this file has no series to stream');
  streaming?.abort(new DOMException('a new stream started', 'AbortError'));
  const ac = (streaming = new AbortController());
  const t0 = performance.now();
  const s = await opened.series(sel);
  const mm = new MinMax(Math.max(1, Math.floor(width)), s.x0, Math.max(s.x0, s.x1));
  const plot: SeriesPlot = { label: s.label, xKind: s.xKind, x0: s.x0, x1: s.x1, width: mm.width, min: mm.min, max: mm.max, count: mm.count, rows: 0, total: s.total, batches: 0, maxBatchRows: 0, peakWasmBytes: wasmBytes(), peakHeapBytes: heapBytes(), ms: 0 };
  const send = (done: boolean) => {
    plot.ms = performance.now() - t0;
    // Copies: the worker keeps folding into its arrays.
    post({ type: 'series', id, done, plot: { ...plot, min: mm.min.slice(), max: mm.max.slice(), count: mm.count.slice() } });
  };
  let last = 0;
  try {
    for await (const b of s.batches(ac.signal)) {
      if (b.xs) mm.addPoints(b.xs, b.ys, b.valid);
      else mm.addRows(plot.rows, b.ys, b.valid);
      plot.rows += b.rows;
      plot.batches++;
      plot.maxBatchRows = Math.max(plot.maxBatchRows, b.rows);
      plot.peakWasmBytes = Math.max(plot.peakWasmBytes, wasmBytes());
      const heap = heapBytes();
      if (heap !== undefined) plot.peakHeapBytes = Math.max(plot.peakHeapBytes ?? 0, heap);
      const now = performance.now();
      if (now - last > 150) {
        last = now;
        post({ type: 'progress', id, done: Math.min(plot.rows, plot.total), total: plot.total, phase: 'streaming' });
        send(false);
      }
    }
  } finally {
    if (streaming === ac) streaming = undefined;
  }
  ac.signal.throwIfAborted();
  send(true);
}

/** The running feed: its controller, and the batches the page may still take before it pulls. */
let feeding: { id: number; ac: AbortController; credit: number; wake?: () => void } | undefined;
/** Batches a feed sends before the page has taken any: decoding overlaps DuckDB's inserts. */
const FEED_AHEAD = 2;

/** Sends the selection batch by batch; waits whenever FEED_AHEAD batches are not yet taken. */
async function feed(id: number, sel: Selection, rows?: number) {
  if (!opened?.batches) throw new Error('this file cannot be streamed into SQL');
  feeding?.ac.abort(new DOMException('a new feed started', 'AbortError'));
  const f = (feeding = { id, ac: new AbortController(), credit: FEED_AHEAD } as NonNullable<typeof feeding>);
  const stopped = new Promise<never>((_, reject) => f.ac.signal.addEventListener('abort', () => reject(f.ac.signal.reason), { once: true }));
  stopped.catch(() => {});
  try {
    const { total, batches } = await opened.batches(sel, { signal: f.ac.signal, rows });
    let sent = 0;
    let n = 0;
    for await (const b of batches) {
      while (f.credit === 0) await Promise.race([new Promise<void>((r) => (f.wake = r)), stopped]);
      f.credit--;
      const ipc = tableToIPC(new Table([b]), 'stream');
      sent += b.numRows;
      n++;
      post({ type: 'batch', id, ipc, rows: b.numRows, total, wasmBytes: wasmBytes() }, [ipc.buffer]);
    }
    f.ac.signal.throwIfAborted();
    post({ type: 'fed', id, rows: sent, batches: n });
  } finally {
    if (feeding === f) feeding = undefined;
  }
}

/** Read a Blob reporting bytes as they arrive (a big file shows progress while loading). */
async function readBlob(file: Blob, id: number): Promise<Uint8Array> {
  if (file.size < 8 << 20) return new Uint8Array(await file.arrayBuffer());
  const out = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.set(value, at);
    at += value.length;
    post({ type: 'progress', id, done: at, total: file.size, phase: 'reading' });
  }
  return out;
}

function wireError(e: unknown): WireError {
  if (e instanceof DecodeError) return { name: 'DecodeError', message: e.message, format: e.format, offset: e.offset, code: e.code };
  const err = e as Error;
  return { name: err?.name, message: String(err?.message ?? e) };
}

self.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  try {
    await ready;
    if (req.type === 'cancel') {
      streaming?.abort(new DOMException('stopped', 'AbortError'));
      streaming = undefined;
      return;
    }
    if (req.type === 'stream') return await stream(req.id, req.sel, req.width);
    if (req.type === 'feed') return await feed(req.id, req.sel, req.rows);
    if (req.type === 'pull') {
      if (feeding?.id === req.of) {
        feeding.credit++;
        feeding.wake?.();
      }
      return;
    }
    if (req.type === 'stop-feed') {
      feeding?.ac.abort(new DOMException('stopped', 'AbortError'));
      return;
    }
    if (req.type === 'open') {
      streaming?.abort(new DOMException('another file was opened', 'AbortError'));
      streaming = undefined;
      feeding?.ac.abort(new DOMException('another file was opened', 'AbortError'));
      opened?.close?.();
      opened = undefined;
      const file = req.file;
      // HDF5 puts its signature at 0, 512, 1024, ... (after a user block): 1 MiB is plenty.
      const format = sniff(new Uint8Array(await file.slice(0, 1 << 20).arrayBuffer()));
      const firstOfFormat = !loadedFormats.has(format);
      const initMs = await loadFormat(format);
      const t0 = performance.now();
      opened = await adapters[format].open({ blob: file, bytes: () => readBlob(file, req.id) }, (done, total) => post({ type: 'progress', id: req.id, done, total, phase: 'decoding' }));
      const ms = performance.now() - t0;
      const o = opened;
      post({ type: 'opened', id: req.id, format, size: file.size, tree: o.tree, initial: o.initial, timeColumn: o.timeColumn, seriesColumns: o.seriesColumns, timeFilterPushed: o.timeFilterPushed, simd: simdActive(), ms, initMs, firstOfFormat });
    } else if (req.type === 'read') {
      if (!opened) throw new Error('no file is open');
      const t0 = performance.now();
      const table = await opened.read(req.sel);
      const ms = performance.now() - t0;
      const ipc = tableToIPC(table, 'stream');
      const about = await opened.describe?.(req.sel).catch(() => undefined);
      post({ type: 'table', id: req.id, ipc, ms, numRows: table.numRows, about }, [ipc.buffer]);
    } else if (req.type === 'bench') {
      const bytes = new Uint8Array(await req.file.arrayBuffer());
      post({ type: 'bench', id: req.id, result: await runBench(req.decoder, req.label, req.format, bytes, req.runs, () => loadFormat(req.format)) });
    }
  } catch (e) {
    post({ type: 'error', id: req.id, error: wireError(e) });
  }
};
