// The Parquet readers of bench/parquet.bench.mjs, in the shape of bench/readers.mjs (load,
// init, read → rows; `table` → the Arrow JS table itself, for the value checks). Each read
// starts from the file's bytes in memory and ends in an apache-arrow Table whose buffers are
// JS-owned; converting a library's own output to that table is part of the read.
// Queries (`c.q`): 'full'; 'device' (id1 = device03: row groups chosen by their min/max
// statistics, then the rows filtered); 'third' (time in the middle third: the same, on time).
// parquet-wasm and hyparquet have no row filter of their own that ends in columns, so the
// rows of the chosen row groups are filtered after the read (runs of matching rows sliced,
// zero-copy); DuckDB-wasm runs the WHERE clause, which prunes row groups by statistics.

export const DEVICE = 'device03';
const T0 = 1_700_000_000_000;
export const THIRD = { start: T0 + Math.floor((100_000 * 1000) / 3), end: T0 + Math.floor((2 * 100_000 * 1000) / 3) - 1 };
const [LO, HI] = [BigInt(THIRD.start), BigInt(THIRD.end)];

// Imported by a specifier esbuild does not follow: the Chromium page of the other benchmarks
// bundles bench/readers.mjs, and apache-arrow imported a second time from here broke its
// chunks there ("Cannot read properties of undefined (reading 'getVisitFnByTypeId')").
const nodeOnly = (s) => import(/* @vite-ignore */ s);

/** The row groups whose statistics may hold matching rows, with their first row's index. */
function rowGroups(metadata, q) {
  const out = [];
  let start = 0;
  metadata.row_groups.forEach((g, i) => {
    const stat = (name) => g.columns.find((c) => c.meta_data.path_in_schema[0] === name)?.meta_data.statistics;
    const n = Number(g.num_rows);
    let keep = true;
    if (q === 'device') {
      const s = stat('id1');
      keep = !s || (s.min_value <= DEVICE && DEVICE <= s.max_value);
    } else if (q === 'third') {
      const s = stat('time');
      keep = !s || (BigInt(s.min_value) <= HI && LO <= BigInt(s.max_value));
    }
    if (keep) out.push({ index: i, start, end: start + n });
    start += n;
  });
  return out;
}

/** The rows of `table` that match query `q`: runs of matching rows sliced and put together. */
function filterRows(arrow, table, q) {
  if (q === 'full') return table;
  const runs = [];
  let row = 0;
  let from = -1;
  for (const batch of table.batches) {
    const col = batch.getChild(q === 'device' ? 'id1' : 'time');
    const values = q === 'third' ? col.data[0].values : undefined;
    for (let i = 0; i < batch.numRows; i++, row++) {
      const hit = q === 'third' ? values[i] >= LO && values[i] <= HI : col.get(i) === DEVICE;
      if (hit && from < 0) from = row;
      if (!hit && from >= 0) runs.push([from, row]), (from = -1);
    }
  }
  if (from >= 0) runs.push([from, row]);
  if (runs.length === 1 && runs[0][0] === 0 && runs[0][1] === table.numRows) return table;
  if (!runs.length) return table.slice(0, 0);
  return new arrow.Table(runs.flatMap(([a, b]) => table.slice(a, b).batches));
}

/** A column of hyparquet's output (plain arrays, one per chunk) as an Arrow vector. */
function hyparquetVector(arrow, chunks, type) {
  const all = chunks.length === 1 ? chunks[0] : chunks.flatMap((c) => Array.from(c));
  const Typed = { Int64: BigInt64Array, Float64: Float64Array, Float32: Float32Array, Int32: Int32Array }[type];
  if (Typed && !all.some((v) => v === null || v === undefined)) return arrow.makeVector(Typed.from(all));
  return arrow.vectorFromArray(all, type === 'Utf8' ? new arrow.Utf8() : new arrow[type]());
}

