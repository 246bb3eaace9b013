/**
 * Time one file with every decoder available in this process: Arrowsmith SIMD and
 * scalar (separate module instances) and, when installed, msgpackr and @msgpack/msgpack.
 */
import { readFileSync } from 'node:fs';
import { decodeWith } from './msgpack.js';
import type { Glue, Loaded } from './wasm.js';
import * as simdGlue from '../wasm/arrowsmith_simd.js';
import * as scalarGlue from '../wasm/arrowsmith_scalar.js';

export function instantiateVariant(variant: 'simd' | 'scalar'): Loaded {
  const glue: Glue = variant === 'simd' ? simdGlue : scalarGlue;
  const out = glue.initSync({ module: readFileSync(new URL(`../wasm/arrowsmith_${variant}.wasm`, import.meta.url)) });
  return { glue, memory: out.memory, simd: variant === 'simd' };
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
    return { name, medianMs: NaN, minMs: NaN, error: (e as Error).message };
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

export async function benchFile(bytes: Uint8Array, runs: number): Promise<string> {
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

function count(v: unknown): number {
  return Array.isArray(v) ? v.length : 1;
}
