// arrowsmith/duckdb and arrowsmith/flechette in a browser: DuckDB-wasm's worker bundle (served
// from this page's folder), tables inserted from fetched files, queries against the official
// readers' values (@msgpack/msgpack, the TsFile readers' JSON, h5py's JSON). run.mjs bundles
// this page twice: on apache-arrow 21 and, aliased, on apache-arrow 15.
import * as duckdb from '@duckdb/duckdb-wasm';
import * as vg from '@uwdata/vgplot';
import { decodeMulti } from '@msgpack/msgpack';
import { type Table, tableToIPC } from 'apache-arrow';
import * as aq from 'arquero';
import { decodeMsgpack, decodeMsgpackStream, init, openHdf5, openTsFile } from 'arrowsmith';
import { insertTable } from 'arrowsmith/duckdb';
import { toFlechette } from 'arrowsmith/flechette';
import { parseExact } from '../../packages/arrowsmith/test/compare.js';
import { plain } from '../../packages/arrowsmith/test/duckdb-plain.js';

interface Result { name: string; ok: boolean; detail?: string }
const results: Result[] = [];
const text = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
function same(name: string, got: unknown, want: unknown) {
  const g = text(got);
  const w = text(want);
  results.push({ name, ok: g === w, detail: g === w ? undefined : `got ${g.slice(0, 300)} want ${w.slice(0, 300)}` });
}
async function attempt(name: string, f: () => Promise<void>) {
  try {
    await f();
  } catch (e) {
    results.push({ name, ok: false, detail: String((e as Error)?.stack ?? e) });
  }
}
const bytesOf = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());
// biome-ignore lint/suspicious/noExplicitAny: the readers' JSON dumps, one shape per fixture
const jsonOf = async (url: string): Promise<any> => parseExact(await (await fetch(url)).text());

