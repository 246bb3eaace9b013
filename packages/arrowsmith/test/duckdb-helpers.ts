/** DuckDB-wasm in Node (its blocking bundle), and its query results as plain values. */
import { createRequire } from 'node:module';
import type { DuckDBConnectionLike } from '../src/duckdb.js';
import { plain } from './duckdb-plain.js';

const require = createRequire(import.meta.url);

export interface BlockingConnection extends DuckDBConnectionLike {
  query(sql: string): { toArray(): { toJSON(): Record<string, unknown> }[] };
  close(): void;
}

/** A fresh in-memory DuckDB-wasm database (the blocking bundle: no worker). */
export async function duckdb(): Promise<BlockingConnection> {
  const m = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');
  const file = (f: string) => require.resolve(`@duckdb/duckdb-wasm/dist/${f}`);
  const bundles = {
    mvp: { mainModule: file('duckdb-mvp.wasm'), mainWorker: file('duckdb-node-mvp.worker.cjs') },
    eh: { mainModule: file('duckdb-eh.wasm'), mainWorker: file('duckdb-node-eh.worker.cjs') },
  };
  const db = await m.createDuckDB(bundles, new m.VoidLogger(), m.NODE_RUNTIME);
  await db.instantiate();
  return db.connect();
}

/** A query's rows as plain objects. */
export function rows(conn: BlockingConnection, sql: string): Record<string, unknown>[] {
  return conn.query(sql).toArray().map((r) => plain(r.toJSON()) as Record<string, unknown>);
}
