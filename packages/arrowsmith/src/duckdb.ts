/**
 * `arrowsmith/duckdb`: a decoded table, or a stream of batches, as a DuckDB-wasm table.
 *
 * ```ts
 * import { insertTable } from 'arrowsmith/duckdb';
 * await insertTable(conn, 'readings', file.batches({ table: 'root.sg' }), { onProgress: (rows) => … });
 * const avg = await conn.query('SELECT device, avg(temp) FROM readings GROUP BY device');
 * ```
 *
 * The batches cross as Arrow IPC written by the app's own apache-arrow, so DuckDB-wasm's
 * pinned Arrow (17) never meets the app's classes. Each batch is its own IPC stream (schema,
 * dictionaries, batch, end of stream): DuckDB-wasm 1.32 reads a stream split over several
 * `insertArrowFromIPCStream` calls into wrong values or a wasm trap, so one call takes one
 * whole stream, and the first creates the table while the rest append to it. Memory stays at
 * one batch and its IPC copy; DuckDB's own table grows.
 */
import { abortReason } from './io/abort.js';
import { RecordBatchStreamWriter } from './arrow/ipc.js';
import { RecordBatch, Table } from './arrow/lib.js';
import { duckSignature, forDuckDB } from './arrow/duckdb-types.js';

/**
 * The part of a DuckDB-wasm connection `insertTable` uses: `AsyncDuckDBConnection` (the
 * browser and Node worker bundles) and the blocking bundle's `DuckDBConnection` both fit.
 */
export interface DuckDBConnectionLike {
  insertArrowFromIPCStream(buffer: Uint8Array, options: { name: string; schema?: string; create?: boolean }): unknown;
  query(sql: string): unknown;
}

export interface InsertTableOptions {
  /** The DuckDB schema the table is created in (default: the connection's current one). */
  schema?: string;
  /** Stops between batches and rejects with the signal's reason; the table is dropped. */
  signal?: AbortSignal;
  /** Called after each batch with the rows inserted so far. */
  onProgress?: (rows: number) => void;
}

/** What went in: rows and batches. */
export interface InsertTableResult {
  rows: number;
  batches: number;
}

/**
 * Why a table could not go in: `empty` (a stream with no batch: no schema to create the table
 * from), `type-conflict` (a column whose type changes between batches in a way DuckDB would
 * convert lossily, e.g. BIGINT then DOUBLE; `column` names it).
 */
export class InsertTableError extends Error {
  readonly code: 'empty' | 'type-conflict';
  readonly column?: string;

  constructor(code: 'empty' | 'type-conflict', message: string, column?: string) {
    super(`arrowsmith/duckdb: ${message}`);
    this.name = 'InsertTableError';
    this.code = code;
    if (column !== undefined) this.column = column;
  }
}

interface Column {
  name: string;
  sig: string;
}

const NULL = 'Null';
/** Types each of which holds every value of the ones before it. */
const LADDERS = [
  ['Int8', 'Int16', 'Int32', 'Int64'],
  ['Uint8', 'Uint16', 'Uint32', 'Uint64'],
  ['Float32', 'Float64'],
];

/**
 * Between two column types of one ladder: true when `next` is wider (the column is widened),
 * false when narrower (its values fit the column as it is); undefined across ladders.
 */
function widening(have: string, next: string): boolean | undefined {
  for (const l of LADDERS) if (l.includes(have) && l.includes(next)) return l.indexOf(next) > l.indexOf(have);
  return undefined;
}
const quote = (id: string) => `"${id.replaceAll('"', '""')}"`;
let stages = 0;

/** One batch as a whole IPC stream, in a buffer of its own (DuckDB-wasm's worker takes it). */
function ipc(batch: RecordBatch): Uint8Array {
  if (!(batch instanceof RecordBatch)) {
    // The writer would take another copy's batch for an iterable of rows.
    throw new TypeError('arrowsmith/duckdb: not a RecordBatch of the apache-arrow this package uses (a batch of another copy of apache-arrow?)');
  }
  const bytes = RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
  // The writer joins its chunks into a new buffer; a view of the batch's memory would be
  // detached from under the caller's table by the transfer.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  return own ? bytes : bytes.slice();
}

/**
 * Insert `source` (an Arrowsmith `Table`, or batches: `file.batches()`, `decodeMsgpackStream`)
 * into DuckDB as the new table `name`, one batch at a time. Batches may differ in columns
 * (a column missing from a batch is NULL there; a new one is added) and in dictionaries; a
 * column that is all nulls (Arrow Null) takes the type of the first batch that has values, and
 * one whose integers or floats grow wider (Int32 then Int64) is widened. A column whose type
 * otherwise changes (Int64 then Float64: DuckDB would round) throws
 * `InsertTableError('type-conflict')` naming it.
 * On an error or abort the table is dropped.
 */
