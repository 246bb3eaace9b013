// init({ warm: true }): idle-time reads of each format's built-in input (src/formats/warm.ts), in
// fresh Node processes (module state is per process). The speed it buys is measured by the
// cold benchmarks (bench/results/cold.md), never asserted here.
import { decode } from '@msgpack/msgpack';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './child.js';

const dist = join(import.meta.dirname, '../dist/node.js');
const warmJs = JSON.stringify(join(import.meta.dirname, '../dist/formats/warm.js'));
const fixture = (p: string) => JSON.stringify(join(import.meta.dirname, '../../../fixtures', p));

function run(code: string): unknown {
  const out = execFileSync('node', ['--input-type=module', '-e', `import * as a from ${JSON.stringify(dist)};\n${code}`], { env: cleanEnv({}) });
  return JSON.parse(out.toString());
}

/** A real read per format (rows as JSON text), taken before and after the warm-up. */
const READ = {
  msgpack: `const t = a.decodeMsgpack(bytes); return t.toArray().map(text);`,
  tsfile: `const f = await a.openTsFile(bytes); try { return (await f.read()).toArray().map(text); } finally { f.close(); }`,
  hdf5: `const f = await a.openHdf5(bytes); try { return (await f.read('/arr_2d')).toArray().map(text); } finally { await f.close(); }`,
};
const FILES = { msgpack: 'msgpack/py_fixints.msgpack', tsfile: 'tsfile/cpp_multipage_gorilla_lz4.tsfile', hdf5: 'hdf5/types_earliest.h5' };

