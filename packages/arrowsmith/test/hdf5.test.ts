// HDF5 through the wasm build in Node: every dataset and attribute of every fixture (h5py
// under each libver bound, and the other writers), compared value by value (strings as
// bytes, null vs empty) with the writer's own reader's dump.
import { readFileSync } from 'node:fs';
import { Table, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { Hdf5File } from '../src/formats/hdf5/file.js';
import { batchRows } from '../src/formats/hdf5/jobs.js';
import { createPool, openHdf5 } from '../src/node.js';
import { fileSystem } from '../src/io/source.js';
import { FIXTURES, fixturePairs } from './fixtures.js';

const FIXTURE_DIR = `${FIXTURES}/hdf5`;
import { fileProblems } from './hdf5-compare.js';
import { MODES, usePools, workerUrl } from './pools.js';

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

  it('lists a group holding a dataset it cannot read; that member says why in list() and info(), reading it is unsupported', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'browse_mixed.h5')!;
    const f = await openHdf5(data);
    const entries = await f.list('/grp');
    expect(entries.map((e) => e.name).sort()).toEqual(json.groups['/grp']);
    for (const e of entries) {
      const info = await f.info(`/grp/${e.name}`);
      expect(info.unsupported ?? undefined).toBe(e.unsupported);
      if (e.name !== 'a_blosc2') continue;
      expect(e.unsupported).toMatch(/blosc2/);
      expect(info).toMatchObject({ shape: [100], filters: ['blosc2'], fields: ['a_blosc2'] });
      await expect(f.read('/grp/a_blosc2')).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(/blosc2/) });
      const it = f.batches('/grp/a_blosc2');
      await expect(it.next()).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(/blosc2/) });
    }
    expect(entries.filter((e) => e.unsupported).length).toBe(1);
  });

  it('reads a zero-length trailing dimension as rows of empty lists, not nulls', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'struct_h5py.h5')!;
    const f = await openHdf5(data);
    for (const p of ['/zero/d2_0', '/zero/d3_2_0', '/zero/d4_0_chunked']) {
      const t = await f.read(p);
      const col = t.getChildAt(0)!;
      expect(t.numRows, p).toBe(json.datasets[p].rows.length);
      expect(col.nullCount, p).toBe(0);
      const rows = [...col].map((r) => JSON.parse(JSON.stringify(r)));
      expect(rows.map((r) => (Array.isArray(r) || r === null ? r : Object.values(r))), p).toEqual(json.datasets[p].rows);
    }
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

/** A source (neither bytes in memory nor a file) that records the ranges it was asked for. */
function recording(data: Uint8Array) {
  const fetched: [number, number][] = [];
  const source = {
    size: data.length,
    read: async (offset: number, length: number) => {
      fetched.push([offset, Math.min(offset + length, data.length)]);
      return data.slice(offset, offset + length);
    },
  };
  return { fetched, source };
}

/** Bytes fetched in all, as a multiple of the file's size. */
const fetchedShare = (ranges: [number, number][], size: number) => ranges.reduce((n, [s, e]) => n + e - s, 0) / size;

/** A file read through `batches` (`rows`: per dataset) instead of whole reads. */
const byBatches = (f: Hdf5File, rows: (info: Awaited<ReturnType<Hdf5File['info']>>) => number | undefined) => ({
  read: async (path: string) => {
    const out: RecordBatch[] = [];
    for await (const b of f.batches(path, { rows: rows(await f.info(path)) })) out.push(b);
    return new Table(out);
  },
  attrs: (path: string) => f.attrs(path),
});

/** Rows of a batch of whole chunks, about 20 batches a dataset. */
const wholeChunks = (i: Awaited<ReturnType<Hdf5File['info']>>) => {
  if (i.layout !== 'chunked') return undefined;
  const c = i.chunks![0]!;
  return c * Math.max(1, Math.floor((i.shape[0] ?? 1) / c / 20));
};

