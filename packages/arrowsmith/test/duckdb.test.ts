// arrowsmith/duckdb in Node, on DuckDB-wasm's blocking bundle: every Arrow type the decoders
// produce, then per format a DuckDB query over the inserted table against the official
// readers' values (@msgpack/msgpack, the TsFile readers' JSON, h5py's JSON).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMulti } from '@msgpack/msgpack';
import * as A from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { InsertTableError, insertTable } from '../src/duckdb.js';
import { decodeMsgpack, decodeMsgpackStream, openHdf5, openTsFile } from '../src/node.js';
import { item, TYPE_COLUMNS } from './arrow-types.js';
import { type BlockingConnection, duckdb, rows } from './duckdb-helpers.js';
import { FIXTURES, parseExact } from './fixtures.js';

/** The TsFile readers' JSON (fixtures/tsfile/*.json): per device its tags and columns. */
export interface TsJson {
  table: string;
  // biome-ignore lint/suspicious/noExplicitAny: each column's values, of the column's own type
  devices: { tags: [string, string]; rows: number; columns: { [name: string]: any[] } }[];
}

let conn: BlockingConnection;
beforeAll(async () => {
  conn = await duckdb();
}, 60_000);

const f = (name: string, type: A.DataType) => new A.Field(name, type, true);
/** What DuckDB makes of each column of TYPE_COLUMNS, and its values read back as text. */
const DUCK: Record<string, [string, (string | null)[]]> = {
  nul: ['INTEGER', [null, null, null]],
  b: ['BOOLEAN', ['true', null, 'false']],
  i8: ['TINYINT', ['-128', null, '127']],
  i16: ['SMALLINT', ['-32768', null, '1']],
  i32: ['INTEGER', ['-2147483648', null, '7']],
  i64: ['BIGINT', ['-9223372036854775808', null, '9223372036854775807']],
  u8: ['UTINYINT', ['255', null, '0']],
  u16: ['USMALLINT', ['65535', null, '0']],
  u32: ['UINTEGER', ['4294967295', null, '0']],
  u64: ['UBIGINT', ['18446744073709551615', null, '0']],
  f16: ['FLOAT', ['1.5', null, '-65504.0']],
  f32: ['FLOAT', ['1.5', null, 'nan']],
  f64: ['DOUBLE', ['1e+300', null, '-0.0']],
  s: ['VARCHAR', ['héllo ✓', null, '']],
  bin: ['BLOB', ['\\x00\\x01\\xFF', null, '']],
  d: ['DATE', ['1970-01-01', null, '1971-01-01']],
  ts_s: ['TIMESTAMP_S', ['2023-11-14 22:13:20', null, '1970-01-01 00:00:00']],
  ts_ms: ['TIMESTAMP_MS', ['2023-11-14 22:13:20.123', null, '1969-12-31 23:59:59.999']],
  ts_us: ['TIMESTAMP', ['2023-11-14 22:13:20.123456', null, '1970-01-01 00:00:00']],
  ts_ns: ['TIMESTAMP_NS', ['2023-11-14 22:13:20.123456789', null, '1970-01-01 00:00:00']],
  list: ['INTEGER[]', ['[1, 2]', null, '[]']],
  list16: ['FLOAT[]', ['[0.5]', null, '[-2.0]']],
  fsl: ['DOUBLE[2]', ['[1.0, 2.0]', null, '[3.0, NULL]']],
  st: ['STRUCT(x INTEGER, y VARCHAR)', ["{'x': 1, 'y': a}", null, "{'x': NULL, 'y': c}"]],
  map: ['MAP(VARCHAR, INTEGER)', ['{a=1}', null, '{}']],
  dict: ['VARCHAR', ['a', null, 'b']],
};

