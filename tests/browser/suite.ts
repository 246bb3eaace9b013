// The browser half of the MessagePack suite: the same corpora and the same comparison
// (compare.ts) as the Node tests, run in headless Chromium against the browser entry.
import { init, createPool, decodeMsgpack, decodeMsgpackAsync, decodeMsgpackStream, openHdf5, openTsFile, simdActive, DecodeError } from 'arrowsmith';
import { RecordBatch, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { parseExact, reference, referenceMulti, tableMismatches, valueAt } from '../../packages/arrowsmith/test/compare.js';
import { type EncoderFixture, fixtureMismatches, fromTyped } from '../../packages/arrowsmith/test/encoders.js';
import { fileProblems } from '../../packages/arrowsmith/test/hdf5-compare.js';
import { deviceMismatches, tableMismatches as tsTableMismatches } from '../../packages/arrowsmith/test/tsfile-compare.js';

interface Result { name: string; ok: boolean; detail?: string }
const results: Result[] = [];
const check = (name: string, problems: string[]) => results.push({ name, ok: problems.length === 0, detail: problems.slice(0, 3).join('; ') });

async function run() {
  const params = new URLSearchParams(location.search);
  const simd = params.get('simd') === '1';
  const { simd: active } = await init({ simd, baseUrl: new URL('./wasm/', location.href) });
  check(`init chose the ${simd ? 'SIMD' : 'scalar'} build`, active === simd && simdActive() === simd ? [] : [`active=${active}`]);
  const isolated = params.get('isolated') === '1';
  check(`page is ${isolated ? '' : 'not '}cross-origin isolated`, globalThis.crossOriginIsolated === isolated ? [] : [`crossOriginIsolated=${globalThis.crossOriginIsolated}`]);
  const files = (await (await fetch('fixtures/index.json')).json()) as string[];
  for (const f of files) {
    const bytes = new Uint8Array(await (await fetch(`fixtures/${f}`)).arrayBuffer());
    const rows = f.includes('stream') ? referenceMulti(bytes) : (reference(bytes) as unknown[]);
    try {
      const t = decodeMsgpack(bytes);
      // Survives an IPC round trip (what the demo's worker does).
      check(`${f} matches @msgpack/msgpack`, tableMismatches(tableFromIPC(tableToIPC(t)), rows));
    } catch (e) {
      check(`${f} matches @msgpack/msgpack`, [String(e)]);
    }
  }
  // Streaming from a real fetch body.
  const res = await fetch('fixtures/py_records.msgpack');
  const whole = decodeMsgpack(new Uint8Array(await (await fetch('fixtures/py_records.msgpack')).arrayBuffer()));
  let n = 0;
  for await (const b of decodeMsgpackStream(res.body!, { batchRows: 700 })) n += b.numRows;
  check('stream from a fetch body', n === whole.numRows ? [] : [`${n} rows streamed, ${whole.numRows} decoded`]);
  try {
    decodeMsgpack(new Uint8Array([0x92, 0x01, 0xc1]));
    check('malformed input → DecodeError', ['no error thrown']);
  } catch (e) {
    check('malformed input → DecodeError', e instanceof DecodeError && e.offset === 2 ? [] : [String(e)]);
  }
  await hdf5Suite();
  await hdf5ExternalSuite();
  await inputSuite();
  await tsfileSuite();
  await blobUnderGcSuite();
  await poolSuite(files);
  await encodersSuite();
}

/**
 * The real-encoder fixtures: each read equals the writer's reader's values (and
 * @msgpack/msgpack's where it reads the bytes), streamed from a fetch body and decoded on
 * a worker pool it gives the same table.
 */
async function encodersSuite() {
  const names = (await (await fetch('fixtures/encoders.json')).json()) as string[];
  const pool = await createPool({ size: 2, workerUrl: new URL('./pool-worker.js', location.href), minJobBytes: 0 });
  try {
    for (const name of names) {
      const meta = (await (await fetch(`fixtures/encoders/${name}.json`)).json()) as EncoderFixture;
      const bytes = new Uint8Array(await (await fetch(`fixtures/encoders/${name}.msgpack`)).arrayBuffer());
      const values = fromTyped(meta.expected);
      for (const read of meta.reads) {
        if (read.error) {
          // A typed error in every verb (e.g. ints Float64 cannot hold exactly among floats).
          const problems: string[] = [];
          const code = async (f: () => unknown) => {
            try {
              await f();
              return 'no error';
            } catch (e) {
              return (e as { code?: string }).code;
            }
          };
          const stream = async () => {
            for await (const _ of decodeMsgpackStream((await fetch(`fixtures/encoders/${name}.msgpack`)).body!, read.options));
          };
          for (const [verb, f] of [['decodeMsgpack', () => decodeMsgpack(bytes, read.options)], ['stream', stream], ['pool', () => decodeMsgpackAsync(bytes, { ...read.options, pool })]] as const) {
            const got = await code(f);
            if (got !== read.error) problems.push(`${verb}: ${got}, expected ${read.error}`);
          }
          check(`${name} ${JSON.stringify(read.options ?? {})} is a ${read.error} error in every verb`, problems);
          continue;
        }
        const label = `${name} ${JSON.stringify(read.options ?? {})} equals ${meta.writer}'s reader; stream and pool equal it`;
        try {
          const t = decodeMsgpack(bytes, read.options);
          const problems = fixtureMismatches(t, values, read);
          if (meta.msgpack) problems.push(...fixtureMismatches(t, reference(bytes), read).map((p) => `@msgpack/msgpack: ${p}`));
          const batches = [];
          for await (const b of decodeMsgpackStream((await fetch(`fixtures/encoders/${name}.msgpack`)).body!, read.options)) batches.push(b);
          problems.push(...tableDiff(t, new Table(batches)).map((p) => `stream: ${p}`));
          problems.push(...tableDiff(t, await decodeMsgpackAsync(bytes, { ...read.options, pool })).map((p) => `pool: ${p}`));
          check(label, problems);
        } catch (e) {
          check(label, [String(e)]);
        }
      }
    }
  } finally {
    pool.close();
  }
}

/** Every HDF5 fixture against its writer's expected values (as in vitest). */
async function hdf5Suite() {
  const names = (await (await fetch('fixtures/hdf5/index.json')).json()) as string[];
  for (const n of names) {
    const bytes = new Uint8Array(await (await fetch(`fixtures/hdf5/${n}`)).arrayBuffer());
    // biome-ignore lint/suspicious/noExplicitAny: the expected JSON is written by the writer's reader
    const json = parseExact(await (await fetch(`fixtures/hdf5/${n.replace(/\.[^.]+$/, '.json')}`)).text()) as any;
    try {
      check(`HDF5 ${n} matches its writer's reader`, await fileProblems(await openHdf5(bytes), json));
    } catch (e) {
      check(`HDF5 ${n} matches its writer's reader`, [String(e)]);
    }
  }
}

/**
 * HDF5 external links (fixtures/hdf5/external, as test/hdf5-external.test.ts): main.h5 links
 * into target.h5 and on to third.h5; every dataset reached through a link equals h5py's read,
 * with the resolver giving a URL, bytes or a Blob, on this thread and on a pool; without a
 * resolver the error names the link, the file and the path there.
 */
async function hdf5ExternalSuite() {
  const base = new URL('fixtures/hdf5/external/', location.href);
  const bytesOf = async (n: string) => new Uint8Array(await (await fetch(new URL(n, base))).arrayBuffer());
  // biome-ignore lint/suspicious/noExplicitAny: main.json is written by h5py (scripts/fixtures/hdf5/gen_external.py)
  const json = parseExact(await (await fetch(new URL('main.json', base))).text()) as any;
  const main = await bytesOf('main.h5');
  const pool = await createPool({ size: 2, workerUrl: new URL('./pool-worker.js', location.href), minJobBytes: 0 });
  const kinds: [string, (n: string) => unknown][] = [
    ['a URL', (n) => (n === 'missing.h5' ? undefined : new URL(n, base))],
    ['bytes', (n) => (n === 'missing.h5' ? undefined : bytesOf(n))],
    ['a Blob', async (n) => (n === 'missing.h5' ? undefined : new Blob([await bytesOf(n)]))],
  ];
  try {
    for (const [kind, source] of kinds) {
      for (const [mode, extra] of [['one thread', {}], ['pool', { pool }]] as const) {
        const label = `HDF5 external links, resolver gives ${kind} (${mode}): every dataset equals h5py's read, each linked file opened once`;
        try {
          const asked: string[] = [];
          const resolve = (n: string) => (asked.push(n), source(n)) as never;
          const f = await openHdf5(main, { ...extra, resolve });
          const problems = await fileProblems(f, json);
          if (asked.sort().join() !== 'target.h5,third.h5') problems.push(`resolver asked for ${asked}`);
          const e = await f.read('/ext_missing').catch((x: unknown) => x);
          if (!(e instanceof DecodeError) || e.code !== 'not-found' || !e.message.includes(json.unresolved['/ext_missing'])) problems.push(`missing file: ${String(e)}`);
          f.close();
          check(label, problems);
        } catch (e) {
          check(label, [String(e)]);
        }
      }
    }
  } finally {
    pool.close();
  }
  const label = 'HDF5 external link without a resolver: unsupported, naming the link, the file and the path';
  try {
    const f = await openHdf5(main);
    const e = await f.read('/ext_group/inner').catch((x: unknown) => x);
    const problems: string[] = [];
    if (!(e instanceof DecodeError) || e.code !== 'unsupported' || !e.message.includes('/ext_group: external link to target.h5:/grp/inner')) problems.push(String(e));
    const local = [...(await f.read('/local')).getChild('local')!].map(String).join();
    if (local !== json.datasets['/local'].rows.join()) problems.push(`/local: ${local}`);
    f.close();
    check(label, problems);
  } catch (e) {
    check(label, [String(e)]);
  }
}

/** Inputs as a browser holds them: ArrayBuffer, DataView, Blob/File, Response, URL. */
async function inputSuite() {
  const url = new URL('fixtures/py_records.msgpack', location.href);
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const rows = reference(bytes) as unknown[];
  const view = new Uint8Array(bytes.length + 5);
  view.set(bytes, 5);
  check('decodeMsgpack(ArrayBuffer) matches @msgpack/msgpack', tableMismatches(decodeMsgpack(bytes.slice().buffer), rows));
  check('decodeMsgpack(DataView) matches @msgpack/msgpack', tableMismatches(decodeMsgpack(new DataView(view.buffer, 5)), rows));
  for (const [name, input] of [['Blob', new Blob([bytes])], ['File', new File([bytes], 'r.msgpack')], ['Response', await fetch(url)], ['URL', url], ['URL string', url.href]] as const) {
    try {
      check(`decodeMsgpackAsync(${name}) matches @msgpack/msgpack`, tableMismatches(await decodeMsgpackAsync(input), rows));
    } catch (e) {
      check(`decodeMsgpackAsync(${name}) matches @msgpack/msgpack`, [String(e)]);
    }
  }
  let typeError = 'no error';
  try {
    decodeMsgpack(42 as never);
  } catch (e) {
    typeError = e instanceof TypeError && /not a number \(42\)/.test(e.message) ? '' : String(e);
  }
  check('decodeMsgpack(42) is a TypeError naming a number', typeError ? [typeError] : []);
  const h5url = new URL('fixtures/vl_latest.h5', location.href);
  const h5 = new Uint8Array(await (await fetch(h5url)).arrayBuffer());
  const want = await (await openHdf5(h5)).read('/vlseq_be');
  for (const [name, input] of [['Response', await fetch(h5url)], ['File', new File([h5], 'x.h5')], ['URL', h5url]] as const) {
    try {
      const f = await openHdf5(input);
      check(`openHdf5(${name}) equals the bytes' table`, tableDiff(want, await f.read('/vlseq_be')));
      await f.close();
      const closed = await f.read('/vlseq_be').then(() => 'resolved', (e) => String(e));
      check(`openHdf5(${name}): a closed file says so`, /closed/.test(closed) ? [] : [closed]);
    } catch (e) {
      check(`openHdf5(${name}) equals the bytes' table`, [String(e)]);
    }
  }
  const reason = new Error('stop');
  const f = await openHdf5(h5);
  const got = await f.read('/vlseq_be', { signal: AbortSignal.abort(reason) }).then(() => 'resolved', (e) => (e === reason ? '' : String(e)));
  check('a read without a pool rejects with the signal’s reason', got ? [got] : []);
  check('files are disposable', typeof f[Symbol.dispose] === 'function' && typeof f[Symbol.asyncDispose] === 'function' ? [] : ['no Symbol.dispose']);
}

/** Every TsFile fixture, every value against the official readers' JSON (as in Node). */
async function tsfileSuite() {
  const names = (await (await fetch('fixtures/tsfile-index.json')).json()) as string[];
  for (const name of names) {
    const data = new Uint8Array(await (await fetch(`fixtures/tsfile/${name}`)).arrayBuffer());
    // biome-ignore lint/suspicious/noExplicitAny: the expected JSON's shape is the generators'
    const json: any = parseExact(await (await fetch(`fixtures/tsfile/${name.replace(/\.tsfile$/, '.json')}`)).text());
    // IoTDB deletion fixtures hold the server's answers after DELETEs, not the file's points:
    // they are read with their .mods2 in test/tsfile.test.ts and crates/tsfile/tests/mods.rs.
    if (json.after_deletes) continue;
    // Out-of-order chunk groups hold several queries of the Java reader (whole, time range):
    // compared in Node by test/tsfile-order.test.ts and crates/tsfile/tests/order_fixtures.rs.
    if (json.queries) continue;
    try {
      const f = await openTsFile(data);
      if (json.model === 'tree') {
        const problems: string[] = [];
        for (const dev of json.devices) problems.push(...deviceMismatches(await f.read({ devices: [dev.path] }), dev).problems);
        check(`TsFile ${name}: every point`, problems);
      } else {
        check(`TsFile ${name}: every value`, tsTableMismatches(await f.read({ table: json.table, timeUnit: json.time_unit }), json));
      }
      f.close();
    } catch (e) {
      check(`TsFile ${name}`, [String(e)]);
    }
  }
}

/**
 * TsFile batches from a Blob while the page collects garbage all the time (`gc`, exposed in
 * the browser tests' Chromium): the Blob's stream reads settle and give the official reader's
 * values. (Chromium collects a Blob's byte stream that nothing holds while a BYOB read of it
 * is pending: that read never settled.)
 */
async function blobUnderGcSuite() {
  const data = new Uint8Array(await (await fetch('fixtures/tsfile/cpp_many_devices_ts2diff.tsfile')).arrayBuffer());
  // biome-ignore lint/suspicious/noExplicitAny: the expected JSON's shape is the generators'
  const json: any = parseExact(await (await fetch('fixtures/tsfile/cpp_many_devices_ts2diff.json')).text());
  const gc = (globalThis as { gc?: () => void }).gc;
  const timer = gc && setInterval(gc, 0);
  const name = `TsFile batches from a Blob${gc ? ' while the page collects garbage' : ''}: every value`;
  try {
    const f = await openTsFile(new Blob([data]));
    const read = (async () => {
      const got: RecordBatch[] = [];
      for await (const b of f.batches({ table: json.table, timeUnit: json.time_unit, rows: 5 })) got.push(b);
      return got;
    })();
    const late = new Promise<'stalled'>((ok) => setTimeout(() => ok('stalled'), 20_000));
    const got = await Promise.race([read, late]);
    if (got === 'stalled') check(name, ['a read never settled (20 s)']);
    // Each batch has its own tag dictionary: one schema to concatenate them.
    else check(name, tsTableMismatches(new Table(got.map((b) => new RecordBatch(got[0]!.schema, b.data))), json));
    f.close();
  } catch (e) {
    check(name, [String(e)]);
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** Where two tables differ (schema, row count, first differing values). */
function tableDiff(a: Table, b: Table): string[] {
  const out: string[] = [];
  if (String(a.schema.fields) !== String(b.schema.fields)) out.push(`schema ${b.schema.fields} != ${a.schema.fields}`);
  if (a.numRows !== b.numRows) out.push(`${b.numRows} rows != ${a.numRows}`);
  const j = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? [...x] : x));
  for (let c = 0; c < a.numCols && out.length < 3; c++) {
    for (let i = 0; i < a.numRows; i++) {
      const [x, y] = [valueAt(a.getChildAt(c)!, i), valueAt(b.getChildAt(c)!, i)];
      if (j(x) !== j(y)) {
        out.push(`${a.schema.fields[c]!.name}[${i}]: ${j(y)} != ${j(x)}`);
        break;
      }
    }
  }
  return out;
}

/**
 * Whether this page can hand SharedArrayBuffers to a worker: cross-origin isolation is not
 * enough (WebKit on a COOP/COEP page reports crossOriginIsolated yet has no SharedArrayBuffer).
 */
function canPostShared(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || globalThis.crossOriginIsolated !== true) return false;
  try {
    const c = new MessageChannel();
    c.port1.postMessage(new SharedArrayBuffer(8));
    c.port1.close();
    return true;
  } catch {
    return false;
  }
}

