// The module loader (src/wasm/instance.ts): errors that say what came back instead of wasm, one
// module per format in pool workers, and memory given back (an instance that grew past
// recycleBytes is replaced at the next call; open files move to the fresh instance).
import { encode } from '@msgpack/msgpack';
import type { Table } from 'apache-arrow';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantiateVariant } from '../src/cli/bench-file.js';
import { Hdf5File } from '../src/formats/hdf5/file.js';
import { decodeMsgpackStreamWith, decodeWith } from '../src/formats/msgpack/decode.js';
import { createPool, decodeMsgpack, decodeMsgpackAsync, memory, openHdf5, openTsFile } from '../src/node.js';
import { TsFile } from '../src/formats/tsfile/file.js';
import { compileModule } from '../src/wasm/compile.js';
import { configure, DEFAULT_RECYCLE_BYTES, loaded, WasmModule } from '../src/wasm/instance.js';
import { FIXTURES, fixturePairs } from './fixtures.js';
import { reference } from './helpers.js';
import { workerUrl } from './pools.js';

const wasmDir = join(import.meta.dirname, '../wasm');
const dist = join(import.meta.dirname, '../dist/node.js');

describe('a source that is not wasm is an error naming the URL, the status and what came back', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/spa/arrowsmith_msgpack_simd.wasm') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><body>app</body></html>');
      if (req.url === '/ok.wasm') return void res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(readFileSync(join(wasmDir, 'arrowsmith_msgpack_scalar.wasm')));
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found: no such file');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server.close());

  it('a page served in place of the file (a dev server or SPA fallback)', async () => {
    const e = await compileModule(`${base}/spa/arrowsmith_msgpack_simd.wasm`, 'the msgpack module (simd)').catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toContain(`${base}/spa/arrowsmith_msgpack_simd.wasm`);
    expect((e as Error).message).toMatch(/HTTP 200, text\/html, \d+ bytes starting "<!doctype html><html>/);
  });

  it('a 404', async () => {
    const e = (await compileModule(new URL(`${base}/nope/arrowsmith_hdf5_scalar.wasm`), 'the hdf5 module (scalar)').catch((x: Error) => x)) as Error;
    expect(e.message).toContain(`${base}/nope/arrowsmith_hdf5_scalar.wasm`);
    expect(e.message).toMatch(/HTTP 404 Not Found, text\/plain, 23 bytes starting "Not Found: no such file"/);
  });

  it('bytes that are not wasm, and a server that is not there', async () => {
    await expect(compileModule(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), 'x')).rejects.toThrow(/the bytes given is not a wasm module: 8 bytes starting 89 50 4e 47/);
    await expect(compileModule(new Uint8Array(0), 'x')).rejects.toThrow(/an empty body/);
    await expect(compileModule('http://127.0.0.1:1/arrowsmith_msgpack_simd.wasm', 'the msgpack module (simd)')).rejects.toThrow(
      /could not fetch the msgpack module \(simd\) from http:\/\/127\.0\.0\.1:1\/arrowsmith_msgpack_simd\.wasm/,
    );
  });

  it('a real module compiles, streamed', async () => {
    expect(await compileModule(`${base}/ok.wasm`, 'x')).toBeInstanceOf(WebAssembly.Module);
  });
});

// Workers and fresh instances compile wasm: slow on a loaded machine (never timed).
describe('pool workers get the compiled module of each format a job needs', { timeout: 120_000 }, () => {
  it('MessagePack jobs instantiate only the MessagePack module; a TsFile job adds the TsFile one', async () => {
    const pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
    try {
      expect(pool.stats().wasm).toEqual([{}, {}]);
      const bytes = encode(Array.from({ length: 4000 }, (_, i) => ({ id: i, s: `r${i}` })));
      expect((await decodeMsgpackAsync(bytes, { pool })).numRows).toBe(4000);
      for (const w of pool.stats().wasm) expect(Object.keys(w)).toEqual(['msgpack']);
      const ts = readFileSync(join(FIXTURES, 'tsfile/cpp_many_devices_ts2diff.tsfile'));
      const want = await (await openTsFile(ts)).read();
      const got = await (await openTsFile(ts, { pool })).read();
      expect(got.numRows).toBe(want.numRows);
      expect(pool.stats().wasm.some((w) => Object.keys(w).sort().join() === 'msgpack,tsfile')).toBe(true);
      expect(pool.stats().wasm.every((w) => w.hdf5 === undefined)).toBe(true);
    } finally {
      pool.close();
    }
  });
});