describe('init({ warm: true })', { timeout: 120_000 }, () => {
  it.each(Object.keys(READ) as (keyof typeof READ)[])('reads the built-in %s input in idle time, and reads after it are unchanged', (format) => {
    // A ref'd timer keeps the process up: the warm-up's own timers never do.
    const got = run(`const keep = setTimeout(() => {}, 60000); const text = (r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v));
      const bytes = (await import('node:fs')).readFileSync(${fixture(FILES[format])});
      const once = async () => { ${READ[format]} };
      const before = await once();
      const { warmed } = await a.init({ formats: [${JSON.stringify(format)}], warm: true });
      const reads = await warmed;
      const again = await once();
      clearTimeout(keep);
      console.log(JSON.stringify({ same: JSON.stringify(before) === JSON.stringify(again), rows: again.length, reads }))`) as { same: boolean; rows: number; reads: number };
    expect(got.same).toBe(true);
    expect(got.rows).toBeGreaterThan(0);
    expect(got.reads).toBe(format === 'tsfile' ? 40 : 12);
  });

  it('waits as long again as the reads took (at most 1 s; 1 s where reads share idle periods) before `warmed` resolves', async () => {
    const { settleMs } = (await import(JSON.parse(warmJs))) as { settleMs: (ms: number, floor?: number) => number };
    expect([settleMs(0), settleMs(90), settleMs(999), settleMs(5000), settleMs(-3)]).toEqual([0, 90, 999, 1000, 0]);
    expect([settleMs(0, 300), settleMs(90, 300), settleMs(999, 300), settleMs(5000, 300)]).toEqual([300, 300, 999, 1000]);
  });

  it('makes several reads in one idle period while it has time left (browsers), one per period when it has not', () => {
    // A stand-in for requestIdleCallback: periods of `ms` ms, each a task of its own;
    // \`periods\` counts those whose time left was asked (after a read, to make another).
    const periods = (ms: number) => {
      const code = `const asked = new Set(); let n = 0;
        globalThis.requestIdleCallback = (f) => setTimeout(() => { const id = n++; const end = performance.now() + ${ms}; f({ timeRemaining: () => (asked.add(id), Math.max(0, end - performance.now())) }); }, 0);
        const a = await import(${JSON.stringify(dist)});
        const keep = setTimeout(() => {}, 60000);
        const { warmed } = await a.init({ formats: ['msgpack'], warm: true });
        const reads = await warmed;
        clearTimeout(keep);
        console.log(JSON.stringify({ reads, periods: asked.size }))`;
      return JSON.parse(execFileSync('node', ['--input-type=module', '-e', code], { env: cleanEnv({}) }).toString()) as { reads: number; periods: number };
    };
    const long = periods(10_000);
    expect(long).toEqual({ reads: 12, periods: 1 });
    // No time left: one read per period (the last read asks nothing).
    expect(periods(0)).toEqual({ reads: 12, periods: 11 });
  });

  it('warms every format asked for', () => {
    const got = run(`const keep = setTimeout(() => {}, 60000);
      const { warmed } = await a.init({ formats: ['msgpack', 'tsfile', 'hdf5'], warm: true });
      const reads = await warmed;
      clearTimeout(keep);
      console.log(JSON.stringify(reads))`);
    expect(got).toBe(12 + 40 + 12);
  });

  it('grows the TsFile module memory to what a whole read in pieces takes, and writes 32 MiB of JS output memory (in idle time)', () => {
    const got = run(`const keep = setTimeout(() => {}, 60000);
      const { reserveLeft } = await import(${JSON.stringify(join(import.meta.dirname, '../dist/arrow/batch.js'))});
      const before = (await a.init({ formats: ['tsfile'] }), a.memory().tsfile);
      const reserved = reserveLeft();
      const { warmed } = await a.init({ formats: ['tsfile'], warm: true });
      await warmed;
      clearTimeout(keep);
      console.log(JSON.stringify({ before, after: a.memory().tsfile, reserved, left: reserveLeft() }))`) as { before: number; after: number; reserved: number; left: number };
    expect(got.before).toBeLessThan(8 * 2 ** 20);
    expect(got.after).toBeGreaterThanOrEqual(16 * 2 ** 20);
    expect(got.reserved).toBe(0);
    expect(got.left).toBe(32 * 2 ** 20);
  });

  it('the built-in TsFile input holds what scripts/fixtures/tsfile/gen_warm.py writes', () => {
    // Values from the generator's formulas (the PyPI writer wrote them), row by row.
    const got = run(`const { builtInInput } = await import(${warmJs});
      const f = await a.openTsFile(await builtInInput('tsfile'));
      const t = await f.read(); f.close();
      const rows = t.toArray().map((r) => [Number(r.time), r.id1, Number(r.s1), r.s2, r.s3, r.s4, r.s5, r.s6]);
      console.log(JSON.stringify(rows))`) as [number, string, number, number, number, number, boolean, string | null][];
    expect(got).toHaveLength(2000);
    got.forEach(([time, id1, s1, s2, s3, s4, s5, s6], r) => {
      expect(time).toBe(1_700_000_000_000 + r * 1000);
      expect(id1).toBe('device00');
      expect(s1).toBe(r * 7 + (r % 13));
      expect(s2).toBeCloseTo(Math.sin(r / 50) * 100, 3);
      expect(s3).toBe((r % 97) / 4);
      expect(s4).toBe(((r * 31) % 1000) - 500);
      expect(s5).toBe(r % 3 === 0);
      expect(s6).toBe(r % 5 ? `s${r % 17}` : null);
    });
  });

  it('the built-in MessagePack input holds what scripts/fixtures/msgpack/gen_warm.mjs writes', () => {
    // Each document's values: the generator's formulas, as the writer's reader
    // (@msgpack/msgpack) decodes the bytes and as our table holds them.
    const rows = (n: number, f: (i: number) => unknown) => Array.from({ length: n }, (_, i) => f(i));
    const want: Record<string, unknown[]> = {
      ints: rows(1024, (i) => ((i * 37) % 160) - 32),
      mixed: rows(384, (i) => [i % 128, 256 + ((i * 97) % 65000), -65536 - i * 7919][i % 3]),
      f64: rows(256, (i) => (i + 0.5) * 1.25 - 100),
      f32: rows(256, (i) => (i + 0.5) * 0.25),
      bool: rows(512, (i) => i % 3 === 0),
      'ints-nil': rows(512, (i) => (i % 4 === 0 ? null : ((i * 31) % 2000) - 1000)),
      strings: rows(256, (i) => 'abcdefghijkl'.slice(0, 1 + (i % 12))),
      records: rows(96, (i) => ({
        id: i,
        value: i % 7 === 3 ? null : i * 0.75 + 0.125,
        name: i % 11 === 5 ? null : `dev-${i % 10}`,
        ok: i % 3 === 0,
        maybe: i % 4 ? i * 1009 : null,
      })),
      'id-ts': rows(96, (i) => ({ id: 2 ** 31 + i * 7919, ts: 1_767_225_600_000 + i * 1000 })),
      tuples: rows(96, (i) => [i, (i + 0.5) * 0.5, `s${i % 7}`, i % 2 === 0]),
    };
    const got = run(`const { builtInInput } = await import(${warmJs});
      const docs = a.decodeMsgpack(await builtInInput('msgpack'));
      const out = {};
      for (const f of docs.schema.fields) {
        const bytes = docs.getChild(f.name).get(0);
        out[f.name] = { hex: Buffer.from(bytes).toString('hex'), rows: a.decodeMsgpack(bytes).toArray() };
      }
      console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))`) as Record<string, { hex: string; rows: Record<string, unknown>[] }>;
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [name, values] of Object.entries(want)) {
      const { hex, rows: ours } = got[name]!;
      expect(decode(Buffer.from(hex, 'hex')), name).toEqual(values);
      // Our rows: records by key, positional rows by position, anything else in `value`.
      const shaped = values.map((v) => (Array.isArray(v) ? Object.fromEntries(v.map((x, k) => [String(k), x])) : v !== null && typeof v === 'object' ? v : { value: v }));
      expect(ours, name).toEqual(shaped);
    }
  });

  it('the built-in HDF5 input holds what scripts/fixtures/hdf5/gen_warm.py writes', () => {
    // The generator's formulas (h5py wrote them and read them back), value by value.
    const rows = (n: number, f: (i: number) => unknown) => Array.from({ length: n }, (_, i) => f(i));
    const want: Record<string, unknown[]> = {
      f64_contig: rows(128, (i) => (i - 64) / 8),
      i32_gzip: rows(2048, (i) => ((i * 37) % 1000) - 500),
      str_gzip: rows(96, (i) => `row-${i}-${'x'.repeat(i % 13)}`),
      vint_contig: rows(64, (i) => rows(i % 8, (k) => i + k)),
      vstruct_gzip: rows(8, (i) => rows(16, (k) => ({ a: k + i, b: (k + i) * 0.5, c: 0 - (k + i) }))),
    };
    const got = run(`const { builtInInput } = await import(${warmJs});
      const f = await a.openHdf5(await builtInInput('hdf5'));
      const out = {};
      for (const e of await f.list('/')) out[e.name] = [...(await f.read('/' + e.name)).getChildAt(0)];
      await f.close();
      console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))`) as Record<string, unknown[]>;
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [name, values] of Object.entries(want)) expect(got[name], name).toEqual(values);
  });
});
