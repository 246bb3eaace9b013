// TsFile through the wasm build in Node: every fixture written by the official C++ (PyPI
// tsfile) and Java writers, every value compared with the JSON the generator dumped from
// the writer's input and the official reader's output.
import { describe, expect, it } from 'vitest';
import { openTsFile } from '../src/node.js';
import { valueAt } from './compare.js';
import { fixturePairs, hex } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const fixtures = fixturePairs('tsfile', '.tsfile');

function same(got: unknown, want: unknown, type: string): boolean {
  if (want === null) return got === null;
  switch (type) {
    case 'INT64': case 'TIMESTAMP': return typeof got === 'bigint' && got === BigInt(want as string | number);
    case 'BLOB': return got instanceof Uint8Array && hex(got) === want;
    case 'FLOAT': case 'DOUBLE': return Object.is(got, want) || (Number.isNaN(got) && want === 'NaN');
    default: return got === want;
  }
}

describe('TsFile (wasm, Node)', () => {
  usePools();
  it('has fixtures from both official writers', () => {
    expect(fixtures.filter((f) => f.name.startsWith('cpp_')).length).toBeGreaterThan(30);
    expect(fixtures.filter((f) => f.name.startsWith('java_')).length).toBeGreaterThan(3);
  });

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures.filter((f) => f.json.devices?.[0]?.columns)) {
    it(`table model: ${name} matches every value (${mode})`, async () => {
      const f = await openTsFile(data, options());
      const t = await f.read({ table: json.table });
      const tagCols = (json.tags as string[]).map((n) => t.getChild(n)!);
      const types = Object.fromEntries((json.fields as [string, string][]).map(([n, ty]) => [n, ty]));
      const rowsByDevice = new Map<string, number[]>();
      for (let i = 0; i < t.numRows; i++) {
        const key = tagCols.map((c) => c.get(i)).join('\u0000');
        rowsByDevice.set(key, [...(rowsByDevice.get(key) ?? []), i]);
      }
      let total = 0;
      for (const dev of json.devices) {
        const rows = rowsByDevice.get((dev.tags as string[]).join('\u0000')) ?? [];
        expect(rows.length, `${dev.tags} rows`).toBe(dev.rows);
        total += rows.length;
        const times = rows.map((r) => valueAt(t.getChild('time')!, r));
        expect(times, `${dev.tags} time`).toEqual((dev.columns.time as (number | string)[]).map((x) => BigInt(x)));
        for (const [col, values] of Object.entries(dev.columns as Record<string, unknown[]>)) {
          if (col === 'time') continue;
          const vec = t.getChild(col)!;
          const bad = rows.findIndex((r, k) => !same(valueAt(vec, r), values[k], types[col]!));
          if (bad >= 0) expect(`${col} row ${bad}: ${String(valueAt(vec, rows[bad]!))}`, String(dev.tags)).toBe(`${col} row ${bad}: ${String(values[bad])}`);
        }
      }
      expect(t.numRows).toBe(total);
    });
  }

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures.filter((f) => f.json.model === 'tree')) {
    it(`tree model: ${name} matches every point (${mode})`, async () => {
      const f = await openTsFile(data, options());
      let points = 0;
      for (const dev of json.devices) {
        const t = await f.read({ devices: [dev.path] });
        const time = t.getChild('time')!;
        const rowOf = new Map<bigint, number>();
        for (let i = 0; i < t.numRows; i++) rowOf.set(valueAt(time, i) as bigint, i);
        for (const [m, s] of Object.entries(dev.series as Record<string, { type: string; times: unknown[]; values: unknown[] }>)) {
          const vec = t.getChild(m);
          expect(vec, `${dev.path}.${m} column`).toBeTruthy();
          s.times.forEach((tm, k) => {
            const r = rowOf.get(BigInt(tm as number));
            expect(r, `${dev.path}.${m} time ${tm}`).toBeDefined();
            const ok = same(valueAt(vec!, r!), s.values[k], s.type);
            if (!ok) expect(valueAt(vec!, r!), `${dev.path}.${m} at ${tm}`).toEqual(s.values[k]);
          });
          expect(vec!.length - vec!.nullCount, `${dev.path}.${m} non-null count`).toBe(s.times.length);
          points += s.times.length;
        }
      }
      expect(points).toBeGreaterThan(0);
    });
  }

  it('pushes a time range and a tag filter into the reader', async () => {
    const { data, json } = fixtures.find((f) => f.json.devices?.length > 1 && f.json.devices[0].columns)!;
    const f = await openTsFile(data);
    const dev = json.devices[1];
    const times = (dev.columns.time as number[]).map(BigInt);
    const [lo, hi] = [times[Math.floor(times.length / 4)]!, times[Math.floor((3 * times.length) / 4)]!];
    const tags = Object.fromEntries((json.tags as string[]).map((n, i) => [n, dev.tags[i]]));
    const t = await f.read({ table: json.table, tags, start: lo, end: hi });
    expect(t.toArray().map((r) => BigInt(r.time))).toEqual(times.filter((x) => x >= lo && x <= hi));
    const limited = await f.read({ table: json.table, limit: 3 });
    expect(limited.numRows).toBe(3);
  });

  it('reads a Blob by slices and gives the same table', async () => {
    const { data, json } = fixtures.find((f) => f.json.devices?.[0]?.columns)!;
    const whole = await (await openTsFile(data)).read({ table: json.table });
    const reads: number[] = [];
    const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
    const src = { size: blob.size, read: async (o: number, n: number) => (reads.push(n), new Uint8Array(await blob.slice(o, o + n).arrayBuffer())) };
    const viaRanges = await (await openTsFile(src)).read({ table: json.table });
    expect(viaRanges.numRows).toBe(whole.numRows);
    expect(viaRanges.toArray().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v)))).toEqual(
      whole.toArray().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v))),
    );
    expect(reads.length).toBeGreaterThan(0);
  });

  it('reports a truncated file as a DecodeError naming TsFile and an offset', async () => {
    const { data } = fixtures[0]!;
    await expect(openTsFile(data.subarray(0, data.length - 10))).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile' });
    await expect(openTsFile(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile' });
  });
});