const TYPES = { time: 'Int64', id1: 'Utf8', s1: 'Int64', s2: 'Float64', s3: 'Float32', s4: 'Int32' };

const withTable = (r) => ({ ...r, read: async (lib, bytes, c) => (await r.table(lib, bytes, c)).numRows });

export const PARQUET_READERS = {
  'parquet-wasm': withTable({
    // The Node build instantiates its wasm at import; hyparquet reads the footer statistics
    // (parquet-wasm's metadata API has none) to pick row groups.
    load: async () => ({ pw: await nodeOnly('parquet-wasm'), hq: await nodeOnly('hyparquet'), arrow: await nodeOnly('apache-arrow') }),
    init: () => {},
    table: (lib, bytes, c) => {
      let options;
      if (c.q !== 'full') {
        const meta = lib.hq.parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        options = { rowGroups: rowGroups(meta, c.q).map((g) => g.index) };
      }
      // Arrow IPC out of wasm memory into a JS buffer: the table apache-arrow reads.
      const ipc = lib.pw.readParquet(bytes, options).intoIPCStream();
      return filterRows(lib.arrow, lib.arrow.tableFromIPC(ipc), c.q);
    },
  }),
  hyparquet: withTable({
    load: async () => ({ hq: await nodeOnly('hyparquet'), arrow: await nodeOnly('apache-arrow') }),
    init: () => {},
    table: async (lib, bytes, c) => {
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const metadata = lib.hq.parquetMetadata(file);
      const batches = [];
      for (const g of rowGroups(metadata, c.q)) {
        const cols = {};
        await lib.hq.parquetRead({ file, metadata, rowStart: g.start, rowEnd: g.end, onChunk: (k) => (cols[k.columnName] ??= []).push(k) });
        const vectors = {};
        for (const [name, type] of Object.entries(TYPES)) vectors[name] = hyparquetVector(lib.arrow, cols[name].sort((a, b) => a.rowStart - b.rowStart).map((k) => k.columnData), type);
        batches.push(...new lib.arrow.Table(vectors).batches);
      }
      return filterRows(lib.arrow, new lib.arrow.Table(batches), c.q);
    },
  }),
  'duckdb-wasm': withTable({
    // DuckDB-wasm 1.28.0 (the newest with Parquet built in), its blocking Node bundle.
    load: async () => {
      const { createRequire } = await nodeOnly('node:module');
      const require = createRequire(import.meta.url);
      const file = (f) => require.resolve(`duckdb-wasm-parquet/dist/${f}`);
      return { m: require('duckdb-wasm-parquet/dist/duckdb-node-blocking.cjs'), file };
    },
    init: async (lib) => {
      const { m, file } = lib;
      const bundles = {
        mvp: { mainModule: file('duckdb-mvp.wasm'), mainWorker: file('duckdb-node-mvp.worker.cjs') },
        eh: { mainModule: file('duckdb-eh.wasm'), mainWorker: file('duckdb-node-eh.worker.cjs') },
      };
      lib.db = await m.createDuckDB(bundles, new m.VoidLogger(), m.NODE_RUNTIME);
      await lib.db.instantiate();
      lib.conn = lib.db.connect();
    },
    table: (lib, bytes, c) => {
      const where = c.q === 'device' ? ` WHERE id1 = '${DEVICE}'` : c.q === 'third' ? ` WHERE time BETWEEN ${THIRD.start} AND ${THIRD.end}` : '';
      lib.db.registerFileBuffer('bench.parquet', bytes);
      try {
        return lib.conn.query(`SELECT * FROM read_parquet('bench.parquet')${where}`);
      } finally {
        lib.db.dropFile('bench.parquet');
      }
    },
  }),
};

/** Rows and the sum of column s4 of a table (any apache-arrow version): the value check. */
export function checksum(table) {
  let sum = 0;
  for (const v of table.getChild('s4')) if (v !== null && v !== undefined) sum += Number(v);
  return { rows: table.numRows, s4sum: sum };
}
