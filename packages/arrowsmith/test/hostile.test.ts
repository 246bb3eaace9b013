// Hostile inputs through the public API, on the calling thread: damaged copies of every
// fixture (fixed seed), cut files from every kind of source, and allocation bombs for each
// format. Each case ends in rows or a typed DecodeError, within 2 s and 64 MiB + 4 × input
// of wasm memory growth (see hostile.ts). The network cases are in http.test.ts, pool =
// thread in pool-thread.test.ts, the long run in soak.test.ts.
import { describe, expect, it } from 'vitest';
import type { FileSource, RangeReader } from '../src/node.js';
import { rng } from './helpers.js';
import { answer, bounded, expectFails, fixtureFile, fixtureFiles, type Format, mutant, READ_ALL } from './hostile.js';

/** The same bytes as every kind of source a file reader takes. */
function sources(b: Uint8Array): [string, () => FileSource][] {
  return [
    ['bytes', () => b],
    ['ArrayBuffer', () => b.slice().buffer],
    ['Blob', () => new Blob([b.slice()])],
    ['reader', () => ({ size: b.length, read: async (o: number, l: number) => b.subarray(o, o + l) }) satisfies RangeReader],
  ];
}

describe('typed always: truncated and damaged files from every source', () => {
  it('an HDF5 address pointing at the very end of the file', async () => {
    // The zero-length read at the end was asked of the host again and again ("internal
    // error: bytes N:0 were supplied but asked for again").
    const m = fixtureFile('hdf5', 'vl_fill_earliest.h5');
    new DataView(m.buffer).setBigUint64(64, BigInt(m.length), true);
    for (const [kind, src] of sources(m)) {
      const got = await answer(() => READ_ALL.hdf5(src()));
      expect(got, kind).toMatch(/^\/|^(truncated|invalid|out-of-bounds) at \d+$/);
    }
  });

  it('a source that returns fewer bytes than its size says: truncated where it ends', async () => {
    for (const format of ['tsfile', 'hdf5'] as const) {
      const b = fixtureFiles(format, 100_000)[0]!.data;
      const have = b.subarray(0, b.length >> 1);
      const lying: RangeReader = { size: b.length, read: async (o, l) => have.subarray(o, o + l) };
      const e = await expectFails(() => READ_ALL[format](lying), ['truncated'], b.length);
      // The first byte the source failed to give: its real end, or the start of a read past it.
      expect(e.offset, format).toBeGreaterThanOrEqual(have.length);
      expect(e.offset, format).toBeLessThan(b.length);
    }
  });

  for (const format of ['tsfile', 'hdf5', 'msgpack'] as const) {
    it(`${format}: every fixture cut at 12 places, from every source`, { timeout: 300_000 }, async () => {
      const r = rng(2024);
      for (const { name, data } of fixtureFiles(format, 400_000)) {
        for (let i = 0; i < 12; i++) {
          const cut = data.subarray(0, Math.floor(r() * data.length));
          for (const [kind, src] of format === 'msgpack' ? sources(cut).slice(0, 1) : sources(cut)) {
            const out = await bounded(() => READ_ALL[format](src()), cut.length);
            // A cut can leave a shorter valid file (a MessagePack stream of whole rows).
            if (out.error === undefined) expect(format, `${name} cut at ${cut.length} (${kind}) decoded`).toBe('msgpack');
          }
        }
      }
    });
  }
});

/** Damaged copies per fixture (the pool test takes other copies of the same fixtures). */
const PER_FIXTURE: Record<Format, number> = { msgpack: 30, tsfile: 8, hdf5: 6 };

describe('damaged copies of every fixture (fixed seed): rows or a typed error, bounded', () => {
  for (const format of ['msgpack', 'tsfile', 'hdf5'] as const) {
    it(`${format}: ${PER_FIXTURE[format]} copies of every fixture`, { timeout: 300_000 }, async () => {
      const r = rng(99);
      let n = 0;
      for (const { data } of fixtureFiles(format)) {
        for (let i = 0; i < PER_FIXTURE[format]; i++) {
          const m = mutant(data, r);
          await bounded(() => READ_ALL[format](m), m.length);
          n++;
        }
      }
      expect(n).toBeGreaterThan(100);
    });
  }
});
