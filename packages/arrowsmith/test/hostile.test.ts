// Hostile inputs through the public API, on the calling thread: damaged copies of every
// fixture (fixed seed), cut files from every kind of source, and allocation bombs for each
// format. Each case ends in rows or a typed DecodeError, within 2 s and 64 MiB + 4 × input
// of wasm memory growth (see hostile.ts). The network cases are in http.test.ts, pool =
// thread in pool-thread.test.ts, the long run in soak.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { FileSource, RangeReader } from '../src/node.js';
import { rng } from './helpers.js';
import { answer, bounded, expectFails, fixtureFile, fixtureFiles, type Format, mutant, READ_ALL } from './hostile.js';

/** Worst cases met, printed at the end (the figures in docs/robustness.md). */
const FIGURES: { format: string; name: string; ms: number; grew: number; got: string }[] = [];
afterAll(() => {
  const worst = new Map<string, { ms: number; grew: number }>();
  for (const f of FIGURES) {
    const w = worst.get(f.format) ?? { ms: 0, grew: 0 };
    worst.set(f.format, { ms: Math.max(w.ms, f.ms), grew: Math.max(w.grew, f.grew) });
  }
  for (const f of FIGURES.filter((x) => x.got)) console.log(`hostile: ${f.format} ${f.name}: ${f.got}, ${f.ms.toFixed(0)} ms CPU, +${(f.grew / 2 ** 20).toFixed(1)} MiB`);
  for (const [format, w] of worst) console.log(`hostile worst: ${format}: ${w.ms.toFixed(0)} ms CPU, +${(w.grew / 2 ** 20).toFixed(1)} MiB wasm memory`);
});

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
            FIGURES.push({ format, name: '', ms: out.cpuMs, grew: out.grew, got: '' });
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
          const out = await bounded(() => READ_ALL[format](m), m.length);
          FIGURES.push({ format, name: '', ms: out.cpuMs, grew: out.grew, got: '' });
          n++;
        }
      }
      expect(n).toBeGreaterThan(100);
    });
  }
});

/** `b` with the 8-byte little-endian `from` at its first occurrence (past `after`) set to `to`. */
function patchU64(b: Uint8Array, from: bigint, to: bigint, after = 0): Uint8Array {
  const m = b.slice();
  const dv = new DataView(m.buffer);
  for (let i = after; i + 8 <= m.length; i++) {
    if (dv.getBigUint64(i, true) === from) {
      dv.setBigUint64(i, to, true);
      return m;
    }
  }
  throw new Error(`no ${from} in the file`);
}

const BIG = 0xffff_ffff;
const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

/**
 * Inputs whose headers claim far more than their bytes hold: each must fail (or give the
 * rows its bytes hold) without allocating for the claim: under 64 MiB + 4 × input.
 */
const BOMBS: { format: Format; name: string; input: () => Uint8Array }[] = [
  // MessagePack: containers and strings claiming 4 G entries or bytes, with none there.
  { format: 'msgpack', name: 'array32 of 4 G rows, none present', input: () => new Uint8Array([0xdd, ...be32(BIG)]) },
  { format: 'msgpack', name: 'array32 of 4 G maps, one present', input: () => new Uint8Array([0xdd, ...be32(BIG), 0x81, 0xa1, 0x61, 0x01]) },
  { format: 'msgpack', name: 'map32 of 4 G keys', input: () => new Uint8Array([0x91, 0xdf, ...be32(BIG), 0xa1, 0x61]) },
  { format: 'msgpack', name: 'str32 of 4 GB', input: () => new Uint8Array([0x91, 0xdb, ...be32(BIG), 0x61]) },
  { format: 'msgpack', name: 'bin32 of 4 GB', input: () => new Uint8Array([0x91, 0xc6, ...be32(BIG), 0x61]) },
  { format: 'msgpack', name: 'ext32 of 4 GB', input: () => new Uint8Array([0x91, 0xc9, ...be32(BIG), 0x01]) },
  { format: 'msgpack', name: '1 M nested arrays', input: () => new Uint8Array(1 << 20).fill(0x91) },
  { format: 'msgpack', name: '1 M rows, each a map claiming 64 K keys', input: () => {
      const m = new Uint8Array(5 + 3 * (1 << 20)).fill(0xff);
      m.set([0xdd, ...be32(1 << 20)]);
      for (let i = 5; i < m.length; i += 3) m[i] = 0xde;
      return m;
    },
  },
  // TsFile: a footer claiming a 2 GiB index; a page claiming the most its size field holds.
  {
    format: 'tsfile',
    name: 'footer: a 2 GiB metadata index',
    input: () => {
      const m = fixtureFile('tsfile', 'cpp_plain_snappy.tsfile');
      m.set(be32(0x7fff_ffff), m.length - 10); // the size field before the closing magic
      return m;
    },
  },
  {
    format: 'tsfile',
    name: 'footer: metadata size past the start of the file',
    input: () => {
      const m = fixtureFile('tsfile', 'cpp_plain_snappy.tsfile');
      new DataView(m.buffer).setInt32(m.length - 10, m.length);
      return m;
    },
  },
  // HDF5 (version-0 superblock and version-1 object headers: no checksums to stop the edit):
  // dataspaces claiming 2^40 rows (a chunked dataset, its chunks then absent: fill values;
  // a VL dataset), an end-of-file address of 2^62.
  { format: 'hdf5', name: 'dataspace of 2^40 rows, chunks absent', input: () => patchU64(fixtureFile('hdf5', 'types_earliest.h5'), 1000n, 1n << 40n) },
  { format: 'hdf5', name: 'VL dataset of 2^40 rows', input: () => patchU64(fixtureFile('hdf5', 'vl_earliest.h5'), 1000n, 1n << 40n) },
  { format: 'hdf5', name: 'end-of-file address of 2^62', input: () => patchU64(fixtureFile('hdf5', 'vl_earliest.h5'), BigInt(fixtureFile('hdf5', 'vl_earliest.h5').length), 1n << 62n) },
];

describe('allocation bombs: claims far beyond the bytes', () => {
  for (const { format, name, input } of BOMBS) {
    it(`${format}: ${name}`, { timeout: 60_000 }, async () => {
      const b = input();
      const out = await bounded(() => READ_ALL[format](b), b.length);
      FIGURES.push({ format, name, ms: out.cpuMs, grew: out.grew, got: out.error === undefined ? 'rows' : `${(out.error as { code: string }).code}` });
    });
  }
});