/** The worker pool in this browser: Web Workers, shared memory when cross-origin isolated. */
async function poolSuite(files: string[]) {
  // Shared outputs are opt-in; asked for, they are honoured only where SharedArrayBuffer exists.
  const pool = await createPool({ size: 2, workerUrl: new URL('./pool-worker.js', location.href), minJobBytes: 0, sharedMemory: true });
  try {
    const shared = canPostShared();
    const why = shared ? 'SharedArrayBuffers (cross-origin isolated)' : globalThis.crossOriginIsolated ? 'transferred batches (isolated, but no SharedArrayBuffer to post)' : 'transferred batches (not isolated)';
    check(`pool output: ${why}`, pool.sharedMemory === shared ? [] : [`sharedMemory=${pool.sharedMemory}`]);
    for (const f of files) {
      const bytes = new Uint8Array(await (await fetch(`fixtures/${f}`)).arrayBuffer());
      const rows = f.includes('stream') ? referenceMulti(bytes) : (reference(bytes) as unknown[]);
      try {
        check(`pool: ${f} matches @msgpack/msgpack`, tableMismatches(await decodeMsgpackAsync(bytes, { pool }), rows));
      } catch (e) {
        check(`pool: ${f} matches @msgpack/msgpack`, [String(e)]);
      }
    }
    const ts = new Uint8Array(await (await fetch('fixtures/many_devices.tsfile')).arrayBuffer());
    const one = await (await openTsFile(ts)).read();
    check('pool: TsFile from bytes equals one thread', tableDiff(one, await (await openTsFile(ts, { pool })).read()));
    check('pool: TsFile from a Blob equals one thread', tableDiff(one, await (await openTsFile(new Blob([ts]), { pool })).read()));
    const h5 = new Uint8Array(await (await fetch('fixtures/vl_latest.h5')).arrayBuffer());
    const plain = await openHdf5(h5);
    const par = await openHdf5(h5, { pool });
    const problems: string[] = [];
    for (const e of await plain.list('/')) {
      if (e.kind !== 'dataset' || !(e.shape[0]! > 1)) continue;
      problems.push(...tableDiff(await plain.read('/' + e.name), await par.read('/' + e.name)).map((p) => `${e.name}: ${p}`));
    }
    check('pool: HDF5 VL datasets equal one thread', problems);
    const aborted = await decodeMsgpackAsync(new Uint8Array([0x92, 1, 2]), { pool, signal: AbortSignal.abort() }).then(() => 'resolved', (e) => (e as Error).name);
    check('pool: an aborted signal rejects with AbortError', aborted === 'AbortError' ? [] : [aborted]);
  } finally {
    pool.close();
  }
}

run().then(
  () => ((window as unknown as { __results: Result[] }).__results = results),
  (e) => ((window as unknown as { __results: Result[] }).__results = [...results, { name: 'suite crashed', ok: false, detail: String(e?.stack ?? e) }]),
);
