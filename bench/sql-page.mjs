// DuckDB-wasm's own paths of bench/sql.bench.mjs, in a page it bundles and serves: a file picked
// in the page's <input type=file> (a disk-backed File, as a user's drop gives it) becomes the
// table `data` (CSV: read_csv over the registered File; IPC: insertArrowFromIPCStream of its
// bytes; a DuckDB file: ATTACH read-only), then the query runs. DuckDB-wasm is instantiated on
// the first file, inside its timing, as the demo's SQL panel does; later files reuse it (warm).
import * as duckdb from '@duckdb/duckdb-wasm';

const { path, query } = JSON.parse(decodeURIComponent(location.hash.slice(1)));
let db;
let conn;

async function connection() {
  if (conn) return conn;
  const base = new URL('duckdb/', location.href);
  db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(new URL('duckdb-browser-eh.worker.js', base)));
  await db.instantiate(new URL('duckdb-eh.wasm', base).href);
  conn = await db.connect();
  return conn;
}

/** Each path: the picked file → the table (or view) `data`, replacing the previous one. */
const load = {
  async csv(c, file) {
    await db.dropFile(file.name);
    // DuckDB reads the File through FileReaderSync in its worker: no copy of the whole file first.
    await db.registerFileHandle(file.name, file, duckdb.DuckDBDataProtocol.BROWSER_FILEREADER, true);
    await c.query(`CREATE OR REPLACE TABLE data AS SELECT * FROM read_csv('${file.name}')`);
  },
  async ipc(c, file) {
    await c.query('DROP TABLE IF EXISTS data');
    await c.insertArrowFromIPCStream(new Uint8Array(await file.arrayBuffer()), { name: 'data' });
  },
  async db(c, file) {
    await c.query('USE memory');
    await c.query('DETACH DATABASE IF EXISTS f');
    await db.dropFile(file.name);
    await db.registerFileHandle(file.name, file, duckdb.DuckDBDataProtocol.BROWSER_FILEREADER, true);
    await c.query(`ATTACH '${file.name}' AS f (READ_ONLY)`);
    await c.query('USE f');
  },
};

/** A result as the harness compares it: rows of plain values (BigInt and Date as numbers). */
const plain = (t) => t.toArray().map((r) => Object.values(r.toJSON()).map((v) => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v)));

// Timed by the harness: from the change event (its capture listener) to `at`.
document.getElementById('file').addEventListener('change', async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  try {
    const c = await connection();
    await load[path](c, file);
    const t = await c.query(query);
    const at = performance.now();
    globalThis.__sql = { at, rows: plain(t), total: t.numRows };
  } catch (e) {
    globalThis.__sql = { error: String(e?.stack ?? e).slice(0, 500) };
  }
});

/** DuckDB's own memory (buffer manager total, bytes), for the harness after the timed run. */
globalThis.__duckMemory = async () => Number(plain(await conn.query('SELECT sum(memory_usage_bytes)::BIGINT AS b FROM duckdb_memory()'))[0][0]);
globalThis.__ready = true;
