// The browser app every bundler builds: what a new user writes, with plain `await init()`
// and the default pool worker. Expected values (expected.json) come from the writers' own
// readers (@msgpack/msgpack, h5py, the tsfile reader), written by run.mjs.
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import * as aq from 'arquero';
import * as arrowsmith from 'arrowsmith';

const results = [];
const check = (name, ok, detail = '') => results.push({ name, ok: Boolean(ok), detail: String(detail) });
const json = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : ArrayBuffer.isView(x) ? Array.from(x) : x));
const bytesOf = async (path) => new Uint8Array(await (await fetch(path)).arrayBuffer());

/** Rows of a MessagePack records table as plain objects, the fields expected.json keeps. */
const msgpackProbe = (t) => ({ rows: t.numRows, idSum: t.getChild('id').toArray().reduce((a, b) => a + Number(b), 0), row7: { id: t.get(7).id, name: t.get(7).name, temp: t.get(7).temp } });
/** An HDF5 VL-sequence dataset as arrays of numbers. */
const h5Rows = (t) => t.getChildAt(0).toArray().map((v) => (v === null ? null : Array.from(v, Number)));
/** One device's time and i32 columns of the TsFile table. */
const tsDevice = (t, id1) => {
  const rows = t.toArray().filter((r) => r.id1 === id1);
  return { time: rows.map((r) => Number(r.time)), i32: rows.map((r) => r.i32) };
};

async function main() {
  const params = new URLSearchParams(location.search);
  const expected = await (await fetch('./data/expected.json')).json();
  // 1. init + the first decode, timed (the figure: time to first decode).
  const records = await bytesOf('./data/records.msgpack');
  const t0 = performance.now();
  const { simd } = await arrowsmith.init(params.has('scalar') ? { simd: false } : undefined);
  const t = arrowsmith.decodeMsgpack(records);
  const firstDecodeMs = performance.now() - t0;
  check('init() then decodeMsgpack', json(msgpackProbe(t)) === json(expected.msgpack), json(msgpackProbe(t)));
  check(`the ${params.has('scalar') ? 'scalar' : 'SIMD'} build was chosen`, simd === !params.has('scalar') && arrowsmith.simdActive() === simd, `simd=${simd}`);

  // 2. One Arrow: the consumer's own apache-arrow accepts the table.
  check('instanceof Table of the app’s apache-arrow', t instanceof Table);
  const ipc = tableToIPC(t);
  check('tableToIPC of the app’s apache-arrow', ipc.length > 1000 && json(msgpackProbe(tableFromIPC(ipc))) === json(expected.msgpack), `${ipc.length} bytes`);
  const dt = aq.fromArrow(ipc);
  check('arquero reads the IPC', dt.numRows() === expected.msgpack.rows && dt.get('name', 7) === expected.msgpack.row7.name && dt.get('temp', 7) === expected.msgpack.row7.temp, `${dt.numRows()} rows`);

  // 3. HDF5: bytes and URL (ranged reads), loaded on first open.
  const h5 = await bytesOf('./data/vl_latest.h5');
  const fromBytes = await arrowsmith.openHdf5(h5);
  check('HDF5 from bytes', json(h5Rows(await fromBytes.read(expected.hdf5.path))) === json(expected.hdf5.rows));
  const fromUrl = await arrowsmith.openHdf5(new URL('./data/vl_latest.h5', location.href));
  check('HDF5 from a URL', json(h5Rows(await fromUrl.read(expected.hdf5.path))) === json(expected.hdf5.rows));

  // 4. TsFile: the table.
  const ts = await arrowsmith.openTsFile(await bytesOf('./data/many_devices.tsfile'));
  const table = await ts.read({ table: expected.tsfile.table });
  check('TsFile table', table.numRows === expected.tsfile.rows && json(tsDevice(table, 'dev00')) === json(expected.tsfile.dev00), `${table.numRows} rows`);

  // 5. The default pool worker, as the bundler emitted it.
  const pool = await arrowsmith.createPool({ size: 2, minJobBytes: 0 });
  try {
    const p = await arrowsmith.decodeMsgpackAsync(records, { pool });
    check('MessagePack on the pool (default worker)', json(msgpackProbe(p)) === json(expected.msgpack) && pool.stats().jobs > 1, `${pool.stats().jobs} jobs`);
    const h = await (await arrowsmith.openHdf5(h5, { pool })).read(expected.hdf5.path);
    check('HDF5 on the pool', json(h5Rows(h)) === json(expected.hdf5.rows));
    const tp = await (await arrowsmith.openTsFile(await bytesOf('./data/many_devices.tsfile'), { pool })).read({ table: expected.tsfile.table });
    check('TsFile on the pool', tp.numRows === expected.tsfile.rows && json(tsDevice(tp, 'dev00')) === json(expected.tsfile.dev00));
  } finally {
    pool.close();
  }
  return { firstDecodeMs, simd, memory: arrowsmith.memory() };
}

main()
  .then((figures) => (window.__figures = figures))
  .catch((e) => check('no exception', false, e?.stack ?? e))
  .finally(() => (window.__results = results));
