// `maxReadBytes`: a file read that needs more memory than its limit (per read, else the
// file's, else 1 GiB) fails fast with `too-large` naming the bytes, checked against what the
// file claims before anything is allocated, on the calling thread and on a pool alike.
import { describe, expect, it } from 'vitest';
import { type DecodeError, openHdf5, openTsFile, type Pool } from '../src/node.js';
import { expectFails, fixtureFile, rows, wasmMemory } from './hostile.js';
import { fixturePairs } from './fixtures.js';
import { MODES, usePools } from './pools.js';

usePools();

const TS = 'cpp_plain_snappy.tsfile';

/** The error of `f`, which must be `too-large` naming more bytes than `limit`, with advice. */
async function tooLarge(f: () => Promise<unknown>, limit: number, input: number): Promise<DecodeError> {
  const e = await expectFails(f, ['too-large'], input);
  expect(e.bytesNeeded, e.message).toBeGreaterThan(limit);
  expect(e.message).toContain(String(e.bytesNeeded));
  expect(e.message).toMatch(/maxReadBytes/);
  return e;
}

describe('maxReadBytes', () => {
  for (const { mode, options } of MODES) {
    it(`TsFile, ${mode}: per read and per file; a larger limit reads the same rows`, { timeout: 60_000 }, async () => {
      const data = fixtureFile('tsfile', TS);
      const pool: Pool | undefined = options().pool;
      const f = await openTsFile(data, { pool });
      const whole = rows(await f.read());
      const e = await tooLarge(() => f.read({ maxReadBytes: 1000 }), 1000, data.length);
      expect(e.message).toMatch(/batches|fewer/);
      expect(rows(await f.read({ maxReadBytes: 64 << 20 }))).toBe(whole);
      // Batches take the limit too.
      await tooLarge(async () => {
        for await (const _ of f.batches({ maxReadBytes: 1000 })) void _;
      }, 1000, data.length);
      f.close();
      const small = await openTsFile(data, { pool, maxReadBytes: 1000 });
      await tooLarge(() => small.read(), 1000, data.length);
      // A read's own limit overrides the file's.
      expect(rows(await small.read({ maxReadBytes: 64 << 20 }))).toBe(whole);
      small.close();
    });

    it(`HDF5, ${mode}: per read and per file`, { timeout: 60_000 }, async () => {
      const { data, json } = fixturePairs('hdf5', '.h5').find((f) => f.name === 'vl_big.h5')!;
      const path = Object.keys(json.datasets)[0]!;
      const pool: Pool | undefined = options().pool;
      const refused = (f: () => Promise<unknown>) => tooLarge(f, 1000, data.length);
      const f = await openHdf5(data, { pool });
      await refused(() => f.read(path, { maxReadBytes: 1000 }));
      expect((await f.read(path, { maxReadBytes: 64 << 20 })).numRows).toBe(json.datasets[path].shape[0]);
      await refused(async () => {
        for await (const _ of f.batches(path, { maxReadBytes: 1000 })) void _;
      });
      f.close();
      const small = await openHdf5(data, { pool, maxReadBytes: 1000 });
      await refused(() => small.read(path));
      expect((await small.read(path, { maxReadBytes: 64 << 20 })).numRows).toBe(json.datasets[path].shape[0]);
      small.close();
    });
  }

  it('a page claiming more than the limit is refused before it is decompressed', async () => {
    // Find the first page (the offset of a read over a 1-byte limit), then make its header
    // claim the most its one-byte size field can hold: the claim, not the content, is refused.
    const data = fixtureFile('tsfile', TS);
    const probe = await openTsFile(data);
    const at = (await expectFails(() => probe.read({ maxReadBytes: 1 }), ['too-large'])).offset!;
    probe.close();
    expect(data[at]! & 0x80, 'a one-byte size').toBe(0);
    const claim = 0x7f;
    expect(claim).toBeGreaterThan(data[at]!);
    const hostile = data.slice();
    hostile[at] = claim;
    const f = await openTsFile(hostile);
    const e = await tooLarge(() => f.read({ maxReadBytes: 100 }), 100, data.length);
    expect([e.offset, e.bytesNeeded]).toEqual([at, claim]);
    // Over the limit, the same file is a decompression error: the check came first.
    await expectFails(() => f.read(), ['compression', 'invalid']);
    f.close();
  });

  it('a limit that is not a positive number is a RangeError', async () => {
    const data = fixtureFile('tsfile', TS);
    for (const bad of [0, -1, Number.NaN]) {
      await expect(openTsFile(data, { maxReadBytes: bad })).rejects.toThrow(RangeError);
      const f = await openTsFile(data);
      await expect(f.read({ maxReadBytes: bad })).rejects.toThrow(RangeError);
      f.close();
    }
  });

  it('a refused read allocates nothing it was refused for', async () => {
    const data = fixtureFile('tsfile', TS);
    const f = await openTsFile(data);
    await f.read();
    const before = wasmMemory();
    const e = await tooLarge(() => f.read({ maxReadBytes: 1000 }), 1000, data.length);
    expect(wasmMemory() - before).toBeLessThan(e.bytesNeeded!);
    f.close();
  });
});
