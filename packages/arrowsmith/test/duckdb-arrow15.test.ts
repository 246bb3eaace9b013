// An app on apache-arrow 15: the package's Arrow classes and IPC writer are Arrow 15's here
// (src/arrow/lib.ts and src/arrow/ipc.ts mocked to re-export them), Int64 columns held as
// Int32 word pairs. insertTable writes the IPC with that Arrow; DuckDB-wasm reads it with its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../src/arrow/lib.js', async () => ({ ...(await import('apache-arrow-15')) }));
vi.mock('../src/arrow/ipc.js', async () => ({ ...(await import('apache-arrow-15')) }));

const a15 = await import('apache-arrow-15');
const { insertTable } = await import('../src/duckdb.js');
const { toFlechette } = await import('../src/flechette.js');
const { openTsFile } = await import('../src/node.js');
const { duckdb, rows } = await import('./duckdb-helpers.js');
const { FIXTURES, parseExact } = await import('./fixtures.js');

describe('arrowsmith/duckdb and /flechette on apache-arrow 15', () => {
  it('TsFile batches (Int64 timestamps as word pairs) go in; per-device aggregates equal the official reader', { timeout: 60_000 }, async () => {
    const json = parseExact(readFileSync(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.json'), 'utf8')) as import('./duckdb.test.js').TsJson;
    const conn = await duckdb();
    const file = await openTsFile(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.tsfile'));
    const batches = file.batches({ table: json.table, rows: 16 });
    const first = await batches.next();
    expect(first.value).toBeInstanceOf(a15.RecordBatch);
    expect(first.value.getChild('time').data[0].values).toBeInstanceOf(Int32Array);
    await insertTable(conn, 'ts', (async function* () {
      yield first.value;
      yield* batches;
    })());
    await file.close();
    const got = rows(conn, 'SELECT id1, id2, count(*)::INTEGER AS n, sum(i64)::HUGEINT::VARCHAR AS s, max(epoch_ms(time)) AS last FROM ts GROUP BY id1, id2 ORDER BY id1, id2');
    const want = json.devices
      .map((d) => ({
        id1: d.tags[0],
        id2: d.tags[1],
        n: d.rows,
        s: String(d.columns.i64!.filter((v) => v !== null).reduce((a: bigint, v) => a + BigInt(v), 0n)),
        last: BigInt(Math.max(...(d.columns.time as number[]))),
      }))
      .sort((x, y) => x.id1.localeCompare(y.id1) || x.id2.localeCompare(y.id2));
    expect(got).toEqual(want);
  });

  it('toFlechette views the Int32 word pairs of timestamps as BigInt64 values (same buffer)', async () => {
    const json = parseExact(readFileSync(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.json'), 'utf8')) as import('./duckdb.test.js').TsJson;
    const file = await openTsFile(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.tsfile'));
    const t = await file.read({ table: json.table });
    await file.close();
    expect(t).toBeInstanceOf(a15.Table);
    // Arrow 15 holds timestamps (not Int64 columns) as Int32 pairs.
    const i64 = t.getChild('time')!.data[0]!;
    expect(i64.values).toBeInstanceOf(Int32Array);
    const ft = toFlechette(t as never, { useBigIntTimestamp: true });
    // biome-ignore lint/suspicious/noExplicitAny: flechette's batch, read for its buffer
    const values = (ft.getChild('time')!.data[0] as any).values as BigInt64Array;
    expect(values).toBeInstanceOf(BigInt64Array);
    expect(values.buffer).toBe(i64.values.buffer);
    expect(values.byteOffset).toBe(i64.values.byteOffset);
    const got = Array.from(ft.getChild('time')!, (v) => String(v)).sort();
    const want = json.devices.flatMap((d) => d.columns.time!.map((v) => String(BigInt(v)))).sort();
    expect(got).toEqual(want);
  });
});
