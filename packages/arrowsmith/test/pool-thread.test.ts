// Pool = thread: on any input, a read on a worker pool answers what the same read on the
// calling thread does: the same rows, or an error with the same code and offset. Property
// test over damaged copies of every fixture (fixed seed), all three formats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../src/node.js';
import { answer, fixtureFile, fixtureFiles, type Format, mutant, READ_ALL } from './hostile.js';
import { rng } from './helpers.js';
import { workerUrl } from './pools.js';

let pool: Pool;
beforeAll(async () => {
  // minJobBytes 0: every read is split, however small the fixture.
  pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
});
afterAll(() => pool.close());

/** Damaged copies per fixture: enough to meet each format's split paths, bounded in time. */
const PER_FIXTURE: Record<Format, number> = { msgpack: 10, tsfile: 5, hdf5: 4 };

describe('pool = thread on damaged inputs', () => {
  for (const format of ['msgpack', 'tsfile', 'hdf5'] as const) {
    it(`${format}: ${PER_FIXTURE[format]} damaged copies of every fixture`, { timeout: 300_000 }, async () => {
      const r = rng(24);
      const differ: string[] = [];
      let n = 0;
      for (const { name, data } of fixtureFiles(format, 400_000)) {
        for (let i = 0; i < PER_FIXTURE[format]; i++) {
          const m = mutant(data, r);
          const thread = await answer(() => READ_ALL[format](m));
          const pooled = await answer(() => READ_ALL[format](m, pool));
          n++;
          if (pooled !== thread) differ.push(`${name} #${i}: thread ${thread.slice(0, 120)} / pool ${pooled.slice(0, 120)}`);
        }
      }
      expect(n).toBeGreaterThan(50);
      expect(differ).toEqual([]);
    });
  }
});

describe('pool = thread: cases the property test found', () => {
  it('HDF5: two damaged places, met in another order by the pieces than by the thread', async () => {
    // vl_implicit.h5 with a heap object size and a collection address damaged: each row
    // range fails, the thread on the heap object first.
    const m = fixtureFile('hdf5', 'vl_implicit.h5');
    m[3896] = 127;
    m[48143] = 5;
    const thread = await answer(() => READ_ALL.hdf5(m));
    expect(thread).toBe('invalid at 48128');
    expect(await answer(() => READ_ALL.hdf5(m, pool))).toBe(thread);
  });
});
