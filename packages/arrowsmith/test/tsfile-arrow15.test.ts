// An app on apache-arrow 15 (inside the package's peer range): the package's Arrow classes
// are Arrow 15's here (src/arrow/lib.ts mocked to re-export them), which holds Int64-backed
// columns (timestamps) as pairs of Int32 words. `batches()` windows read the last time of a
// batch, and the CLI's cells read timestamps, from the bytes, so they work on either layout.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../src/arrow/lib.js', async () => {
  const a = await import('apache-arrow-15');
  return { ...a };
});

const { openTsFile } = await import('../src/node.js');
const { cellAt } = await import('../src/cli/format.js');
const { fixturePairs } = await import('./fixtures.js');
const { rowTexts } = await import('./tsfile-order-helpers.js');
const a15 = await import('apache-arrow-15');
// Batches as one Arrow 15 table (one schema: each batch has its own dictionary types).
const concat = (bs: InstanceType<typeof a15.RecordBatch>[]) => new a15.Table(bs.map((b) => new a15.RecordBatch(bs[0]!.schema, b.data)));

describe('TsFile on apache-arrow 15', () => {
  const fixtures = fixturePairs('tsfile', '.tsfile');
  it('the tables are Arrow 15 ones, timestamps in Int32 words', async () => {
    const { data } = fixtures.find((f) => f.name === 'java221_order_table.tsfile')!;
    const t = await (await openTsFile(data)).read({});
    expect(t).toBeInstanceOf(a15.Table);
    expect(t.getChild('time')!.data[0]!.values).toBeInstanceOf(Int32Array);
  });

  for (const name of ['cpp_long_pages_ts2diff_lz4', 'java221_order_aligned', 'java221_order_table', 'java_tree_nonaligned']) {
    it(`batches() put together are read(): ${name}`, async () => {
      const { data, json } = fixtures.find((f) => f.name === `${name}.tsfile`)!;
      const f = await openTsFile(data);
      const want = rowTexts(await f.read({ table: json.table }));
      for (const rows of name.startsWith('cpp') ? [50, 150] : [1, 7, 50, 150]) {
        const batches: InstanceType<typeof a15.RecordBatch>[] = [];
        // A bound: a window that never ends would otherwise hang the test.
        for await (const b of f.batches({ table: json.table, rows })) {
          batches.push(b as never); // (typed as the Arrow the package builds against, 15 at run time)
          if (batches.length > want.length + 1) break;
        }
        expect(rowTexts(concat(batches) as never), `rows ${rows}`).toEqual(want);
      }
    }, 60_000);
  }

  it('CLI cells show timestamps exactly', async () => {
    const { data } = fixtures.find((f) => f.name === 'java221_order_table.tsfile')!;
    const t = await (await openTsFile(data)).read({});
    expect(cellAt(t.getChild('time')!, 0)).toBe('1969-12-31T23:59:59.940Z');
  });
});
