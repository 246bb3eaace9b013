// HDF5 virtual datasets (fixtures/hdf5/vds, scripts/fixtures/hdf5/gen_vds.py): h5py's
// VirtualLayout stacking, strided concatenation, sparse maps with fill values, sources in
// this file and in other files (relative names, a subfolder), a missing source file. The
// expected values are h5py's reads through each VDS file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../src/errors.js';
import { openHdf5 } from '../src/node.js';
import { FIXTURES, parseExact } from './fixtures.js';
import { fileProblems } from './hdf5-compare.js';
import { MODES, usePools } from './pools.js';

const dir = join(FIXTURES, 'hdf5/vds');
const bytes = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
interface Expected {
  datasets: Record<string, { shape: number[]; rows: unknown[] }>;
  errors: Record<string, string>;
}
const expected = (name: string) => {
  const json = parseExact(readFileSync(join(dir, `${name}.json`), 'utf8')) as Expected;
  // What we refuse (h5py reads it) is checked as an error, not as values.
  const datasets = Object.fromEntries(Object.entries(json.datasets).filter(([p]) => !(p in json.errors)));
  return { ...json, datasets };
};

/** A resolver over the fixture folder that records what it was asked for (missing.h5 and p_2.h5 do not exist). */
function folder(asked: string[] = []) {
  return (name: string) => {
    asked.push(name);
    return existsSync(join(dir, name)) ? bytes(name) : undefined;
  };
}

const flat = (rows: unknown): number[] => (Array.isArray(rows) ? rows.flatMap(flat) : [rows as number]);

describe('HDF5 virtual datasets', () => {
  usePools();

  for (const name of ['vds_latest', 'vds_earliest']) {
    for (const { mode, options } of MODES) {
      it(`${name}: every virtual dataset equals h5py's read (${mode})`, async () => {
        const asked: string[] = [];
        await using f = await openHdf5(bytes(`${name}.h5`), { ...options(), resolve: folder(asked) });
        expect(await fileProblems(f, expected(name))).toEqual([]);
        // Each source file is opened once, however many mappings and reads use it.
        expect(asked.sort()).toEqual(['missing.h5', 'p_0.h5', 'p_1.h5', 'p_2.h5', 'src_a.h5', 'sub/src_b.h5']);
      });
    }
  }

  it('row selections and batches cut mappings at any row, from a path source too', async () => {
    const json = expected('vds_latest');
    for (const source of [bytes('vds_latest.h5'), join(dir, 'vds_latest.h5'), new Blob([bytes('vds_latest.h5')])]) {
      await using f = await openHdf5(source, { resolve: (n) => (existsSync(join(dir, n)) ? join(dir, n) : undefined) });
      for (const path of ['/stack', '/interleave', '/sparse', '/rows']) {
        const rows = json.datasets[path]!.rows;
        const t = await f.read(path, { start: 1, count: 2 });
        expect(flat(t.getChildAt(0)!.toJSON().map((v) => (v && typeof v === 'object' ? [...(v as Iterable<unknown>)].map((x) => (x && typeof x === 'object' ? [...(x as Iterable<unknown>)] : x)) : v)))).toEqual(flat(rows.slice(1, 3)));
        const got: unknown[] = [];
        for await (const b of f.batches(path, { rows: 3 })) {
          expect(b.numRows).toBeLessThanOrEqual(3);
          for (let i = 0; i < b.numRows; i++) {
            const v = b.getChildAt(0)!.get(i) as unknown;
            got.push(v && typeof v === 'object' ? [...(v as Iterable<unknown>)].map((x) => (x && typeof x === 'object' ? [...(x as Iterable<unknown>)] : x)) : v);
          }
        }
        expect(flat(got)).toEqual(flat(rows));
      }
    }
  });

  it('info describes the virtual layout; a missing source file reads as the fill value', async () => {
    await using f = await openHdf5(bytes('vds_latest.h5'), { resolve: folder() });
    const info = await f.info('/stack');
    expect(info.layout).toBe('virtual');
    expect(info.shape).toEqual([4, 5, 6]);
    const json = expected('vds_latest');
    expect([...(await f.read('/missing')).getChildAt(0)!.toArray()]).toEqual(json.datasets['/missing']!.rows);
  });

  it('without a resolver: sources in this file read, others are unsupported naming the file', async () => {
    await using f = await openHdf5(bytes('vds_latest.h5'));
    const json = expected('vds_latest');
    expect([...(await f.read('/concat')).getChildAt(0)!.toArray()].map(Number)).toEqual(json.datasets['/concat']!.rows);
    const e = await f.read('/interleave').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DecodeError);
    expect((e as DecodeError).code).toBe('unsupported');
    expect((e as DecodeError).message).toContain('src_a.h5:/f');
  });
});
