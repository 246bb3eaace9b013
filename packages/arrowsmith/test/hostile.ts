/**
 * What every hostile-input case asserts: a typed `DecodeError` (never `need-bytes`, never
 * an "internal error"), within 2 s (a hang detector, not a speed test), and wasm memory
 * growing by less than 64 MiB + 4 × the input.
 *
 * Time is the process's CPU time for decodes (other builds on a shared machine stretch
 * wall time, not the work; a decoder that loops burns CPU) and wall time for network cases
 * (where waiting is the failure), with a generous wall ceiling on decodes as well.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { expect } from 'vitest';
import { DecodeError, decodeMsgpack, decodeMsgpackAsync, openHdf5, openTsFile, type DecodeErrorCode, type FileSource, type Pool } from '../src/node.js';
import { memory } from '../src/wasm/instance.js';
import { FIXTURES } from './fixtures.js';

export const MAX_MS = 2000;
/** Wall time a decode case may take on a loaded machine (its CPU time stays under MAX_MS). */
const MAX_WALL_MS = 30_000;
export const memoryBound = (input: number) => 64 * 2 ** 20 + 4 * input;

/** Wasm memory of the calling thread's instances (one per format module), in bytes. */
export function wasmMemory(): number {
  return Object.values(memory()).reduce((a, b) => a + b, 0);
}

export interface Bounded<T> {
  value?: T;
  error?: unknown;
  /** Wall time. */
  ms: number;
  /** CPU time of this process (user + system). */
  cpuMs: number;
  grew: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Run `f`, measuring time and memory growth; asserts both bounds and, on failure, a typed
 * error. `wait`: the case is about waiting (network), so wall time is what is bounded.
 */
export async function bounded<T>(f: () => Promise<T> | T, input: number, how: { wait?: boolean } = {}): Promise<Bounded<T>> {
  const before = wasmMemory();
  const [t0, c0] = [performance.now(), cpuMs()];
  const out: Bounded<T> = { ms: 0, cpuMs: 0, grew: 0 };
  try {
    out.value = await f();
  } catch (e) {
    out.error = e;
  }
  out.ms = performance.now() - t0;
  out.cpuMs = cpuMs() - c0;
  out.grew = wasmMemory() - before;
  if (how.wait) expect(out.ms, 'wall time').toBeLessThan(MAX_MS);
  else {
    expect(out.cpuMs, 'CPU time').toBeLessThan(MAX_MS);
    expect(out.ms, 'wall time').toBeLessThan(MAX_WALL_MS);
  }
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
export async function expectFails(f: () => Promise<unknown>, codes: DecodeErrorCode[], input = 0, how: { wait?: boolean } = {}): Promise<DecodeError> {
  const r = await bounded(f, input, how);
  if (r.error === undefined) throw new Error(`expected a DecodeError (${codes.join(' or ')}), got a result`);
  expectTyped(r.error, codes);
  return r.error;
}

export const rows = (t: { toArray(): unknown[] }) => JSON.stringify(t.toArray(), (_, v) => (typeof v === 'bigint' ? String(v) : v));

/** A damaged copy: a quarter of them cut short, then 1–4 bytes overwritten (0, 0xff, 0x7f or random). */
export function mutant(b: Uint8Array, r: () => number): Uint8Array {
  const int = (n: number) => Math.floor(r() * n);
  const m = b.slice(0, r() < 0.25 ? int(b.length) : b.length);
  if (m.length === 0) return m;
  for (let k = 1 + int(4); k > 0; k--) m[int(m.length)] = [0, 0xff, 0x7f, int(256)][int(4)]!;
  return m;
}

export type Format = 'msgpack' | 'tsfile' | 'hdf5';
const EXT: Record<Format, string> = { msgpack: '.msgpack', tsfile: '.tsfile', hdf5: '.h5' };

/** A copy of one committed fixture. */
export function fixtureFile(format: Format, name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, format, name)));
}

/** The committed fixtures of a format (at most `maxBytes` each), by name. */
export function fixtureFiles(format: Format, maxBytes = Infinity): { name: string; data: Uint8Array }[] {
  const dir = join(FIXTURES, format);
  return readdirSync(dir)
    .filter((f) => f.endsWith(EXT[format]))
    .sort()
    .map((name) => ({ name, data: new Uint8Array(readFileSync(join(dir, name))) }))
    .filter((f) => f.data.length <= maxBytes);
}

/**
 * Everything a user can read from an input, as text: every table of a TsFile, every
 * dataset (and its attributes) of an HDF5 file, a MessagePack buffer, on the calling
 * thread or on `pool`. Equal texts mean equal rows (NaN-safe: both print null).
 */
export const READ_ALL: Record<Format, (src: FileSource, pool?: Pool) => Promise<string>> = {
  msgpack: async (src, pool) => {
    const bytes = src as Uint8Array;
    return rows(pool ? await decodeMsgpackAsync(bytes, { pool }) : decodeMsgpack(bytes));
  },
  tsfile: async (src, pool) => {
    const f = await openTsFile(src, { pool });
    const out: string[] = [];
    const tables = f.tables();
    for (const t of tables.length ? tables : [undefined]) out.push(rows(await f.read(t ? { table: t.name } : {})));
    f.close();
    return out.join('\n');
  },
  hdf5: async (src, pool) => {
    const f = await openHdf5(src, { pool });
    const out: string[] = [];
    const walk = async (path: string, depth: number) => {
      for (const e of await f.list(path)) {
        const child = `${path === '/' ? '' : path}/${e.name}`;
        if (e.kind === 'group' && depth < 8) await walk(child, depth + 1);
        else if (e.kind === 'dataset') out.push(`${child}: ${rows(await f.read(child))}`);
      }
    };
    await walk('/', 0);
    f.close();
    return out.join('\n');
  },
};

/** The rows, or the error's code and offset (what pool = thread compares). */
export async function answer(f: () => Promise<string>): Promise<string> {
  try {
    return await f();
  } catch (e) {
    expectTyped(e);
    return `${e.code} at ${e.offset}`;
  }
}

export type { Table };