describe('memory given back', { timeout: 120_000 }, () => {
  it('the default limit is documented as 256 MiB', () => {
    expect(DEFAULT_RECYCLE_BYTES).toBe(256 * 1024 * 1024);
  });

  it('an instance grown past recycleBytes is replaced at the next call; objects of the old one keep working', async () => {
    const base = instantiateVariant('simd');
    const m = new WasmModule('msgpack', base.owner.module, true, 48 * 1024 * 1024);
    const small = encode([1, 2.5, null]);
    const first = m.instance();
    const baseline = m.memoryBytes();
    expect(decodeWith(first, small).numRows).toBe(3);
    // A stream started on the first instance, to be finished after the replacement.
    const chunks = encode(Array.from({ length: 300 }, (_, i) => ({ i })));
    const stream = decodeMsgpackStreamWith(first, [chunks.subarray(0, 100), chunks.subarray(100)], { batchRows: 100 });
    const firstBatch = await stream.next();
    expect(firstBatch.value?.numRows).toBe(100);
    // 3M doubles: 27 MB in, 24 MB out, past the 48 MiB limit.
    const big = encode(Array.from({ length: 3_000_000 }, (_, i) => i + 0.5));
    const t = decodeWith(m.instance(), big);
    expect(t.numRows).toBe(3_000_000);
    expect(t.getChildAt(0)!.get(2_999_999)).toBe(2_999_999.5);
    expect(m.memoryBytes()).toBeGreaterThan(48 * 1024 * 1024);
    // The next call: a fresh instance, back at the baseline.
    const next = m.instance();
    expect(next).not.toBe(first);
    expect(m.replaced).toBe(1);
    expect(m.memoryBytes()).toBe(baseline);
    expect(decodeWith(next, small).toArray().map((r) => r.toJSON())).toEqual(decodeWith(first, small).toArray().map((r) => r.toJSON()));
    // The stream of the old instance still finishes right.
    let rows = 100;
    for await (const b of { [Symbol.asyncIterator]: () => stream }) rows += b.numRows;
    expect(rows).toBe(300);
    // Under the limit: the same instance call after call.
    for (let i = 0; i < 100; i++) expect(m.instance()).toBe(next);
  });

  it('open files move to the fresh instance and read the same (memory and ranged sources)', async () => {
    const h5 = fixturePairs('hdf5', '.h5').find((f) => f.name === 'vl_latest.h5')!;
    const ts = fixturePairs('tsfile', '.tsfile').find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const ranged = (b: Uint8Array) => ({ size: b.length, read: async (o: number, n: number) => b.slice(o, o + n) });
    // Reference reads on an instance that is never replaced.
    const stableH5 = await Hdf5File.openWith(instantiateVariant('simd', 'hdf5'), h5.data);
    const stableTs = await TsFile.openWith(instantiateVariant('simd', 'tsfile'), ts.data);
    const paths = Object.keys(h5.json.datasets).slice(0, 6);
    // The rows and schema as text (IPC bytes would differ by Arrow's global dictionary ids).
    const ipc = (t: Table) =>
      `${t.schema.fields.map(String).join()}|${JSON.stringify(t.toArray(), (_, v) => (typeof v === 'bigint' ? `${v}n` : ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v))}`;
    const want = { list: await stableH5.list('/'), attrs: await stableH5.attrs('/'), reads: await Promise.all(paths.map(async (p) => ipc(await stableH5.read(p)))), ts: ipc(await stableTs.read()) };
    // Every call of this thread's modules now replaces the instance (any memory is past 1 byte).
    configure({ recycleBytes: 1 });
    try {
      for (const src of [h5.data, ranged(h5.data)]) {
        const f = await openHdf5(src);
        const before = loaded('hdf5')!.replaced;
        expect(await f.list('/')).toEqual(want.list);
        expect(await f.attrs('/')).toEqual(want.attrs);
        for (const [i, p] of paths.entries()) {
          const t = await f.read(p);
          expect(t.numRows).toBe(h5.json.datasets[p].shape[0] ?? 1);
          expect(ipc(t)).toBe(want.reads[i]);
        }
        expect(loaded('hdf5')!.replaced - before).toBeGreaterThanOrEqual(paths.length);
        f.close();
      }
      for (const src of [ts.data, ranged(ts.data)]) {
        const f = await openTsFile(src);
        const before = loaded('tsfile')!.replaced;
        expect(ipc(await f.read())).toBe(want.ts);
        expect(ipc(await f.read())).toBe(want.ts);
        expect(f.devices().length).toBe(ts.json.devices.length);
        expect(loaded('tsfile')!.replaced - before).toBeGreaterThanOrEqual(2);
        f.close();
      }
      // MessagePack: each call on a fresh instance, the same answer.
      const bytes = encode([{ a: 1 }, { a: 2.5 }, { b: 'x' }]);
      const before = loaded('msgpack')?.replaced ?? 0;
      for (let i = 0; i < 20; i++) expect(decodeMsgpack(bytes).toArray().map((r) => r.toJSON())).toEqual((reference(bytes) as object[]).map((r) => ({ a: null, b: null, ...r })));
      expect(loaded('msgpack')!.replaced - before).toBeGreaterThanOrEqual(19);
    } finally {
      configure({ recycleBytes: DEFAULT_RECYCLE_BYTES });
    }
    expect(memory().hdf5).toBeGreaterThan(0);
  });

  it('a process returns to its baseline after a big read, and stays flat over 2,000 replacing calls', () => {
    // A fresh process with --expose-gc: resident memory, not just the instance's size.
    const code = `
      import * as a from ${JSON.stringify(dist)};
      const MiB = 1024 * 1024;
      const rss = () => (globalThis.gc(), globalThis.gc(), process.memoryUsage().rss / MiB);
      await a.init({ recycleBytes: 64 * MiB });
      const small = new Uint8Array([0x93, 0x01, 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, 0xc0]);
      for (let i = 0; i < 50; i++) a.decodeMsgpack(small);
      const base = rss();
      // 16M doubles: 144 MB in, 128 MB out (input and table dropped at once: only wasm memory stays).
      const bigRead = () => {
        const n = 16_000_000;
        const big = new Uint8Array(5 + 9 * n);
        const dv = new DataView(big.buffer);
        big[0] = 0xdd; dv.setUint32(1, n);
        for (let i = 0; i < n; i++) { big[5 + 9 * i] = 0xcb; dv.setFloat64(6 + 9 * i, i); }
        const t = a.decodeMsgpack(big);
        return t.get(n - 1).value === n - 1 ? t.numRows : -1;
      };
      const rows = bigRead();
      const grownWasm = a.memory().msgpack / MiB;
      const afterBig = rss();
      a.decodeMsgpack(small);
      const after = rss();
      // Now every call replaces: no instance may leak.
      await a.init({ recycleBytes: 1 });
      for (let i = 0; i < 200; i++) a.decodeMsgpack(small);
      const warm = rss();
      for (let i = 0; i < 2000; i++) a.decodeMsgpack(small);
      const end = rss();
      console.log(JSON.stringify({ rows, grownWasm, base, afterBig, after, wasmAfter: a.memory().msgpack / MiB, warm, end }));
    `;
    const out = execFileSync('node', ['--expose-gc', '--input-type=module', '-e', code], { maxBuffer: 1 << 20 }).toString();
    const r = JSON.parse(out) as { rows: number; grownWasm: number; base: number; afterBig: number; after: number; wasmAfter: number; warm: number; end: number };
    expect(r.rows).toBe(16_000_000);
    expect(r.grownWasm).toBeGreaterThan(250);
    // The grown instance's ~270 MB are resident after the read, and gone after the next call.
    expect(r.afterBig - r.base).toBeGreaterThan(200);
    expect(r.after - r.base).toBeLessThan(40);
    expect(r.wasmAfter).toBeLessThan(4);
    expect(r.end - r.warm).toBeLessThan(24);
  }, 120_000);
});
