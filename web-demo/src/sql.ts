// The SQL panel's engine: DuckDB-wasm (its "eh" bundle, served from the demo's own folder by
// build.mjs: no CDN) in its worker, the shown table registered through arrowsmith/duckdb
// (Arrow IPC, so DuckDB's Arrow 17 and the demo's 21 never meet). Loaded on first use as its
// own chunk.
import * as duckdb from '@duckdb/duckdb-wasm';
import { tableFromIPC } from 'apache-arrow';
import { insertTable } from 'arrowsmith/duckdb';

let db: Promise<duckdb.AsyncDuckDBConnection> | undefined;

function connection(): Promise<duckdb.AsyncDuckDBConnection> {
  db ??= (async () => {
    const base = new URL('duckdb/', document.baseURI);
    const d = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(new URL('duckdb-browser-eh.worker.js', base)));
    await d.instantiate(new URL('duckdb-eh.wasm', base).href);
    return d.connect();
  })();
  db.catch(() => (db = undefined));
  return db;
}

/**
 * The table in Arrow IPC `ipc` as the DuckDB table `name` (replacing one of that name). IPC,
 * not the page's Table: this bundle has its own apache-arrow, whose classes are not the page's.
 */
export async function register(name: string, ipc: Uint8Array, signal?: AbortSignal): Promise<number> {
  const conn = await connection();
  await conn.query(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
  return (await insertTable(conn, name, tableFromIPC(ipc), { signal })).rows;
}

/**
 * The batches of `ipcs` (one IPC stream each, from the demo's worker) as the DuckDB table
 * `name`, replacing one of that name: inserted one by one, so memory holds a batch or two
 * besides DuckDB's table. On an abort or error the partly inserted table is dropped.
 */
export async function registerStream(name: string, ipcs: AsyncIterable<Uint8Array>, options: { signal?: AbortSignal; onProgress?: (rows: number) => void }): Promise<number> {
  const conn = await connection();
  await conn.query(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
  async function* batches() {
    for await (const ipc of ipcs) yield* tableFromIPC(ipc).batches;
  }
  return (await insertTable(conn, name, batches(), options)).rows;
}

/** `name` as a view of the table `of` (replacing a table or view of that name). */
export async function alias(name: string, of: string): Promise<void> {
  const conn = await connection();
  const q = (id: string) => `"${id.replaceAll('"', '""')}"`;
  await conn.query(`DROP TABLE IF EXISTS ${q(name)}`).catch(() => {});
  await conn.query(`CREATE OR REPLACE VIEW ${q(name)} AS SELECT * FROM ${q(of)}`);
}

export interface Result {
  columns: string[];
  /** Numeric columns (for the chart). */
  numeric: boolean[];
  rows: unknown[][];
  total: number;
}

/** Runs `sql`; the first `limit` rows come back as plain values (BigInt as is). */
export async function query(sql: string, limit = 500): Promise<Result> {
  const conn = await connection();
  const t = await conn.query(sql);
  const fields = t.schema.fields;
  const rows: unknown[][] = [];
  const cols = fields.map((_, k) => t.getChildAt(k)!);
  for (let i = 0; i < Math.min(t.numRows, limit); i++) rows.push(cols.map((c) => c.get(i)));
  const numeric = fields.map((f) => {
    const id = f.type.typeId as number;
    return id === 2 || id === 3 || id === 7; // Int, Float, Decimal
  });
  return { columns: fields.map((f) => f.name), numeric, rows, total: t.numRows };
}
