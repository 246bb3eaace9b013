/** DuckDB-wasm in Node (its blocking bundle), and its query results as plain values. */
import { createRequire } from 'node:module';
import type { DuckDBConnectionLike } from '../src/duckdb.js';

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

/** A DuckDB (Arrow 17) value as plain JS: lists as arrays, structs as objects. */
export function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const o = v as { toArray?: () => ArrayLike<unknown>; toJSON?: () => Record<string, unknown> };
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, plain);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, plain(x)]));
  // A Vector (a list's values) has a length; a StructRow does not.
  if (typeof o.toArray === 'function' && 'length' in v) return Array.from(o.toArray(), plain);
  const entries = typeof o.toJSON === 'function' ? o.toJSON() : (v as Record<string, unknown>);
  return Object.fromEntries(Object.entries(entries).map(([k, x]) => [k, plain(x)]));
}

/** A query's rows as plain objects. */
export function rows(conn: BlockingConnection, sql: string): Record<string, unknown>[] {
  return conn.query(sql).toArray().map((r) => plain(r.toJSON()) as Record<string, unknown>);
}
