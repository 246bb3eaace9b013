// arrowsmith/flechette: the flechette table shares the apache-arrow table's buffers, reads the
// same values for every type the decoders build, and Arquero 8 aggregates it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMulti } from '@msgpack/msgpack';
import * as A from 'apache-arrow';
import * as aq from 'arquero';
import { describe, expect, it } from 'vitest';
import { toFlechette } from '../src/flechette.js';
import { decodeMsgpack, openHdf5, openTsFile } from '../src/node.js';
import { TYPE_COLUMNS } from './arrow-types.js';
import type { TsJson } from './duckdb.test.js';
import { FIXTURES, parseExact } from './fixtures.js';

/** A value of either library as plain JS: bigints, lists as arrays, structs as objects, maps as pairs. */
function norm(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.getTime();
  if (v instanceof Uint8Array && v.constructor === Uint8Array) return { bytes: Array.from(v) };
  if (v instanceof Map) return [...v].map(([k, x]) => [norm(k), norm(x)]);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, norm);
  const o = v as { toArray?: () => ArrayLike<unknown>; toJSON?: () => object };
  if (String(v) === '[object MapRow]' || (o.toJSON && v.constructor?.name === 'MapRow')) return [...(v as Iterable<[unknown, unknown]>)].map(([k, x]) => [norm(k), norm(x)]);
  // A Vector read by get(): its toArray() gives Float16 as raw halves and nulls as zeros.
  const vec = v as { get?: (i: number) => unknown; length?: number };
  if (typeof vec.get === 'function' && typeof vec.length === 'number') return Array.from({ length: vec.length }, (_, i) => norm(vec.get!(i)));
  const entries = typeof o.toJSON === 'function' ? o.toJSON() : v;
  return Object.fromEntries(Object.entries(entries).map(([k, x]) => [k, norm(x)]));
}

/** Every column's values of both tables, row by row, as text (NaN and -0 kept apart). */
function columnsOf(names: string[], at: (name: string, i: number) => unknown, n: number): Record<string, string[]> {
  const text = (v: unknown) => JSON.stringify(norm(v), (_, x) => (typeof x === 'bigint' ? `${x}n` : Object.is(x, -0) ? '-0' : Number.isNaN(x) ? 'NaN' : x));
  return Object.fromEntries(names.map((c) => [c, Array.from({ length: n }, (_, i) => text(at(c, i)))]));
}

function sameValues(t: A.Table, options = { useBigInt: true, useMap: true }) {
  const ft = toFlechette(t, options);
  expect(ft.numRows).toBe(t.numRows);
  expect(ft.names).toEqual(t.schema.fields.map((f) => f.name));
  const names = ft.names as string[];
  expect(columnsOf(names, (c, i) => ft.getChild(c)!.at(i), t.numRows)).toEqual(columnsOf(names, (c, i) => t.getChild(c)!.get(i), t.numRows));
  return ft;
}

/** The ArrayBuffers (with offsets) under a column's values, depth first. */
function buffersOfArrow(d: A.Data): [ArrayBufferLike, number][] {
  const own = [d.values, d.valueOffsets].filter((b): b is NonNullable<typeof b> => !!b?.byteLength).map((b) => [b.buffer, b.byteOffset] as [ArrayBufferLike, number]);
  return [...own, ...d.children.flatMap(buffersOfArrow), ...(d.dictionary?.data.flatMap(buffersOfArrow) ?? [])];
}
// biome-ignore lint/suspicious/noExplicitAny: flechette's batches are typed per type; only their buffers are read
function buffersOfFlechette(b: any): [ArrayBufferLike, number][] {
  const own = [b.values, b.offsets].filter((x) => x?.byteLength).map((x) => [x.buffer, x.byteOffset] as [ArrayBufferLike, number]);
  return [...own, ...(b.children ?? []).flatMap(buffersOfFlechette), ...(b.dictionary?.data.flatMap(buffersOfFlechette) ?? [])];
}

