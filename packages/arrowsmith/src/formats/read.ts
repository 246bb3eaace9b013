/**
 * The one route of a read that may go to a pool: the format cuts the read into jobs (or
 * says one thread should do it), the pool decodes them into one table, and when the pieces
 * disagree on the schema (`SchemaMismatch`) the calling thread reads it all, so the answer
 * is always what one thread gives.
 */
import type { Table } from '../arrow/lib.js';
import { SchemaMismatch } from '../errors.js';
import type { Pool } from '../pool/pool.js';
import type { Job } from '../pool/protocol.js';

type TableOptions = Parameters<Pool['table']>[1];

/** The jobs' table on `pool`; undefined when their pieces' schemas differ. */
export async function pooledTable(pool: Pool, jobs: Job[], options: TableOptions): Promise<Table | undefined> {
  try {
    return await pool.table(jobs, options);
  } catch (e) {
    if (!(e instanceof SchemaMismatch)) throw e;
    return undefined;
  }
}

/**
 * `jobs()` on `pool` when there is one and they are defined (undefined: one thread should
 * read it), else, or when their schemas differ, `thread()`.
 */
export async function pooledOrThread(
  pool: Pool | undefined,
  jobs: () => Job[] | undefined | Promise<Job[] | undefined>,
  thread: () => Promise<Table>,
  options: TableOptions = {},
): Promise<Table> {
  const cut = pool && (await jobs());
  return (cut && (await pooledTable(pool, cut, options))) || thread();
}