describe('HDF5 batches', { timeout: 60_000 }, () => {
  for (const name of ['types_latest.h5', 'vl_big.h5', 'vl_earliest.h5']) {
    it(`${name}: every dataset by batches of whole chunks matches the writer's reader, fetching each byte about once`, async () => {
      const { data, json } = fixtures.find((f) => f.name === name)!;
      const { fetched, source } = recording(data);
      await using f = await openHdf5(source);
      // Metadata (headers, chunk indexes, heaps) is kept across the batches; each chunk is
      // read by the one batch it belongs to.
      expect(await fileProblems(byBatches(f, wholeChunks), json)).toEqual([]);
      // Read-ahead rounding fetches some bytes twice; without kept metadata this is 35-1200x.
      expect(fetchedShare(fetched, data.length)).toBeLessThan(2);
    });
  }

  it('default batches are whole chunks, about 16 MiB each', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'types_latest.h5')!;
    await using f = await openHdf5(recording(data).source);
    const info = await f.info('/ck_deflate');
    expect(info.chunks).toEqual([100]);
    // int32 in chunks of 100 rows: 16 MiB / 400 B = 41943 chunks a batch.
    expect(batchRows(info)).toBe(100 * Math.floor((16 << 20) / 400));
    expect(batchRows({ ...info, shape: [10, 1 << 20], chunks: [3, 1 << 20] })).toBe(3);
    expect(await fileProblems(byBatches(f, () => undefined), json)).toEqual([]);
  });

  it('batches of fewer rows than a chunk fetch each chunk once (decoded chunks are kept)', async () => {
    const dir = `${FIXTURE_DIR}/big_chunks`;
    const data = new Uint8Array(readFileSync(`${dir}/big_chunks.h5`));
    // h5py's sum and samples (scripts/fixtures/hdf5/gen_big_chunks.py).
    const want = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8')).plain;
    for (const rows of [want.chunks[0] / 4, 3001]) {
      const { fetched, source } = recording(data);
      await using f = await openHdf5(source);
      const values: number[] = [];
      for await (const b of f.batches('/plain', { rows })) {
        expect(b.numRows).toBeLessThanOrEqual(rows);
        values.push(...(b.getChildAt(0)!.toArray() as Float32Array));
      }
      expect(values.length).toBe(want.rows);
      expect(values.reduce((a, v) => a + v, 0)).toBe(want.sum);
      for (const [i, v] of want.samples) expect(values[i]).toBe(v);
      // Chunks are 68 KB, more than the reader keeps of fetched ranges between reads: without
      // kept decoded chunks a chunk is fetched again by later batches it overlaps (1.67x the
      // file with rows = chunk / 4, against 1.01x with them).
      expect(fetchedShare(fetched, data.length)).toBeLessThan(1.2);
    }
  });

  /** big_chunks.h5 as a Blob that records each slice read (start, end) and h5py's expected values. */
  const slicedBlob = () => {
    const dir = `${FIXTURE_DIR}/big_chunks`;
    const data = new Uint8Array(readFileSync(`${dir}/big_chunks.h5`));
    const want = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8')).plain;
    const slices: [number, number][] = [];
    class Recorded extends Blob {
      override slice(start?: number, end?: number): Blob {
        slices.push([start ?? 0, end ?? this.size]);
        return super.slice(start, end);
      }
    }
    return { blob: new Recorded([data]), slices, want, size: data.length };
  };
  /** Slices of at least `bytes` (data, not metadata). */
  const dataSlices = (slices: [number, number][], bytes: number) => slices.filter(([s, e]) => e - s >= bytes).length;
  const tick = () => new Promise((r) => setTimeout(r, 20));

  it('an uncompressed dataset from a Blob streams ahead of the consumer, values as h5py reads them', async () => {
    const { blob, slices, want, size } = slicedBlob();
    const rows = want.chunks[0] / 4; // 17,000 bytes a batch, 9 batches
    await using f = await openHdf5(blob);
    const it = f.batches('/plain', { rows });
    const values: number[] = [];
    const first = await it.next();
    values.push(...(first.value!.getChildAt(0)!.toArray() as Float32Array));
    await tick();
    // While the consumer holds the first batch, the next ones are read: several ahead, not one.
    expect(dataSlices(slices, rows * 4)).toBeGreaterThanOrEqual(4);
    for await (const b of { [Symbol.asyncIterator]: () => it }) {
      expect(b.numRows).toBeLessThanOrEqual(rows);
      values.push(...(b.getChildAt(0)!.toArray() as Float32Array));
    }
    expect(values.length).toBe(want.rows);
    expect(values.reduce((a, v) => a + v, 0)).toBe(want.sum);
    for (const [i, v] of want.samples) expect(values[i]).toBe(v);
    // Each batch reads its rows' bytes once, as one slice (rows of a chunk are contiguous).
    const data = slices.filter(([s, e]) => e - s >= 12_000);
    expect(data.reduce((n, [s, e]) => n + e - s, 0)).toBe(want.rows * 4);
    expect(slices.reduce((n, [s, e]) => n + e - s, 0)).toBeLessThan(1.2 * size);
  });

  it('on a pool, an uncompressed dataset is still read on this thread (nothing to decode): no job, each byte once, values as h5py reads them', async () => {
    const { blob, slices, want } = slicedBlob();
    const rows = want.chunks[0] / 4;
    await using pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
    await using f = await openHdf5(blob, { pool });
    const jobs = pool.stats().jobs;
    const values: number[] = [];
    for await (const b of f.batches('/plain', { rows })) values.push(...(b.getChildAt(0)!.toArray() as Float32Array));
    expect(values.length).toBe(want.rows);
    expect(values.reduce((a, v) => a + v, 0)).toBe(want.sum);
    for (const [i, v] of want.samples) expect(values[i]).toBe(v);
    expect(pool.stats().jobs).toBe(jobs);
    const data = slices.filter(([s, e]) => e - s >= 12_000);
    expect(data.reduce((n, [s, e]) => n + e - s, 0)).toBe(want.rows * 4);
    // A compressed dataset's batches still decode on the workers.
    const { data: types, json } = fixtures.find((x) => x.name.startsWith('types_latest'))!;
    await using g = await openHdf5(new Blob([types as Uint8Array<ArrayBuffer>]), { pool });
    const got: number[] = [];
    for await (const b of g.batches('/ck_deflate', { rows: 300 })) got.push(...b.getChildAt(0)!);
    expect(got).toEqual(json.datasets['/ck_deflate'].rows);
    expect(pool.stats().jobs).toBeGreaterThan(jobs);
  });

  it("lent batches on a pool (lend: true) hold h5py's values while current and reuse a few pieces of shared memory; by default none is shared", async () => {
    const { data, json } = fixtures.find((x) => x.name.startsWith('types_latest'))!;
    const want = json.datasets['/ck_deflate'].rows as number[];
    await using pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
    await using f = await openHdf5(new Blob([data as Uint8Array<ArrayBuffer>]), { pool });
    for (const lend of [true, false]) {
      const got: number[] = [];
      const memory: ArrayBufferLike[] = [];
      // Read while current (the documented contract): 25 batches of 40 rows.
      for await (const b of f.batches('/ck_deflate', { rows: 40, lend })) {
        got.push(...b.getChildAt(0)!);
        memory.push(b.getChildAt(0)!.data[0]!.values.buffer);
      }
      expect(got).toEqual(want);
      const lent = memory.filter((m) => m instanceof SharedArrayBuffer);
      if (!lend) {
        expect(lent.length).toBe(0);
        continue;
      }
      // The jobs taken before a first batch came back had no size to go by; every later
      // batch was lent, in a few pieces used again and again.
      expect(lent.length).toBeGreaterThanOrEqual(memory.length - 2 * pool.size);
      expect(new Set(lent).size).toBeLessThanOrEqual(2 * pool.size + 2);
      expect(new Set(lent).size).toBeLessThan(lent.length / 3);
    }
  });

  it("every dataset of a file from a Blob by batches matches the writer's reader", async () => {
    const { data, json } = fixtures.find((f) => f.name === 'types_latest.h5')!;
    await using f = await openHdf5(new Blob([data as Uint8Array<ArrayBuffer>]));
    // Three batches a dataset (an enum's batches each carry their dictionary: one batch).
    const thirds = (i: Awaited<ReturnType<Hdf5File['info']>>) => (i.dtype.includes('enum') ? undefined : Math.max(1, Math.ceil((i.shape[0] ?? 1) / 3)));
    expect(await fileProblems(byBatches(f, thirds), json)).toEqual([]);
  });

  it('an abort while batches are read ahead stops the reads and leaves the file usable', async () => {
    const { blob, slices, want } = slicedBlob();
    const rows = want.chunks[0] / 8;
    await using f = await openHdf5(blob);
    const ac = new AbortController();
    const it = f.batches('/plain', { rows, signal: ac.signal });
    await it.next();
    ac.abort(new Error('stop'));
    await expect(it.next()).rejects.toThrow('stop');
    await tick();
    const after = slices.length;
    await tick();
    expect(slices.length).toBe(after); // nothing more is read for the stream
    expect(dataSlices(slices, rows * 4)).toBeLessThan(Math.ceil(want.rows / rows));
    // The file reads on: a whole read gives h5py's values.
    const t = await f.read('/plain');
    const v = t.getChildAt(0)!.toArray() as Float32Array;
    expect(v.reduce((a, x) => a + x, 0)).toBe(want.sum);
  });

  it('a Node path is read by positioned reads straight into wasm memory', async () => {
    const { name, json } = fixtures.find((f) => f.name === 'vl_big.h5')!;
    const readSync = fileSystem.readSync!;
    let reads = 0;
    fileSystem.readSync = (fd, dst, position) => {
      reads++;
      expect(dst.buffer.constructor.name).toBe('ArrayBuffer'); // wasm memory, not a Buffer's pool
      expect(dst.byteLength).toBeLessThan(dst.buffer.byteLength);
      return readSync(fd, dst, position);
    };
    try {
      await using f = await openHdf5(`${FIXTURE_DIR}/${name}`);
      expect(await fileProblems(byBatches(f, wholeChunks), json)).toEqual([]);
      expect(reads).toBeGreaterThan(0);
    } finally {
      fileSystem.readSync = readSync;
    }
  });
});
