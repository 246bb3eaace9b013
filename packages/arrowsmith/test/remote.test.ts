// URL sources: a local HTTP server that counts requests and bytes. Reading one dataset or
// one device's column transfers a small part of the file, the result equals the in-memory
// read, and misbehaving servers give a correct result or a clear error, never a hang.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ByteCache } from '../src/io/byte-cache.js';
import { createPool, openHdf5, openTsFile } from '../src/node.js';
import { FIXTURES } from './fixtures.js';
import { workerUrl } from './pools.js';

type Mode = 'ranges' | 'no-head' | 'ignore-range' | 'drop';
const stats = { requests: 0, bytes: 0 };
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, mode, ...rest] = new URL(req.url!, 'http://x').pathname.split('/');
    let body: Buffer;
    try {
      body = readFileSync(join(FIXTURES, ...rest));
    } catch {
      return void res.writeHead(404).end();
    }
    stats.requests++;
    if (req.method === 'HEAD') {
      if (mode === 'no-head') return void res.writeHead(405).end();
      return void res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end();
    }
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (!m || (mode as Mode) === 'ignore-range') {
      stats.bytes += body.length;
      return void res.writeHead(200, { 'Content-Length': body.length }).end(body);
    }
    const [a, b] = [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
    const part = body.subarray(a, b + 1);
    res.writeHead(206, { 'Content-Length': part.length, 'Content-Range': `bytes ${a}-${b}/${body.length}` });
    if (mode === 'drop' && a > 0) {
      res.write(part.subarray(0, part.length >> 1));
      stats.bytes += part.length >> 1;
      return void res.destroy();
    }
    stats.bytes += part.length;
    res.end(part);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const reset = () => Object.assign(stats, { requests: 0, bytes: 0 });
const rows = (t: { toArray(): unknown[] }) => JSON.stringify(t.toArray(), (_, v) => (typeof v === 'bigint' ? String(v) : v));

describe('remote files over HTTP Range', () => {
  it('HDF5: one dataset transfers a small fraction and equals the in-memory read', async () => {
    const file = 'hdf5/vl_earliest.h5';
    const size = readFileSync(join(FIXTURES, file)).length;
    const local = await (await openHdf5(readFileSync(join(FIXTURES, file)))).read('/vlseq_be');
    reset();
    const remote = await (await openHdf5(`${base}/ranges/${file}`)).read('/vlseq_be');
    expect(rows(remote)).toBe(rows(local));
    expect(stats.bytes / size).toBeLessThan(0.25);
  });

  it('TsFile: one measurement of one device transfers a fraction of the file', async () => {
    const file = 'tsfile/java_tree_nonaligned.tsfile';
    const bytes = readFileSync(join(FIXTURES, file));
    const f = await openTsFile(bytes);
    const dev = f.devices()[0]!.path;
    const col = (await f.timeseries()).find((s) => s.device === dev)!.measurement;
    const local = await f.read({ devices: [dev], columns: [col] });
    reset();
    const remote = await (await openTsFile(`${base}/ranges/${file}`)).read({ devices: [dev], columns: [col] });
    expect(rows(remote)).toBe(rows(local));
    expect(stats.bytes / bytes.length).toBeLessThan(0.6);
  });

  it('TsFile (table model, 16 devices): one field of one device transfers under 10% of the file', async () => {
    // fixtures/remote: written by the official C++ writer (scripts/fixtures/tsfile/gen_bench.py
    // --devices 16 --rows 2000 --writer-defaults --compression LZ4).
    const file = 'remote/table_16dev.tsfile';
    const bytes = readFileSync(join(FIXTURES, file));
    const q = { table: 'bench_table', columns: ['s2'], tags: { id1: 'device07' } };
    const local = await (await openTsFile(bytes)).read(q);
    expect(local.numRows).toBe(2000);
    reset();
    const remote = await (await openTsFile(`${base}/ranges/${file}`)).read(q);
    expect(rows(remote)).toBe(rows(local));
    expect(stats.bytes / bytes.length).toBeLessThan(0.1);
  });

  it('repeated reads are served from a bounded byte cache', async () => {
    const file = 'tsfile/java_tree_nonaligned.tsfile';
    const f = await openTsFile(`${base}/ranges/${file}`);
    const dev = f.devices()[0]!.path;
    const first = await f.read({ devices: [dev] });
    reset();
    const again = await f.read({ devices: [dev] });
    expect(rows(again)).toBe(rows(first));
    expect(stats.requests).toBe(0);
    const c = new ByteCache(10);
    c.put(0, new Uint8Array([1, 2, 3, 4, 5, 6]));
    c.put(100, new Uint8Array([7, 8, 9, 10, 11, 12]));
    expect(c.get(0, 2)).toBeUndefined(); // evicted: 12 bytes > 10
    expect([...c.get(101, 3)!]).toEqual([8, 9, 10]);
  });

  it('TsFile batches on a pool from a URL: each device fetched once by this thread, not once per window or worker', async () => {
    // 2 devices × 400 rows in batches of 50: 16 windows on 2 workers. The workers open the
    // file (its head and tail) and get each window's ranges from this thread.
    const file = 'tsfile/cpp_multipage_gorilla_lz4.tsfile';
    const size = readFileSync(join(FIXTURES, file)).length;
    const pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
    try {
      const f = await openTsFile(`${base}/ranges/${file}`, { pool });
      reset();
      let rows = 0;
      let batches = 0;
      for await (const b of f.batches({ rows: 50 })) {
        rows += b.numRows;
        batches++;
      }
      expect(batches).toBeGreaterThanOrEqual(16);
      expect(rows).toBe(800);
      expect(stats.bytes / size).toBeLessThan(1.75);
    } finally {
      pool.close();
    }
  }, 60_000);

  it('a worker pool reads a URL with its own Range requests: same result, bytes bounded', async () => {
    // Each worker opens the file itself (metadata), so a pool of n transfers at most
    // (1 + n) times what one thread does; the data itself is split, not repeated.
    const pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
    try {
      const h5 = 'hdf5/vl_earliest.h5';
      const local = await (await openHdf5(readFileSync(join(FIXTURES, h5)))).read('/vlseq_be');
      reset();
      await (await openHdf5(`${base}/ranges/${h5}`)).read('/vlseq_be');
      const one = stats.bytes;
      reset();
      const remote = await (await openHdf5(`${base}/ranges/${h5}`, { pool })).read('/vlseq_be');
      expect(rows(remote)).toBe(rows(local));
      expect(stats.bytes).toBeLessThanOrEqual(3 * one);
      const ts = 'tsfile/java_tree_nonaligned.tsfile';
      const f = await openTsFile(readFileSync(join(FIXTURES, ts)));
      const dev = f.devices()[0]!.path;
      const col = (await f.timeseries()).find((s) => s.device === dev)!.measurement;
      const q = { devices: [dev], columns: [col] };
      reset();
      await (await openTsFile(`${base}/ranges/${ts}`)).read(q);
      const oneTs = stats.bytes;
      reset();
      const t = await (await openTsFile(`${base}/ranges/${ts}`, { pool })).read(q);
      expect(rows(t)).toBe(rows(await f.read(q)));
      expect(stats.bytes).toBeLessThanOrEqual(3 * oneTs);
    } finally {
      pool.close();
    }
  });

  it('a server that refuses HEAD: the size comes from a bytes=0-0 GET', async () => {
    const t = await (await openHdf5(`${base}/no-head/hdf5/vl_earliest.h5`)).read('/vlseq_be');
    expect(t.numRows).toBeGreaterThan(0);
  });

  it('a server that ignores Range: one whole download, same result, said once', async () => {
    reset();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const t = await (await openHdf5(`${base}/ignore-range/hdf5/vl_earliest.h5`)).read('/vlseq_be');
    expect(t.numRows).toBeGreaterThan(0);
    expect(stats.bytes).toBe(readFileSync(join(FIXTURES, 'hdf5/vl_earliest.h5')).length);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it('a connection dropped mid-file is an error, not a hang', async () => {
    await expect((async () => (await openHdf5(`${base}/drop/hdf5/vl_earliest.h5`)).read('/vlseq_be'))()).rejects.toThrow();
  }, 20_000);

  it('a missing file is a clear error', async () => {
    await expect(openHdf5(`${base}/ranges/hdf5/nope.h5`)).rejects.toThrow(/404|failed/);
  });
});
