// HDF5 through the wasm build in Node: every dataset of every fixture written by h5py
// (libver earliest / v108 / v110 / latest), compared value by value (strings as bytes,
// null vs empty) with h5py's own dump.
import { describe, expect, it } from 'vitest';
import { openHdf5 } from '../src/node.js';
import { valueAt } from './compare.js';
import { fixturePairs, hex } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const fixtures = fixturePairs('hdf5', '.h5');
const utf8 = new TextEncoder();
const isEmptyHex = (w: unknown) => typeof w === 'object' && w !== null && (w as { hex?: string }).hex === '';

/** Where `got` (an Arrow value) differs from h5py's JSON value, or null. */
function diff(got: unknown, want: unknown, at: string): string | null {
  if (want === null) return got === null ? null : `${at}: expected null, got ${String(got)}`;
  // A null VL reference reads as b'' / [] in h5py; we keep it null (docs/hdf5.md). The file
  // cannot tell an empty sequence from a null one, so both readings are right.
  if (got === null && (isEmptyHex(want) || (Array.isArray(want) && want.length === 0))) return null;
  if (typeof want === 'object' && want !== null && 'hex' in want) {
    const bytes = typeof got === 'string' ? utf8.encode(got) : got instanceof Uint8Array ? got : undefined;
    return bytes && hex(bytes) === (want as { hex: string }).hex ? null : `${at}: expected bytes ${(want as { hex: string }).hex}, got ${String(got)}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${at}: expected a list of ${want.length}, got ${String(got)}`;
    if (got.length !== want.length) return `${at}: list length ${got.length} != ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(got[i], want[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof want === 'object') {
    if (!got || typeof got !== 'object') return `${at}: expected a struct, got ${String(got)}`;
    for (const [k, w] of Object.entries(want)) {
      const d = diff((got as Record<string, unknown>)[k], w, `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (typeof got === 'boolean') return Number(got) === Number(want) ? null : `${at}: ${got} vs ${want}`;
  if (typeof got === 'bigint') return got === BigInt(want as number | string) ? null : `${at}: ${got} vs ${want}`;
  if (want === 'nan' || want === 'NaN') return Number.isNaN(got) ? null : `${at}: expected NaN, got ${got}`;
  return Object.is(got, want) || (typeof want === 'string' && Object.is(got, Number(want))) ? null : `${at}: expected ${want}, got ${String(got)}`;
}

describe('HDF5 (wasm, Node)', () => {
  usePools();
  it('has fixtures for every libver bound', () => {
    for (const v of ['earliest', 'v108', 'v110', 'latest']) expect(fixtures.some((f) => f.name.includes(v)), v).toBe(true);
  });

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures) {
    it(`${name}: every dataset matches h5py (${mode})`, async () => {
      const f = await openHdf5(data, options());
      const problems: string[] = [];
      for (const [path, ds] of Object.entries(json.datasets as Record<string, { rows: unknown[] | unknown; shape: number[] }>)) {
        let t: Awaited<ReturnType<typeof f.read>>;
        try {
          t = await f.read(path);
        } catch (e) {
          problems.push(`${path}: ${(e as Error).message}`);
          continue;
        }
        const rows = Array.isArray(ds.rows) ? ds.rows : [ds.rows];
        if (t.numRows !== rows.length) {
          problems.push(`${path}: ${t.numRows} rows, h5py has ${rows.length}`);
          continue;
        }
        const compound = t.numCols > 1 || (rows.length > 0 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r) && !('hex' in r)));
        // h5py dumps object references as opaque text; only their count is comparable.
        if (rows.some((r) => typeof r === 'string' || (r && typeof r === 'object' && Object.values(r).some((v) => typeof v === 'string')))) continue;
        for (let i = 0; i < rows.length; i++) {
          const got = compound
            ? Object.fromEntries(t.schema.fields.map((fl, c) => [fl.name, valueAt(t.getChildAt(c)!, i)]))
            : valueAt(t.getChildAt(0)!, i);
          const d = diff(got, rows[i], `${path}[${i}]`);
          if (d) {
            problems.push(d);
            break;
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('lists groups and reads attributes', async () => {
    const { data, json } = fixtures.find((f) => f.name.startsWith('vl_latest'))!;
    const f = await openHdf5(data);
    const names = (await f.list('/')).map((e) => e.name).sort();
    const top = Object.keys(json.datasets).filter((p) => p.split('/').length === 2).map((p) => p.slice(1));
    for (const n of top) expect(names).toContain(n);
    const attrs = await f.attrs('/');
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(json.attrs['/'] ?? {}).sort());
  });

  it('reads a slice of rows and batches', async () => {
    const { data, json } = fixtures.find((f) => f.name.startsWith('types_latest'))!;
    const f = await openHdf5(data);
    const want = json.datasets['/ck_deflate'].rows as number[];
    const part = await f.read('/ck_deflate', { start: 100, count: 250 });
    expect([...part.getChildAt(0)!]).toEqual(want.slice(100, 350));
    let n = 0;
    for await (const b of f.batches('/ck_deflate', { rows: 300 })) n += b.numRows;
    expect(n).toBe(want.length);
  });

  it('reports truncated and foreign files as DecodeError naming HDF5', async () => {
    const { data } = fixtures[0]!;
    await expect(openHdf5(new Uint8Array(100))).rejects.toMatchObject({ name: 'DecodeError', format: 'HDF5' });
    const cut = openHdf5(data.subarray(0, 600)).then((f) => f.list('/'));
    await expect(cut).rejects.toMatchObject({ name: 'DecodeError', format: 'HDF5' });
  });
});
