/**
 * What every hostile-input case asserts: a typed `DecodeError` (never `need-bytes`, never
 * an "internal error"), within 2 s (a hang detector, not a speed test), and wasm memory
 * growing by less than 64 MiB + 4 × the input.
 */
import { expect } from 'vitest';
import { DecodeError, type DecodeErrorCode } from '../src/node.js';
import { memory } from '../src/wasm.js';

export const MAX_MS = 2000;
export const memoryBound = (input: number) => 64 * 2 ** 20 + 4 * input;

/** Wasm memory of the calling thread's instances (one per format module), in bytes. */
export function wasmMemory(): number {
  return Object.values(memory()).reduce((a, b) => a + b, 0);
}

export interface Bounded<T> {
  value?: T;
  error?: unknown;
  ms: number;
  grew: number;
}

/** Run `f`, measuring time and memory growth; asserts both bounds and, on failure, a typed error. */
export async function bounded<T>(f: () => Promise<T> | T, input: number, memory: () => number = wasmMemory): Promise<Bounded<T>> {
  const before = memory();
  const t0 = performance.now();
  const out: Bounded<T> = { ms: 0, grew: 0 };
  try {
    out.value = await f();
  } catch (e) {
    out.error = e;
  }
  out.ms = performance.now() - t0;
  out.grew = memory() - before;
  expect(out.ms, 'time').toBeLessThan(MAX_MS);
  expect(out.grew, 'wasm memory growth').toBeLessThan(memoryBound(input));
  if (out.error !== undefined) expectTyped(out.error);
  return out;
}

/** A DecodeError with a public code and no "internal error" text. */
export function expectTyped(e: unknown, codes?: DecodeErrorCode[]): asserts e is DecodeError {
  if (!(e instanceof DecodeError)) throw new Error(`expected a DecodeError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
  expect(e.code).not.toBe('need-bytes');
  expect(e.message).not.toMatch(/internal error/);
  if (codes) expect(codes, e.message).toContain(e.code);
}

/** `f` rejects with a DecodeError of one of `codes`, within the time and memory bounds. */
export async function expectFails(f: () => Promise<unknown>, codes: DecodeErrorCode[], input = 0): Promise<DecodeError> {
  const r = await bounded(f, input);
  if (r.error === undefined) throw new Error(`expected a DecodeError (${codes.join(' or ')}), got a result`);
  expectTyped(r.error, codes);
  return r.error;
}

export const rows = (t: { toArray(): unknown[] }) => JSON.stringify(t.toArray(), (_, v) => (typeof v === 'bigint' ? String(v) : v));
