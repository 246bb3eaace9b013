// HDF5 N-D selections (`read(path, { select })`, `batches(path, { select, rows })`) against
// h5py's `ds[selection]` (fixtures/hdf5/select, scripts/fixtures/hdf5/gen_select.py): every
// layout, chunk index, filter, fill value and rank of the fixtures, on one thread and on
// pools, from bytes, a path, a Blob and a URL; selections that do not fit are `argument`.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RecordBatch, Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecodeError } from '../src/errors.js';
import { openHdf5 } from '../src/node.js';
import type { Hdf5Select } from '../src/types.js';
import { FIXTURES, parseExact } from './fixtures.js';
import { diff } from './hdf5-compare.js';
import { valueAt } from './compare.js';
import { MODES, usePools } from './pools.js';

const dir = join(FIXTURES, 'hdf5/select');
const bytes = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
interface Case {
  select: Hdf5Select[];
  shape: number[];
  rows: unknown[];
}
type Files = Record<string, Record<string, { shape: number[]; cases: Case[] }>>;
const files = (parseExact(readFileSync(join(dir, 'select.json'), 'utf8')) as { files: Files }).files;

/** `v` with every compound element replaced by its member `m` (the member's column). */
const member = (v: unknown, m: string): unknown =>
  Array.isArray(v) ? v.map((x) => member(x, m)) : v && typeof v === 'object' && !('hex' in v) ? (v as Record<string, unknown>)[m] : v;

/** Where the rows of `t` (a table or batches) differ from h5py's, or null. */
function problem(t: Table | RecordBatch, rows: unknown[], at: string): string | null {
  if (t.numRows !== rows.length) return `${at}: ${t.numRows} rows, h5py has ${rows.length}`;
  const compound = t.numCols > 1;
  for (let i = 0; i < rows.length; i++) {
    for (let c = 0; c < t.numCols; c++) {
      const name = t.schema.fields[c]!.name;
      const d = diff(valueAt(t.getChildAt(c)!, i), compound ? member(rows[i], name) : rows[i], `${at}[${i}].${name}`);
      if (d) return d;
    }
  }
  return null;
}

/** h5py's whole rows with `select` applied as numpy slices (an index drops its level); as rows. */
function sliced(rows: unknown[], select: Hdf5Select[]): unknown[] {
  const go = (v: unknown, k: number): unknown => {
    if (k === select.length) return v;
    const a = v as unknown[];
    const e = select[k];
    if (typeof e === 'number') return go(a[e], k + 1);
    if (e === null || e === undefined) return a.map((x) => go(x, k + 1));
    const [start, count, step = 1] = e;
    return Array.from({ length: count }, (_, i) => go(a[start + i * step], k + 1));
  };
  const out = go(rows, 0);
  return select.some((e) => typeof e !== 'number') ? (out as unknown[]) : [out];
}

/** Selections for a dataset of `dims`: whole, each dimension's last index, every other index from 1, a mix. */
function selections(dims: number[]): Hdf5Select[][] {
  const out: Hdf5Select[][] = [dims.map(() => null)];
  dims.forEach((d, k) => {
    out.push(dims.map((_, j) => (j === k ? d - 1 : null)));
    out.push(dims.map((_, j) => (j === k ? [Math.min(1, d), Math.ceil((d - 1) / 2), 2] : null)));
  });
  out.push(dims.map((d, k) => (k % 3 === 0 ? Math.floor(d / 2) : k % 3 === 1 ? [0, Math.ceil(d / 2), 2] : [d - 1, 1])));
  return out;
}