describe('toFlechette', () => {
  for (const [name, column] of Object.entries(TYPE_COLUMNS)) {
    it(`${column.type}: the same values, over the same buffers`, () => {
      const t = new A.Table({ [name]: column });
      const ft = sameValues(t);
      const want = buffersOfArrow(t.getChild(name)!.data[0]!);
      const got = buffersOfFlechette(ft.getChild(name)!.data[0]);
      expect(got.length).toBe(want.length);
      for (const [i, [buffer, offset]] of got.entries()) {
        expect(buffer === want[i]![0], `buffer ${i}`).toBe(true);
        expect(offset).toBe(want[i]![1]);
      }
    });
  }

  it('Int64 and timestamps read as numbers by default (flechette’s own default)', () => {
    const t = new A.Table({ i64: A.vectorFromArray([1n, null, -5n], new A.Int64()), ts: TYPE_COLUMNS.ts_ms! });
    const ft = toFlechette(t);
    expect(ft.getChild('i64')!.toArray()).toEqual([1, null, -5]);
    expect(Array.from(ft.getChild('ts')!.toArray() as ArrayLike<unknown>)).toEqual([1700000000123, null, -1]);
  });

  it('a sliced table (validity bits starting inside a byte) reads the same', () => {
    const t = new A.Table({ s: TYPE_COLUMNS.s!, i32: TYPE_COLUMNS.i32!, b: TYPE_COLUMNS.b! }).slice(1);
    sameValues(t);
  });

  it('MessagePack records (structs, lists, nulls), TsFile batches (dictionaries, timestamps), an HDF5 compound', async () => {
    sameValues(decodeMsgpack(readFileSync(join(FIXTURES, 'msgpack/py_records.msgpack'))));
    const ts = await openTsFile(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.tsfile'));
    // Batches of 16 rows, each with its own dictionaries, as one table.
    const bs: A.RecordBatch[] = [];
    for await (const b of ts.batches({ table: 't', rows: 16 })) bs.push(b);
    await ts.close();
    const t = new A.Table(bs.map((b) => new A.RecordBatch(bs[0]!.schema, b.data)));
    expect(t.batches.length).toBeGreaterThan(3);
    sameValues(t);
    const h5 = await openHdf5(join(FIXTURES, 'hdf5/types_latest.h5'));
    sameValues(await h5.read('/compound'));
    await h5.close();
  });
});

/** Arquero 8.0.3 types its input against its own idea of flechette's schema (metadata never null). */
type Arrow = Parameters<typeof aq.fromArrow>[0];

describe('Arquero 8 over toFlechette', () => {
  it('fromArrow takes it; a group-by equals the same computation over @msgpack/msgpack', () => {
    const bytes = readFileSync(join(FIXTURES, 'msgpack/py_record_stream.msgpack'));
    const want = [...decodeMulti(bytes)] as { ok: boolean | null; temp: number; reading: number | null }[];
    const t = decodeMsgpack(bytes, {});
    const dt = aq.fromArrow(toFlechette(t) as unknown as Arrow);
    expect(dt.numRows()).toBe(want.length);
    const got = dt
      .groupby('ok')
      .rollup({ n: aq.op.count(), readings: aq.op.valid('reading'), temp: aq.op.sum('temp'), top: aq.op.max('reading') })
      .orderby('ok')
      .objects();
    const groups = [...new Set(want.map((r) => r.ok ?? null))].sort((x, y) => Number(x) - Number(y));
    expect(got).toEqual(
      groups.map((ok) => {
        const g = want.filter((r) => (r.ok ?? null) === ok);
        const readings = g.filter((r) => r.reading != null).map((r) => r.reading!);
        return { ok, n: g.length, readings: readings.length, temp: g.reduce((s, r) => s + r.temp, 0), top: readings.length ? Math.max(...readings) : undefined };
      }),
    );
  });

  for (const rows of [undefined, 16]) {
    it(`a TsFile table${rows ? ' of 16-row batches, each with its own dictionaries' : ''}: per-device counts and means equal the official reader’s`, async () => {
      const json = parseExact(readFileSync(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.json'), 'utf8')) as TsJson;
      const ts = await openTsFile(join(FIXTURES, 'tsfile/cpp_dictionary_gzip.tsfile'));
      let t = await ts.read({ table: json.table });
      if (rows) {
        const bs: A.RecordBatch[] = [];
        for await (const b of ts.batches({ table: json.table, rows })) bs.push(b);
        t = new A.Table(bs.map((b) => new A.RecordBatch(bs[0]!.schema, b.data)));
        expect(new Set(t.batches.map((b) => b.getChild('id1')!.data[0]!.dictionary)).size).toBeGreaterThan(1);
      }
      await ts.close();
      const dt = aq.fromArrow(toFlechette(t) as unknown as Arrow);
      const got = dt.groupby('id1', 'id2').rollup({ n: aq.op.count(), d: aq.op.mean('d') }).orderby('id1', 'id2').objects();
      const want = json.devices
        .map((dev) => {
          const d = (dev.columns.d as (number | null)[]).filter((x): x is number => x !== null);
          return { id1: dev.tags[0], id2: dev.tags[1], n: dev.rows, d: d.reduce((s, x) => s + x, 0) / d.length };
        })
        .sort((x, y) => x.id1.localeCompare(y.id1) || x.id2.localeCompare(y.id2));
      expect(got.length).toBe(want.length);
      for (const [i, row] of got.entries()) {
        expect({ ...row, d: undefined }).toEqual({ ...want[i], d: undefined });
        expect((row as { d: number }).d).toBeCloseTo(want[i]!.d, 12);
      }
    });
  }
});