export async function insertTable(
  conn: DuckDBConnectionLike,
  name: string,
  source: Table | AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  options: InsertTableOptions = {},
): Promise<InsertTableResult> {
  const { schema, signal, onProgress } = options;
  const where = schema === undefined ? {} : { schema };
  const qualified = schema === undefined ? quote(name) : `${quote(schema)}.${quote(name)}`;
  let columns: Column[] | undefined;
  let rows = 0;
  let batches = 0;
  try {
    // A Table of another apache-arrow copy iterates rows: take its batches all the same.
    const table = source instanceof Table || Array.isArray((source as Table).batches);
    for await (const raw of table ? (source as Table).batches : (source as AsyncIterable<RecordBatch>)) {
      if (signal?.aborted) throw abortReason(signal);
      const batch = forDuckDB(raw);
      if (!columns) {
        await conn.insertArrowFromIPCStream(ipc(batch), { name, ...where, create: true });
        columns = batch.schema.fields.map((f) => ({ name: f.name, sig: duckSignature(f.type) }));
      } else if (batch.numRows > 0) {
        columns = await append(conn, { name, schema, qualified, rows }, columns, batch);
      }
      rows += batch.numRows;
      batches++;
      onProgress?.(rows);
    }
    if (signal?.aborted) throw abortReason(signal);
  } catch (e) {
    if (columns) {
      try {
        await conn.query(`DROP TABLE IF EXISTS ${qualified}`);
      } catch {
        // The error that stopped the insert is the one to report.
      }
    }
    throw e;
  }
  if (!columns) {
    // A table without batches still has a schema: a stream of it alone creates the empty table.
    if (!(source instanceof Table)) throw new InsertTableError('empty', `no batch to create ${JSON.stringify(name)} from`);
    await conn.insertArrowFromIPCStream(RecordBatchStreamWriter.writeAll(source).toUint8Array(true), { name, ...where, create: true });
  }
  return { rows, batches };
}

/**
 * Append one batch: straight in when its columns are the table's (names, order, DuckDB types);
 * otherwise through a staging table, `INSERT … BY NAME` after the table has the new columns.
 * Returns the table's columns after it.
 */
async function append(conn: DuckDBConnectionLike, at: { name: string; schema?: string; qualified: string; rows: number }, columns: Column[], batch: RecordBatch): Promise<Column[]> {
  const { name, schema, qualified } = at;
  const own = batch.schema.fields.map((f) => ({ name: f.name, sig: duckSignature(f.type) }));
  if (own.length === columns.length && own.every((c, i) => c.name === columns[i]!.name && c.sig === columns[i]!.sig)) {
    await conn.insertArrowFromIPCStream(ipc(batch), { name, ...(schema === undefined ? {} : { schema }), create: false });
    return columns;
  }
  const next = columns.map((c) => ({ ...c }));
  const added: string[] = [];
  const retyped: string[] = [];
  const widened: string[] = [];
  const keep: number[] = [];
  own.forEach((c, i) => {
    const have = next.find((t) => t.name === c.name);
    if (!have) {
      next.push(c);
      added.push(c.name);
    } else if (have.sig !== c.sig && c.sig !== NULL) {
      const wider = widening(have.sig, c.sig);
      if (have.sig === NULL) {
        have.sig = c.sig;
        retyped.push(c.name);
      } else if (wider === undefined) {
        throw new InsertTableError('type-conflict', `column ${JSON.stringify(c.name)} is ${have.sig} in earlier batches and ${c.sig} from row ${at.rows} on; DuckDB would convert it`, c.name);
      } else if (wider) {
        have.sig = c.sig;
        widened.push(c.name);
      }
    }
    // An all-null column of a batch is left out: INSERT BY NAME fills it with NULL.
    if (c.sig !== NULL || !have || have.sig === NULL) keep.push(i);
  });
  // selectAt, not select: apache-arrow's select (15–21) keeps each child at its old index, so
  // the columns after a dropped one would lose their values.
  const part = keep.length === own.length ? batch : batch.selectAt(keep);
  const stage = `__arrowsmith_stage_${++stages}`;
  const staged = schema === undefined ? quote(stage) : `${quote(schema)}.${quote(stage)}`;
  await conn.insertArrowFromIPCStream(ipc(part as RecordBatch), { name: stage, ...(schema === undefined ? {} : { schema }), create: true });
  try {
    if (added.length || retyped.length || widened.length) {
      const types = new Map(
        ((await conn.query(`SELECT column_name, column_type FROM (DESCRIBE ${staged})`)) as { toArray(): { column_name: string; column_type: string }[] })
          .toArray()
          .map((r) => [String(r.column_name), String(r.column_type)]),
      );
      for (const c of added) await conn.query(`ALTER TABLE ${qualified} ADD COLUMN ${quote(c)} ${types.get(c)}`);
      // The column held only nulls so far: nothing to convert.
      for (const c of retyped) await conn.query(`ALTER TABLE ${qualified} ALTER COLUMN ${quote(c)} SET DATA TYPE ${types.get(c)} USING NULL`);
      for (const c of widened) await conn.query(`ALTER TABLE ${qualified} ALTER COLUMN ${quote(c)} SET DATA TYPE ${types.get(c)}`);
    }
    await conn.query(`INSERT INTO ${qualified} BY NAME SELECT * FROM ${staged}`);
  } finally {
    await conn.query(`DROP TABLE IF EXISTS ${staged}`);
  }
  return next;
}