const shapeOf = (t: Table | RecordBatch) => JSON.parse(t.schema.metadata.get('shape') ?? 'null') as number[] | null;

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const body = readFileSync(join(dir, new URL(req.url!, 'http://x').pathname.slice(1)));
    if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')!;
    const [a, b] = [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
    res.writeHead(206, { 'Content-Length': b + 1 - a, 'Content-Range': `bytes ${a}-${b}/${body.length}` }).end(body.subarray(a, b + 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('HDF5 selections', () => {
  usePools();

  for (const name of Object.keys(files)) {
    for (const { mode, options } of MODES) {
      it(`${name}: every selection equals h5py's (${mode})`, async () => {
        await using f = await openHdf5(bytes(name), options());
        const problems: string[] = [];
        let n = 0;
        for (const [path, d] of Object.entries(files[name]!)) {
          for (const c of d.cases) {
            const at = `${path}${JSON.stringify(c.select)}`;
            const t = await f.read(path, { select: c.select });
            const p = problem(t, c.rows, at);
            if (p) problems.push(p);
            if (JSON.stringify(shapeOf(t)) !== JSON.stringify(c.shape)) problems.push(`${at}: shape ${JSON.stringify(shapeOf(t))}, h5py ${JSON.stringify(c.shape)}`);
            n++;
          }
        }
        expect(problems).toEqual([]);
        expect(n).toBeGreaterThan(250);
      });
    }
  }

  for (const { mode, options } of MODES) {
    it(`batches({ select, rows }) cut the first kept dimension (${mode})`, async () => {
      await using f = await openHdf5(bytes('select_latest.h5'), options());
      const problems: string[] = [];
      for (const path of ['/k3', '/k4', '/k2_fill', '/compound', '/vlstr', '/c3']) {
        for (const c of files['select_latest.h5']![path]!.cases) {
          const at = `${path}${JSON.stringify(c.select)}`;
          const got: unknown[][] = [];
          let batches = 0;
          for await (const b of f.batches(path, { select: c.select, rows: 2 })) {
            batches++;
            const shape = shapeOf(b)!;
            if (c.shape.length && (shape[0] !== b.numRows || JSON.stringify(shape.slice(1)) !== JSON.stringify(c.shape.slice(1)))) problems.push(`${at}: batch shape ${JSON.stringify(shape)}`);
            if (b.numRows > 2) problems.push(`${at}: a batch of ${b.numRows} rows`);
            for (let i = 0; i < b.numRows; i++) got.push(b.schema.fields.map((_, k) => valueAt(b.getChildAt(k)!, i)));
          }
          const want = c.rows.map((r) => (path === '/compound' ? ['a', 'b', 'c'].map((m) => member(r, m)) : [r]));
          const d = diff(got, want, at);
          if (d) problems.push(d);
          const count = c.shape.length === 0 ? 1 : Math.max(1, Math.ceil(c.shape[0]! / 2));
          if (batches !== count) problems.push(`${at}: ${batches} batches, expected ${count}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('reads selections from a path, a Blob and a URL', async () => {
    const name = 'select_earliest.h5';
    for (const source of [join(dir, name), new Blob([bytes(name)]), `${base}/${name}`]) {
      await using f = await openHdf5(source);
      const problems: string[] = [];
      for (const path of ['/k3', '/k2_gzip_shuffle', '/vlstr', '/c3', '/compact2', '/scalar']) {
        for (const c of files[name]![path]!.cases) {
          const p = problem(await f.read(path, { select: c.select }), c.rows, `${String(source).slice(0, 30)} ${path}${JSON.stringify(c.select)}`);
          if (p) problems.push(p);
        }
      }
      expect(problems).toEqual([]);
    }
  });

  for (const { mode, options } of MODES) {
    it(`a selection that does not fit is an argument error (${mode})`, async () => {
      await using f = await openHdf5(bytes('select_latest.h5'), options());
      const bad: [string, unknown[]][] = [
        ['/k3', [null, null]],
        ['/k3', [9, null, null]],
        ['/k3', [[0, 1, 0], null, null]],
        ['/k3', [[5, 3, 2], null, null]],
        ['/k3', [[0, 3, -1], null, null]],
        ['/k3', [-1, null, null]],
        ['/k3', [1.5, null, null]],
        ['/k3', [[0], null, null]],
        ['/k3', ['0', null, null]],
        ['/scalar', [null]],
      ];
      for (const [path, select] of bad) {
        const e = await f.read(path, { select: select as Hdf5Select[] }).catch((x: unknown) => x);
        expect(e, `${path} ${JSON.stringify(select)}`).toBeInstanceOf(DecodeError);
        expect((e as DecodeError).code, `${path} ${JSON.stringify(select)}: ${(e as Error).message}`).toBe('argument');
        expect((e as DecodeError).offset).toBeUndefined();
        const b = await (async () => {
          for await (const _ of f.batches(path, { select: select as Hdf5Select[] }));
        })().catch((x: unknown) => x);
        expect((b as DecodeError).code, `batches ${path} ${JSON.stringify(select)}`).toBe('argument');
      }
      const e = await f.read('/k3', { select: [null, null, null], start: 1 }).catch((x: unknown) => x);
      expect((e as DecodeError).code).toBe('argument');
      // Nothing selected: an empty table of the result's shape.
      const t = await f.read('/k3', { select: [null, [10, 0], 2] });
      expect(t.numRows).toBe(9);
      expect(shapeOf(t)).toEqual([9, 0]);
      expect(String(t.schema.fields[0]!.type)).toBe('FixedSizeList[0]<Uint16>');
    });
  }

  for (const { mode, options } of MODES) {
    it(`selections of virtual datasets and external storage equal h5py's (${mode})`, async () => {
      const problems: string[] = [];
      const vdsDir = join(FIXTURES, 'hdf5/vds');
      const vds = parseExact(readFileSync(join(vdsDir, 'vds_latest.json'), 'utf8')) as { datasets: Record<string, { shape: number[]; rows: unknown[] }>; errors: Record<string, string> };
      await using v = await openHdf5(join(vdsDir, 'vds_latest.h5'), { ...options(), resolve: (n) => (existsSync(join(vdsDir, n)) ? join(vdsDir, n) : undefined) });
      for (const [path, d] of Object.entries(vds.datasets)) {
        if (path in vds.errors) continue;
        for (const sel of selections(d.shape)) {
          const t = await v.read(path, { select: sel });
          const p = problem(t, sliced(d.rows, sel), `vds ${path}${JSON.stringify(sel)}`);
          if (p) problems.push(p);
          const got: unknown[] = [];
          for await (const b of v.batches(path, { select: sel, rows: 2 })) for (let i = 0; i < b.numRows; i++) got.push(valueAt(b.getChildAt(0)!, i));
          const d2 = diff(got, sliced(d.rows, sel), `vds batches ${path}${JSON.stringify(sel)}`);
          if (d2) problems.push(d2);
        }
      }
      const extDir = join(FIXTURES, 'hdf5/extstore');
      const ext = parseExact(readFileSync(join(extDir, 'extstore.json'), 'utf8')) as { datasets: Record<string, { shape: number[]; rows: unknown[] }> };
      await using e = await openHdf5(join(extDir, 'extstore.h5'), { ...options(), resolve: (n) => join(extDir, n) });
      for (const [path, d] of Object.entries(ext.datasets)) {
        for (const sel of selections(d.shape)) {
          const p = problem(await e.read(path, { select: sel }), sliced(d.rows, sel), `extstore ${path}${JSON.stringify(sel)}`);
          if (p) problems.push(p);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
