// HDF5 through the wasm build in Node: every dataset and attribute of every fixture (h5py
// under each libver bound, and the other writers), compared value by value (strings as
// bytes, null vs empty) with the writer's own reader's dump.
import { describe, expect, it } from 'vitest';
import { openHdf5 } from '../src/node.js';
import { fixturePairs } from './fixtures.js';
import { fileProblems } from './hdf5-compare.js';
import { MODES, usePools } from './pools.js';

// The extensions HDF5 writers give their files (h5py/PyTables/pandas, netCDF4, anndata, MATLAB).
const fixtures = fixturePairs('hdf5', '.h5', '.nc', '.h5ad', '.mat');

describe('HDF5 (wasm, Node)', () => {
  usePools();
  it('has fixtures for every libver bound', () => {
    for (const v of ['earliest', 'v108', 'v110', 'latest']) expect(fixtures.some((f) => f.name.includes(v)), v).toBe(true);
  });

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures) {
    it(`${name}: every dataset and attribute matches the writer's reader (${mode})`, async () => {
      const f = await openHdf5(data, options());
      const problems = await fileProblems(f, json);
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

  it('reads empty VL sequences as valid empty lists in batches and attributes', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'vl_empty_latest.h5')!;
    const f = await openHdf5(data);
    const want = json.datasets['/seq_gzip'].rows as number[][];
    let at = 0;
    for await (const b of f.batches('/seq_gzip', { rows: 7 })) {
      for (let i = 0; i < b.numRows; i++, at++) expect([...(b.getChildAt(0)!.get(i) ?? ['null'])], `row ${at}`).toEqual(want[at]);
    }
    expect(at).toBe(want.length);
    expect(want.filter((r) => r.length === 0).length).toBeGreaterThan(10);
    expect((await f.attrs('/')).attr_seq).toEqual(json.attrs['/'].attr_seq);
  });

  it('reports truncated and foreign files as DecodeError naming HDF5', async () => {
    const { data } = fixtures[0]!;
    await expect(openHdf5(new Uint8Array(100))).rejects.toMatchObject({ name: 'DecodeError', format: 'HDF5' });
    const cut = openHdf5(data.subarray(0, 600)).then((f) => f.list('/'));
    await expect(cut).rejects.toMatchObject({ name: 'DecodeError', format: 'HDF5' });
  });
});