async function run() {
  await init({ baseUrl: new URL('./wasm/', location.href) });
  const arrow = new URLSearchParams(location.search).get('arrow');
  const worker = new Worker(new URL('./duckdb/duckdb-browser-eh.worker.js', location.href));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(new URL('./duckdb/duckdb-eh.wasm', location.href).href);
  const conn = await db.connect();
  const query = async (sql: string) => (await conn.query(sql)).toArray().map((r) => plain(r.toJSON()) as Record<string, unknown>);
  const tag = `(apache-arrow ${arrow})`;

  await attempt(`MessagePack: a fetched record stream, streamed in, equals @msgpack/msgpack ${tag}`, async () => {
    const want = [...decodeMulti(await bytesOf('fixtures/py_record_stream.msgpack'))] as Record<string, unknown>[];
    const progress: number[] = [];
    const res = await fetch('fixtures/py_record_stream.msgpack');
    const got = await insertTable(conn, 'records', decodeMsgpackStream(res.body!, { batchRows: 100 }), { onProgress: (n) => progress.push(n) });
    same('MessagePack: rows and progress', [got.rows, progress.at(-1)], [want.length, want.length]);
    const keys = ['id', 'temp', 'name', 'ok', 'reading', 'pos', 'tags', 'rare'];
    same(`MessagePack: every row, nulls, structs and lists ${tag}`, await query(`SELECT ${keys.join(', ')} FROM records ORDER BY id`), want.map((r) => Object.fromEntries(keys.map((k) => [k, r[k] ?? null]))));
  });

  await attempt(`TsFile: batches equal the official reader per device ${tag}`, async () => {
    const json = await jsonOf('fixtures/tsfile/cpp_dictionary_gzip.json');
    const file = await openTsFile(new URL('fixtures/tsfile/cpp_dictionary_gzip.tsfile', location.href));
    await insertTable(conn, 'ts', file.batches({ table: json.table, rows: 16 }));
    await file.close();
    const got = await query('SELECT id1, id2, count(*)::INTEGER AS n, count(str)::INTEGER AS strs, sum(i64)::HUGEINT::VARCHAR AS s, max(epoch_ms(time)) AS last FROM ts GROUP BY id1, id2 ORDER BY id1, id2');
    // biome-ignore lint/suspicious/noExplicitAny: the JSON's devices
    const want = json.devices.map((d: any) => ({
      id1: d.tags[0],
      id2: d.tags[1],
      n: d.rows,
      strs: d.columns.str.filter((v: unknown) => v !== null).length,
      s: String(d.columns.i64.filter((v: unknown) => v !== null).reduce((a: bigint, v: number | bigint) => a + BigInt(v), 0n)),
      last: BigInt(Math.max(...d.columns.time)),
    }));
    want.sort((x: { id1: string; id2: string }, y: { id1: string; id2: string }) => x.id1.localeCompare(y.id1) || x.id2.localeCompare(y.id2));
    same(`TsFile: per-device aggregates ${tag}`, got, want);
  });

  await attempt(`HDF5: a compound dataset equals h5py ${tag}`, async () => {
    const json = await jsonOf('fixtures/hdf5/types_latest.json');
    const file = await openHdf5(new URL('fixtures/hdf5/types_latest.h5', location.href));
    await insertTable(conn, 'compound', file.batches('/compound', { rows: 3 }));
    await file.close();
    const hex = (s: string) => new TextDecoder().decode(Uint8Array.from(s.match(/../g) ?? [], (h) => Number.parseInt(h, 16)));
    // biome-ignore lint/suspicious/noExplicitAny: h5py's rows
    const want = json.datasets['/compound'].rows.map((r: any) => ({ a: r.a, b: r.b, c: hex(r.c.hex), d: r.d, e: { x: r.e.x, y: BigInt(r.e.y) } }));
    same(`HDF5: every row ${tag}`, await query('SELECT * FROM compound'), want);
  });

  await attempt(`the worker's transfer leaves the caller's table whole ${tag}`, async () => {
    const t = decodeMsgpack(await bytesOf('fixtures/py_records.msgpack'));
    const before = tableToIPC(t as unknown as Table);
    await insertTable(conn, 'kept', t);
    same(`the caller's table is whole after insertTable ${tag}`, Array.from(tableToIPC(t as unknown as Table)), Array.from(before));
    same(`and DuckDB has its rows ${tag}`, await query('SELECT count(*)::INTEGER AS n FROM kept'), [{ n: t.numRows }]);
  });

  await attempt(`an abort drops the table ${tag}`, async () => {
    const ac = new AbortController();
    const res = await fetch('fixtures/py_record_stream.msgpack');
    const err = await insertTable(conn, 'aborted', decodeMsgpackStream(res.body!, { batchRows: 100 }), { signal: ac.signal, onProgress: (n) => n >= 200 && ac.abort(new Error('stop')) }).catch((e) => e);
    same(`abort: rejects with the reason, no table ${tag}`, [String(err), await query("SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'aborted'")], ['Error: stop', [{ n: 0 }]]);
  });

  await attempt(`Arquero over toFlechette ${tag}`, async () => {
    const bytes = await bytesOf('fixtures/py_record_stream.msgpack');
    const want = [...decodeMulti(bytes)] as { temp: number; reading: number | null }[];
    // biome-ignore lint/suspicious/noExplicitAny: Arquero 8.0.3 types its input against its own flechette's schema
    const dt = aq.fromArrow(toFlechette(decodeMsgpack(bytes)) as any);
    const got = dt.rollup({ n: aq.op.count(), readings: aq.op.valid('reading'), temp: aq.op.sum('temp') }).objects()[0];
    same(`Arquero: count, valid, sum ${tag}`, got, { n: want.length, readings: want.filter((r) => r.reading != null).length, temp: want.reduce((s, r) => s + r.temp, 0) });
  });

  await attempt(`Mosaic: a query and a vgplot spec over the inserted table ${tag}`, async () => {
    const want = [...decodeMulti(await bytesOf('fixtures/py_record_stream.msgpack'))] as { ok: boolean | null }[];
    const groups = [false, true].map((ok) => ({ ok, n: want.filter((r) => (r.ok ?? null) === ok).length }));
    const coordinator = vg.coordinator();
    coordinator.databaseConnector(new vg.DuckDBWASMConnector({ duckdb: db as never, connection: conn as never }));
    // Mosaic's results are flechette tables.
    const result = (await coordinator.query('SELECT ok, count(*)::INTEGER AS n FROM records WHERE ok IS NOT NULL GROUP BY ok ORDER BY ok')) as { toArray(): unknown[] };
    same(`Mosaic: a group-by through the coordinator ${tag}`, result.toArray().map((r) => ({ ...(r as object) })), groups);
    const el = vg.plot(vg.barY(vg.from('records', { filterBy: undefined }), { x: 'ok', y: vg.count() }), vg.width(400), vg.height(300)) as HTMLElement;
    document.body.appendChild(el);
    // The bars appear once the coordinator has answered the plot's query.
    let bars: SVGRectElement[] = [];
    for (let i = 0; i < 100 && bars.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      bars = [...el.querySelectorAll<SVGRectElement>('g[aria-label="bar"] rect')];
    }
    const heights = bars.map((b) => Number(b.getAttribute('height')));
    const counts = [...groups.map((g) => g.n), want.filter((r) => r.ok == null).length].filter((n) => n > 0);
    const ratio = heights.length === counts.length && counts.every((n, i) => Math.abs(heights[i]! / heights[0]! - n / counts[0]!) < 0.02);
    same(`Mosaic: vgplot draws one bar per group, heights as the counts ${tag}`, { bars: heights.length, ratio }, { bars: counts.length, ratio: true });
  });

  await conn.close();
  await db.terminate();
}

run()
  .catch((e) => results.push({ name: 'page', ok: false, detail: String(e?.stack ?? e) }))
  .finally(() => {
    (window as unknown as { __results: Result[] }).__results = results;
  });