describe('insertTable: what DuckDB makes of each Arrow type', () => {
  for (const [name, column] of Object.entries(TYPE_COLUMNS)) {
    const [duck, text] = DUCK[name]!;
    it(`${column.type} → ${duck}`, async () => {
      const t = new A.Table({ [name]: column });
      expect(await insertTable(conn, `t_${name}`, t)).toEqual({ rows: 3, batches: 1 });
      expect(rows(conn, `SELECT column_type FROM (DESCRIBE t_${name})`)).toEqual([{ column_type: duck }]);
      expect(rows(conn, `SELECT ${name}::VARCHAR AS v FROM t_${name}`).map((r) => r.v)).toEqual(text);
    });
  }
});

const records = () => [...decodeMulti(readFileSync(join(FIXTURES, 'msgpack/py_record_stream.msgpack')))] as Record<string, unknown>[];

describe('insertTable: MessagePack', () => {
  it('a record stream in batches of differing column order equals @msgpack/msgpack, nulls, structs and lists too', async () => {
    const want = records();
    const bytes = readFileSync(join(FIXTURES, 'msgpack/py_record_stream.msgpack'));
    const progress: number[] = [];
    const got = await insertTable(conn, 'records', decodeMsgpackStream(bytes, { batchRows: 50 }), { onProgress: (n) => progress.push(n) });
    expect(got).toEqual({ rows: want.length, batches: 20 });
    expect(progress).toEqual(Array.from({ length: 20 }, (_, i) => 50 * (i + 1)));
    const keys = ['id', 'temp', 'name', 'ok', 'reading', 'pos', 'tags', 'rare'];
    const table = rows(conn, `SELECT ${keys.join(', ')} FROM records ORDER BY id`);
    expect(table).toEqual(want.map((r) => Object.fromEntries(keys.map((k) => [k, r[k] ?? null]))));
    // A group-by over the table equals the same computation over the reference.
    const agg = rows(conn, 'SELECT ok, count(*)::INTEGER AS n, count(reading)::INTEGER AS readings, sum(reading)::DOUBLE AS s, count(pos)::INTEGER AS pos FROM records GROUP BY ok ORDER BY ok');
    const by = (ok: unknown) => want.filter((r) => (r.ok ?? null) === ok);
    expect(agg).toEqual(
      [false, true, null]
        .filter((ok) => by(ok).length)
        .map((ok) => ({
          ok,
          n: by(ok).length,
          readings: by(ok).filter((r) => r.reading != null).length,
          s: by(ok).some((r) => r.reading != null) ? by(ok).reduce((a, r) => a + Number(r.reading ?? 0), 0) : null,
          pos: by(ok).filter((r) => r.pos != null).length,
        })),
    );
  });

  it('a column appearing later is added, one all-null so far takes its later type', async () => {
    const a = new A.Table({ id: A.vectorFromArray([1, 2], new A.Int32()), later: A.vectorFromArray([null, null], new A.Null()) }).batches[0]!;
    const b = new A.Table({ later: A.vectorFromArray(['x', null], new A.Utf8()), id: A.vectorFromArray([3, 4], new A.Int32()), extra: A.vectorFromArray([[1n], [2n, 3n]], new A.List(item(new A.Int64()))) }).batches[0]!;
    const c = new A.Table({ id: A.vectorFromArray([5], new A.Int32()), later: A.vectorFromArray([null], new A.Null()) }).batches[0]!;
    expect(await insertTable(conn, 'grow', [a, b, c])).toEqual({ rows: 5, batches: 3 });
    expect(rows(conn, 'SELECT column_name, column_type FROM (DESCRIBE grow)')).toEqual([
      { column_name: 'id', column_type: 'INTEGER' },
      { column_name: 'later', column_type: 'VARCHAR' },
      { column_name: 'extra', column_type: 'BIGINT[]' },
    ]);
    expect(rows(conn, 'SELECT * FROM grow ORDER BY id')).toEqual([
      { id: 1, later: null, extra: null },
      { id: 2, later: null, extra: null },
      { id: 3, later: 'x', extra: [1n] },
      { id: 4, later: null, extra: [2n, 3n] },
      { id: 5, later: null, extra: null },
    ]);
  });

  it('an all-null column before others in a later batch leaves their values in place', async () => {
    // (apache-arrow's RecordBatch.select keeps each child at its old index: columns after a
    // dropped one would shift.)
    const a = new A.Table({ id: A.vectorFromArray([1], new A.Int32()), note: A.vectorFromArray(['x'], new A.Utf8()), v: A.vectorFromArray([0.5], new A.Float64()) }).batches[0]!;
    const b = new A.Table({ id: A.vectorFromArray([2, 3], new A.Int32()), note: A.vectorFromArray([null, null], new A.Null()), v: A.vectorFromArray([1.5, 2.5], new A.Float64()) }).batches[0]!;
    expect(await insertTable(conn, 'gap', [a, b])).toEqual({ rows: 3, batches: 2 });
    expect(rows(conn, 'SELECT * FROM gap ORDER BY id')).toEqual([
      { id: 1, note: 'x', v: 0.5 },
      { id: 2, note: null, v: 1.5 },
      { id: 3, note: null, v: 2.5 },
    ]);
  });

  it('integers that grow wider widen the column; narrower ones fit it', async () => {
    const batch = (ids: number[], type: A.DataType) => new A.Table({ n: A.vectorFromArray(ids.map((i) => (type instanceof A.Int64 ? BigInt(i) : i)), type as never) }).batches[0]!;
    const big = 2 ** 40;
    expect(await insertTable(conn, 'widen', [batch([1, 2], new A.Int32()), batch([big], new A.Int64()), batch([-3], new A.Int8())])).toEqual({ rows: 4, batches: 3 });
    expect(rows(conn, 'SELECT column_type FROM (DESCRIBE widen)')).toEqual([{ column_type: 'BIGINT' }]);
    expect(rows(conn, 'SELECT n FROM widen').map((r) => r.n)).toEqual([1n, 2n, BigInt(big), -3n]);
  });

  it('a column whose type changes lossily is a typed error naming it, and the table is dropped', async () => {
    const a = decodeMsgpack(new Uint8Array([0x91, 0x81, 0xa1, 0x76, 0x01])); // [{v: 1}]
    const b = decodeMsgpack(new Uint8Array([0x91, 0x81, 0xa1, 0x76, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0])); // [{v: 1.5}]
    expect(String(a.schema.fields[0]!.type)).not.toBe(String(b.schema.fields[0]!.type));
    const err = await insertTable(conn, 'conflict', [...a.batches, ...b.batches]).catch((e) => e);
    expect(err).toBeInstanceOf(InsertTableError);
    expect(err).toMatchObject({ code: 'type-conflict', column: 'v' });
    expect(rows(conn, "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'conflict'")).toEqual([{ n: 0 }]);
  });
});

