/**
 * Time one file with every decoder available in this process: Arrowsmith SIMD and
 * scalar (separate module instances) and, when installed, msgpackr and @msgpack/msgpack.
 */
import { readFileSync } from 'node:fs';
// Node's platform hooks (uninitialised output copies, worker threads): time what a Node
// user of the package gets.
import './node.js';
import { decodeWith } from './msgpack.js';
import { wasmFile } from './wasm-files.js';
import { standalone, type Build, type Format, type Loaded } from './wasm.js';

/** An instance of one build of a format's module, of its own (benchmarks compare the builds side by side). */
export function instantiateVariant<F extends Format = 'msgpack'>(variant: Build, format: F = 'msgpack' as F): Loaded<F> {
  return standalone(format, new WebAssembly.Module(readFileSync(wasmFile(format, variant))), variant === 'simd');
}

export interface Timing {
  name: string;
  medianMs: number;
  minMs: number;
  rows?: number;
  error?: string;
}

export function timeIt(name: string, runs: number, f: () => number): Timing {
  const times: number[] = [];
  let rows = 0;
  try {
    rows = f(); // warm-up
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      f();
      times.push(performance.now() - t0);
    }
  } catch (e) {
    return { name, medianMs: NaN, minMs: NaN, error: String((e as Error)?.message ?? e) };
  }
  times.sort((a, b) => a - b);
  return { name, medianMs: times[times.length >> 1]!, minMs: times[0]!, rows };
}

async function peer(name: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(name)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export async function benchFile(bytes: Uint8Array, runs: number, format = 'msgpack', what?: string): Promise<string> {
  if (format !== 'msgpack') return benchFileReader(bytes, runs, format, what);
  const results: Timing[] = [];
  for (const v of ['simd', 'scalar'] as const) {
    const w = instantiateVariant(v);
    results.push(timeIt(`arrowsmith ${v}`, runs, () => decodeWith(w, bytes).numRows));
  }
  const msgpackr = await peer('msgpackr');
  if (msgpackr) {
    const unpack = msgpackr.unpack as (b: Uint8Array) => unknown;
    results.push(timeIt('msgpackr', runs, () => count(unpack(bytes))));
  }
  const msgpack = await peer('@msgpack/msgpack');
  if (msgpack) {
    const decode = msgpack.decode as (b: Uint8Array) => unknown;
    results.push(timeIt('@msgpack/msgpack', runs, () => count(decode(bytes))));
  }
  const base = results[0]!.medianMs;
  const lines = [`${bytes.length} bytes, ${runs} runs, medians:`];
  for (const r of results) {
    lines.push(
      r.error
        ? `  ${r.name.padEnd(18)} failed: ${r.error}`
        : `  ${r.name.padEnd(18)} ${r.medianMs.toFixed(3).padStart(10)} ms  (min ${r.minMs.toFixed(3)})  ${(r.medianMs / base).toFixed(1)}× arrowsmith simd's time`,
    );
  }
  if (!msgpackr || !msgpack) lines.push('  (install msgpackr and @msgpack/msgpack to compare with them)');
  return lines.join('\n');
}

/** Async timing for the file readers (open + read each run). */
async function timeAsync(name: string, runs: number, f: () => Promise<number>): Promise<Timing> {
  const times: number[] = [];
  let rows = 0;
  try {
    rows = await f();
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await f();
      times.push(performance.now() - t0);
    }
  } catch (e) {
    return { name, medianMs: NaN, minMs: NaN, error: String((e as Error)?.message ?? e) };
  }
  times.sort((a, b) => a - b);
  return { name, medianMs: times[times.length >> 1]!, minMs: times[0]!, rows };
}

async function benchFileReader(bytes: Uint8Array, runs: number, format: string, what?: string): Promise<string> {
  const { TsFile } = await import('./tsfile.js');
  const { Hdf5File } = await import('./hdf5.js');
  const results: Timing[] = [];
  let target = what;
  for (const v of ['simd', 'scalar'] as const) {
    if (format === 'tsfile') {
      const w = instantiateVariant(v, 'tsfile');
      results.push(
        await timeAsync(`arrowsmith ${v}`, runs, async () => {
          const f = await TsFile.openWith(w, bytes);
          const q = target ? (f.tables().some((t) => t.name === target) ? { table: target } : { devices: [target] }) : {};
          const n = (await f.read(q)).numRows;
          f.close();
          return n;
        }),
      );
    } else {
      const w = instantiateVariant(v, 'hdf5');
      if (!target) {
        const f = await Hdf5File.openWith(w, bytes);
        target = '/' + ((await f.list('/')).find((e) => e.kind === 'dataset')?.name ?? '');
        f.close();
      }
      results.push(
        await timeAsync(`arrowsmith ${v}`, runs, async () => {
          const f = await Hdf5File.openWith(w, bytes);
          const n = (await f.read(target!)).numRows;
          f.close();
          return n;
        }),
      );
    }
  }
  if (format === 'hdf5') {
    const h5wasm = (await peer('h5wasm/node')) as { default: { ready: Promise<{ FS: { writeFile(p: string, b: Uint8Array): void } }>; File: new (p: string, m: string) => { get(p: string): { value: { length: number } }; close(): void } } } | undefined;
    if (h5wasm) {
      const { FS } = await h5wasm.default.ready;
      results.push(
        timeIt('h5wasm', runs, () => {
          FS.writeFile('/bench.h5', bytes);
          const f = new h5wasm.default.File('/bench.h5', 'r');
          const n = f.get(target!).value.length;
          f.close();
          return n;
        }),
      );
    }
    const jsfive = (await peer('jsfive')) as { File: new (b: ArrayBuffer, n: string) => { get(p: string): { value: { length: number } } } } | undefined;
    if (jsfive) results.push(timeIt('jsfive', runs, () => new jsfive.File(bytes.slice().buffer, 'f.h5').get(target!).value.length));
  }
  const base = results[0]!.medianMs;
  const lines = [`${format} ${target ?? ''} ${bytes.length} bytes, ${runs} runs, open + read, medians:`];
  for (const r of results) {
    lines.push(r.error ? `  ${r.name.padEnd(18)} failed: ${r.error}` : `  ${r.name.padEnd(18)} ${r.medianMs.toFixed(3).padStart(10)} ms  (min ${r.minMs.toFixed(3)})  ${(r.medianMs / base).toFixed(1)}× arrowsmith simd's time, ${r.rows} rows`);
  }
  return lines.join('\n');
}

function count(v: unknown): number {
  return Array.isArray(v) ? v.length : 1;
}
