// HDF5 external storage (H5Pset_external: a dataset's raw data in other files), written by
// libhdf5's C API (scripts/fixtures/hdf5/gen_extstore.sh); expected values read by h5py.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHdf5 } from '../src/node.js';
import { FIXTURES } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const dir = join(FIXTURES, 'hdf5/extstore');
const main = new Uint8Array(readFileSync(join(dir, 'extstore.h5')));
const json = JSON.parse(readFileSync(join(dir, 'extstore.json'), 'utf8')) as {
  datasets: Record<string, { rows: unknown[]; external: [string, number, number][] }>;
};
const rows = (t: { getChildAt(i: number): { toArray(): unknown } | null }) => JSON.parse(JSON.stringify([...(t.getChildAt(0) as unknown as Iterable<unknown>)]));

describe('HDF5 external storage', () => {
  usePools();

  for (const { mode, options } of MODES) {
    it(`reads raw data from the files the resolver gives, as h5py does (${mode})`, async () => {
      const asked: string[] = [];
      const resolve = (name: string) => {
        asked.push(name);
        return join(dir, name); // a Node path: read by range
      };
      await using f = await openHdf5(main, { ...options(), resolve });
      for (const [p, d] of Object.entries(json.datasets)) {
        expect(rows(await f.read(p)), p).toEqual(d.rows);
        expect(rows(await f.read(p, { start: 1, count: 2 })), p).toEqual(d.rows.slice(1, 3));
        const got: unknown[] = [];
        for await (const b of f.batches(p, { rows: 5 })) got.push(...rows(b));
        expect(got, p).toEqual(d.rows);
      }
      // Each file resolved once.
      expect(asked.sort()).toEqual(['ext_a.bin', 'ext_b.bin']);
    });
  }

  it('without a resolver, or one without the file, the read fails naming the files', async () => {
    await using f = await openHdf5(main);
    expect((await f.info('/ints')).unsupported).toMatch(/^external storage .*ext_a\.bin, ext_b\.bin/);
    await expect(f.read('/ints')).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(/external storage.*ext_a\.bin/) });
    expect(rows(await f.read('/inside'))).toEqual(json.datasets['/inside']!.rows);
    await using g = await openHdf5(main, { resolve: (n) => (n === 'ext_a.bin' ? join(dir, n) : undefined) });
    await expect(g.read('/ints')).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/ext_b\.bin/) });
  });
});