describe('insertTable: TsFile', () => {
  it('batches (each with its own dictionaries) equal the official reader, per device and per row', async () => {
    const json = parseExact(readFileSync(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.json'), 'utf8')) as TsJson;
    const file = await openTsFile(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.tsfile'));
    const got = await insertTable(conn, 'ts', file.batches({ table: json.table, rows: 16 }));
    await file.close();
    expect(got.batches).toBeGreaterThan(3);
    const cols = ['b', 'i32', 'i64', 'f', 'd', 'txt', 'str'];
    const table = rows(
      conn,
      `SELECT id1, id2, epoch_ms(time) AS time, ${cols.join(', ')}, date_diff('day', DATE '1970-01-01', dt)::INTEGER AS dt, epoch_ms(ts) AS ts FROM ts ORDER BY id1, id2, time`,
    );
    const want: Record<string, unknown>[] = [];
    for (const dev of json.devices) {
      const c = (k: string) => dev.columns[k]!;
      for (let i = 0; i < dev.rows; i++) {
        want.push({
          id1: dev.tags[0],
          id2: dev.tags[1],
          time: BigInt(c('time')[i]),
          ...Object.fromEntries(cols.map((k) => [k, c(k)[i] === null ? null : k === 'i64' ? BigInt(c(k)[i]) : c(k)[i]])),
          dt: c('dt')[i],
          ts: c('ts')[i] === null ? null : BigInt(c('ts')[i]),
        });
      }
    }
    want.sort((x, y) => String(x.id1).localeCompare(String(y.id1)) || String(x.id2).localeCompare(String(y.id2)) || Number(x.time) - Number(y.time));
    expect(table).toEqual(want);
    // A per-device aggregate equals the JSON's.
    const agg = rows(conn, 'SELECT id1, id2, count(*)::INTEGER AS n, count(i32)::INTEGER AS i32s, max(epoch_ms(time)) AS last FROM ts GROUP BY id1, id2 ORDER BY id1, id2');
    expect(agg).toEqual(
      json.devices
        .map((d) => ({
          id1: d.tags[0],
          id2: d.tags[1],
          n: d.rows,
          i32s: d.columns.i32!.filter((v) => v !== null).length,
          last: BigInt(Math.max(...(d.columns.time as number[]))),
        }))
        .sort((x, y) => x.id1.localeCompare(y.id1) || x.id2.localeCompare(y.id2)),
    );
  });
});

describe('insertTable: HDF5', () => {
  // biome-ignore lint/suspicious/noExplicitAny: h5py's JSON dump, one shape per dataset
  const json = parseExact(readFileSync(join(FIXTURES, 'hdf5/types_latest.json'), 'utf8')) as any;
  const hex = (s: string) => Buffer.from(s, 'hex').toString('utf8');

  it('a compound dataset (struct, fixed-size list, strings, Int64) equals h5py', async () => {
    const file = await openHdf5(join(FIXTURES, 'hdf5/types_latest.h5'));
    await insertTable(conn, 'compound', file.batches('/compound', { rows: 3 }));
    await file.close();
    const want = json.datasets['/compound'].rows.map((r: { a: number; b: number; c: { hex: string }; d: number[]; e: { x: number; y: number | bigint } }) => ({
      a: r.a,
      b: r.b,
      c: hex(r.c.hex),
      d: r.d,
      e: { x: r.e.x, y: BigInt(r.e.y) },
    }));
    expect(rows(conn, 'SELECT * FROM compound')).toEqual(want);
    expect(rows(conn, 'SELECT sum(a)::INTEGER AS a, sum(e.y)::BIGINT AS y, sum(d[1] + d[2])::INTEGER AS d FROM compound')).toEqual([
      {
        a: want.reduce((s: number, r: { a: number }) => s + r.a, 0),
        y: want.reduce((s: bigint, r: { e: { y: bigint } }) => s + r.e.y, 0n),
        d: want.reduce((s: number, r: { d: number[] }) => s + r.d[0]! + r.d[1]!, 0),
      },
    ]);
  });

  it('an enum with unmatched values (a dictionary with nulls) equals h5py', async () => {
    const file = await openHdf5(join(FIXTURES, 'hdf5/types_latest.h5'));
    await insertTable(conn, 'enum_unmatched', await file.read('/enum_unmatched'));
    await file.close();
    expect(rows(conn, 'SELECT * FROM enum_unmatched').map((r) => r.enum_unmatched)).toEqual(json.datasets['/enum_unmatched'].rows.map((r: { hex: string } | null) => (r ? hex(r.hex) : null)));
  });
});

describe('insertTable: streaming, cancelling, buffers', () => {
  it('an abort between batches rejects with the reason and drops the table', async () => {
    const ac = new AbortController();
    const bytes = readFileSync(join(FIXTURES, 'msgpack/py_record_stream.msgpack'));
    const err = await insertTable(conn, 'aborted', decodeMsgpackStream(bytes, { batchRows: 100 }), { signal: ac.signal, onProgress: (n) => n >= 300 && ac.abort(new Error('stop')) }).catch(
      (e) => e,
    );
    expect(err).toEqual(new Error('stop'));
    expect(rows(conn, "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'aborted'")).toEqual([{ n: 0 }]);
  });

  it("hands DuckDB buffers of its own: a worker connection's transfer leaves the caller's table whole", async () => {
    const t = decodeMsgpack(readFileSync(join(FIXTURES, 'msgpack/py_records.msgpack')));
    const before = JSON.stringify(t.toArray().slice(0, 50), (_, v) => (typeof v === 'bigint' ? String(v) : v));
    // The async bundle posts the buffer to its worker with a transfer: the same detaching here.
    const transferring = {
      insertArrowFromIPCStream(buffer: Uint8Array, options: { name: string; create?: boolean }) {
        const moved = structuredClone(buffer, { transfer: [buffer.buffer as ArrayBuffer] });
        expect(buffer.buffer.byteLength).toBe(0);
        return conn.insertArrowFromIPCStream(moved, options);
      },
      query: (sql: string) => conn.query(sql),
    };
    await insertTable(transferring, 'moved', t);
    expect(JSON.stringify(t.toArray().slice(0, 50), (_, v) => (typeof v === 'bigint' ? String(v) : v))).toBe(before);
    expect(rows(conn, 'SELECT count(*)::INTEGER AS n, sum(id)::DOUBLE AS s FROM moved')).toEqual([{ n: t.numRows, s: t.getChild('id')!.toArray().reduce((a: number, v: number) => a + Number(v), 0) }]);
  });

  it('pulls the next batch only after the last one is in DuckDB (one batch held at a time)', async () => {
    let made = 0;
    let inserted = 0;
    let ahead = 0;
    async function* source() {
      for (let i = 0; i < 40; i++) {
        made++;
        yield new A.Table({ x: A.vectorFromArray(Float64Array.from({ length: 4096 }, (_, j) => i * 4096 + j)) }).batches[0]!;
      }
    }
    const counting = {
      insertArrowFromIPCStream(buffer: Uint8Array, options: { name: string; create?: boolean }) {
        ahead = Math.max(ahead, made - inserted);
        inserted++;
        return conn.insertArrowFromIPCStream(buffer, options);
      },
      query: (sql: string) => conn.query(sql),
    };
    expect(await insertTable(counting, 'paced', source())).toEqual({ rows: 40 * 4096, batches: 40 });
    expect(ahead).toBe(1);
    const n = 40 * 4096;
    expect(rows(conn, 'SELECT count(*)::INTEGER AS n, sum(x) AS s FROM paced')).toEqual([{ n, s: (n * (n - 1)) / 2 }]);
  });

  it('a table of another apache-arrow copy is a TypeError, not rows read as batches', async () => {
    const a15 = await import('apache-arrow-15');
    const t = a15.tableFromArrays({ x: Int32Array.of(1, 2) });
    await expect(insertTable(conn, 'foreign', t as never)).rejects.toThrow(/not a RecordBatch of the apache-arrow this package uses/);
    await expect(insertTable(conn, 'foreign', t.batches as never)).rejects.toThrow(TypeError);
  });

  it('a table without batches creates the empty table; an empty stream is a typed error', async () => {
    const schema = new A.Schema([f('x', new A.Int32()), f('s', new A.Utf8())]);
    expect(await insertTable(conn, 'empty', new A.Table(schema))).toEqual({ rows: 0, batches: 0 });
    expect(rows(conn, 'SELECT column_name, column_type FROM (DESCRIBE empty)')).toEqual([
      { column_name: 'x', column_type: 'INTEGER' },
      { column_name: 's', column_type: 'VARCHAR' },
    ]);
    await expect(insertTable(conn, 'none', [])).rejects.toMatchObject({ name: 'InsertTableError', code: 'empty' });
  });
});
