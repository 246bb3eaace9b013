// TsFile devices flushed in chunk groups whose times go backwards, overlap and repeat
// (scripts/fixtures/tsfile/gen_java_order.sh: Java writers 0.13.4, 1.0.0, 2.1.0, 2.2.1): a
// whole read, a time range, batches at many sizes and pools give every point the same
// version's Java reader returns, in time order. And for every file, source and batch size,
// `batches({ rows })` put together is `read()`.
import type { RecordBatch } from 'apache-arrow';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTsFile } from '../src/node.js';
import type { TsFile } from '../src/formats/tsfile/file.js';
import { fixturePairs } from './fixtures.js';
import { MODES, usePools } from './pools.js';
import { concat, orderMismatches, rowTexts } from './tsfile-order-helpers.js';

const fixtures = fixturePairs('tsfile', '.tsfile');
const ordered = fixtures.filter((f) => f.name.includes('_order_'));
const collect = async (it: AsyncIterable<RecordBatch>) => {
  const out: RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
};

usePools();

describe('TsFile out-of-order chunk groups', () => {
  it('has the fixtures of four Java versions, both models', () => {
    expect(ordered.length).toBe(10);
  });

  for (const { mode, options } of MODES) for (const { name, data, json } of ordered) {
    it(`${name}: read, time range and batches give the Java reader's points in time order (${mode})`, async () => {
      const f = await openTsFile(data, options());
      const table = json.table;
      for (const q of json.queries) {
        const range = { table, start: q.start ?? undefined, end: q.end ?? undefined };
        expect(orderMismatches(await f.read(range), json, q, json.queries[0]), `read ${q.start}..${q.end}`).toEqual([]);
        for (const rows of [1, 7, 64]) {
          const batches = await collect(f.batches({ ...range, rows }));
          for (const b of batches) expect(b.numRows).toBeLessThanOrEqual(rows);
          expect(orderMismatches(concat(batches), json, q, json.queries[0]), `batches of ${rows}, ${q.start}..${q.end}`).toEqual([]);
        }
      }
    }, 60_000);
  }
});

// The invariant: `batches({ rows })` put together is `read()` (same rows, values, nulls), at
// every batch size, for in-order files whose non-aligned series have different point sets
// (a batch once paired a series' values with the wrong times) and the out-of-order ones.
describe('TsFile batches() put together are read()', () => {
  // Every size: the C++ file (bug seen at sizes 2 to 184) and the newest Java's out-of-order
  // files; some sizes: the larger Java tree file and the oldest Java's.
  const everySize = ['cpp_tree_mixed', 'java221_order_nonaligned', 'java221_order_aligned', 'java221_order_table'];
  const names = [...everySize, 'java_tree_nonaligned', 'java0134_order_nonaligned'];
  const sizes = [...Array.from({ length: 200 }, (_, i) => i + 1), 256, 333, 1000];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arrowsmith-order-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const check = async (f: TsFile, table: string | undefined, rowsList: number[], what: string) => {
    const want = rowTexts(await f.read({ table }));
    for (const rows of rowsList) {
      const got = rowTexts(concat(await collect(f.batches({ table, rows }))));
      if (got.length !== want.length || got.some((r, i) => r !== want[i])) {
        const i = got.findIndex((r, k) => r !== want[k]);
        expect.fail(`${what}, rows ${rows}: ${got.length} rows, want ${want.length}; first difference at row ${i}: ${got[i]} want ${want[i]}`);
      }
    }
  };

  for (const name of everySize) {
    it(`${name}: in memory, at every batch size`, async () => {
      const { data, json } = fixtures.find((f) => f.name === `${name}.tsfile`)!;
      await check(await openTsFile(data), json.table, sizes, name);
    }, 60_000);
  }

  it('from a path and a Blob, at some batch sizes', async () => {
    for (const name of names) {
      const { data, json } = fixtures.find((f) => f.name === `${name}.tsfile`)!;
      const path = join(dir, `${name}.tsfile`);
      writeFileSync(path, data);
      await check(await openTsFile(data), json.table, [2, 3, 17, 184], `${name} (memory)`);
      await check(await openTsFile(path), json.table, [1, 2, 64, 184], `${name} (path)`);
      await check(await openTsFile(await openAsBlob(path)), json.table, [2, 5, 99], `${name} (Blob)`);
    }
  }, 60_000);

  it('on a pool (device and time-window jobs), at some batch sizes', async () => {
    for (const { options } of MODES.slice(1)) {
      for (const name of names) {
        const { data, json } = fixtures.find((f) => f.name === `${name}.tsfile`)!;
        await check(await openTsFile(data, options()), json.table, [1, 3, 50, 184], `${name} (pool)`);
      }
    }
  }, 60_000);
});
