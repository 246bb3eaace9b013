/// <reference lib="webworker" />
// Decoding runs here so the page never freezes; tables go back as Arrow IPC bytes
// (transferred, not copied). `?simd=1` / `?simd=0` pin the wasm build (one per realm), so
// the benchmark runs SIMD and scalar side by side in two workers.
import { tableToIPC } from 'apache-arrow';
import { DecodeError, init, simdActive } from 'arrowsmith';
import { runBench, type BenchResult, type DecoderId } from './bench.js';
import { adapters } from './formats/index.js';
import type { Opened, Selection, TreeNode } from './formats/types.js';
import { sniff, type FormatName } from './sniff.js';

export type WorkerRequest =
  | { type: 'open'; id: number; file: Blob; name: string }
  | { type: 'read'; id: number; sel: Selection }
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
  | { type: 'bench'; id: number; result: BenchResult }
  | { type: 'error'; id: number; error: WireError };

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
    if (req.type === 'open') {
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
