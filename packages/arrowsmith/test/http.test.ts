// URL sources against a hostile server (node:http on 127.0.0.1, in this process): it drips,
// stalls, resets, fails with 5xx, lies about sizes and ranges and swaps the file between
// requests. Every case ends in a typed error (or the right rows) within 2 s, without a
// hang; transient failures are retried.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DecodeError, HttpError, openHdf5, openTsFile } from '../src/node.js';
import { FIXTURES } from './fixtures.js';
import { expectFails as expectTypedFailure, rows } from './hostile.js';

/** Network cases bound the wall time: waiting is what fails there. */
const expectFails: typeof expectTypedFailure = (f, codes, input = 0) => expectTypedFailure(f, codes, input, { wait: true });

const H5 = readFileSync(join(FIXTURES, 'hdf5/vl_earliest.h5'));
const TS = readFileSync(join(FIXTURES, 'tsfile/java_tree_nonaligned.tsfile'));
/** Fast policy for tests: the defaults (30 s, 3 retries from 250 ms) are for real networks. */
const FAST = { timeout: 800, retries: 2, retryDelay: 5 };

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
const handlers = new Map<string, Handler>();
const hits = new Map<string, number>();
const sockets = new Set<Socket>();
let server: Server;
let base = '';

beforeAll(async () => {
  // Load both format modules first: the cases time the network, not the first compile.
  await (await openHdf5(H5)).list('/');
  await openTsFile(TS);
  server = createServer((req, res) => {
    const name = req.url!.slice(1);
    const n = (hits.get(name) ?? 0) + 1;
    hits.set(name, n);
    handlers.get(name)!(req, res, n);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  return new Promise<void>((r) => server.close(() => r()));
});

let routes = 0;
/** A URL served by `h` (its own path, so hit counts are per test). */
function serve(h: Handler): string {
  const name = `case${routes++}`;
  handlers.set(name, h);
  return `${base}/${name}`;
}

interface FileOpts {
  etag?: string;
  headSize?: number;
  /** Answer ranges with this instead of the asked range. */
  range?: (a: number, b: number, size: number) => string;
  /** Send only this many body bytes (with a matching Content-Length). */
  cut?: number;
}

/** A well-behaved static file server for `body()` (a function: the file may change). */
function fileServer(body: () => Buffer, o: FileOpts = {}): Handler {
  return (req, res) => {
    const b = body();
    const etag = o.etag ?? `"${createHash('sha1').update(b).digest('hex')}"`;
    if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': o.headSize ?? b.length, 'Accept-Ranges': 'bytes', ETag: etag }).end();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (!m) return void res.writeHead(200, { 'Content-Length': b.length, ETag: etag }).end(b);
    const a = Number(m[1]);
    if (a >= b.length) return void res.writeHead(416, { 'Content-Range': `bytes */${b.length}` }).end();
    const e = Math.min(Number(m[2]), b.length - 1);
    let part = b.subarray(a, e + 1);
    if (o.cut !== undefined) part = part.subarray(0, o.cut);
    res.writeHead(206, { 'Content-Length': part.length, 'Content-Range': o.range?.(a, e, b.length) ?? `bytes ${a}-${e}/${b.length}`, ETag: etag });
    res.end(part);
  };
}

const failing = (n: number, status: number, then: Handler, headers: Record<string, string> = {}): Handler => (req, res, hit) =>
  hit <= n ? void res.writeHead(status, headers).end() : then(req, res, hit);

const local = async () => (await openHdf5(H5)).read('/vlseq_be');

describe('HTTP: slow and silent servers time out', () => {
  it('headers, then one byte per 100 ms: a network error naming the timeout', async () => {
    const url = serve((req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': H5.length, 'Accept-Ranges': 'bytes' }).end();
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range!)!;
      const part = H5.subarray(Number(m[1]), Number(m[2]) + 1);
      res.writeHead(206, { 'Content-Length': part.length, 'Content-Range': `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${H5.length}` });
      let i = 0;
      const t = setInterval(() => (i < part.length && !res.destroyed ? res.write(part.subarray(i, ++i)) : clearInterval(t)), 100);
      res.on('close', () => clearInterval(t));
    });
    const e = await expectFails(() => openHdf5(url, FAST), ['network']);
    expect(e).toBeInstanceOf(HttpError);
    expect(e.message).toMatch(/no complete response within 800 ms/);
    expect((e as HttpError).url).toBe(url);
  });

  it('headers, then nothing (TsFile)', async () => {
    const url = serve((req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': TS.length }).end();
      res.writeHead(206, { 'Content-Length': 10, 'Content-Range': `bytes 0-9/${TS.length}` });
      res.flushHeaders();
    });
    await expectFails(() => openTsFile(url, FAST), ['network']);
  });

  it('no answer at all, not even to HEAD', async () => {
    const url = serve(() => {});
    const e = await expectFails(() => openHdf5(url, FAST), ['network']);
    expect(e.message).toMatch(/HEAD: no complete response/);
  });

  it('a stalled read after a good open, and { signal } aborts a read at once', async () => {
    let stall = false;
    const good = fileServer(() => H5);
    const url = serve((req, res, hit) => (stall && req.method === 'GET' ? res.flushHeaders() : good(req, res, hit)));
    const f = await openHdf5(url, FAST);
    const f2 = await openHdf5(url, { ...FAST, timeout: 60_000 });
    stall = true;
    await expectFails(() => f.read('/vlseq_be'), ['network']);
    const ctl = new AbortController();
    const why = new Error('user gave up');
    setTimeout(() => ctl.abort(why), 50);
    const t0 = performance.now();
    await expect(f2.read('/vlseq_be', { signal: ctl.signal })).rejects.toBe(why);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('{ signal } aborts an open', async () => {
    const url = serve(() => {});
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('stop')), 50);
    await expect(openTsFile(url, { timeout: 60_000, signal: ctl.signal })).rejects.toThrow('stop');
  });
});

describe('HTTP: failures that pass are retried, with a bound', () => {
  it('503 twice, then the file: the right rows', async () => {
    const url = serve(failing(2, 503, fileServer(() => H5)));
    expect(rows(await (await openHdf5(url, FAST)).read('/vlseq_be'))).toBe(rows(await local()));
  });

  it('429 with Retry-After: 0, then the file', async () => {
    const url = serve(failing(1, 429, fileServer(() => H5), { 'Retry-After': '0' }));
    expect((await (await openHdf5(url, FAST)).read('/vlseq_be')).numRows).toBeGreaterThan(0);
  });

  it('always 500: a network error with the status, after retries+1 attempts', async () => {
    const url = serve((_, res) => void res.writeHead(500).end());
    const e = (await expectFails(() => openHdf5(url, FAST), ['network'])) as HttpError;
    expect(e.status).toBe(500);
    expect(e.message).toMatch(/HTTP 500.*gave up after 3 attempts/);
    expect(hits.get(url.slice(base.length + 1))).toBe(3);
  });

  it('503 on every range after the open', async () => {
    let broken = false;
    const good = fileServer(() => TS);
    const url = serve((req, res, hit) => (broken ? void res.writeHead(503).end() : good(req, res, hit)));
    const f = await openTsFile(url, FAST);
    broken = true;
    const e = (await expectFails(() => f.read({ devices: [f.devices()[0]!.path] }), ['network'])) as HttpError;
    expect(e.status).toBe(503);
  });

  it('404 is not retried', async () => {
    const url = serve((_, res) => void res.writeHead(404).end());
    const e = (await expectFails(() => openTsFile(url, FAST), ['network'])) as HttpError;
    expect(e.status).toBe(404);
    expect(hits.get(url.slice(base.length + 1))).toBe(2); // HEAD, then the one-byte GET
  });

  it('a connection reset once per range is retried; always reset is a network error with the cause', async () => {
    const good = fileServer(() => H5);
    const resetOdd = serve((req, res, hit) => (req.method === 'GET' && hit % 2 === 0 ? req.socket.destroy() : good(req, res, hit)));
    expect(rows(await (await openHdf5(resetOdd, FAST)).read('/vlseq_be'))).toBe(rows(await local()));
    const always = serve((req, res, hit) => (req.method === 'GET' ? req.socket.destroy() : good(req, res, hit)));
    const e = await expectFails(() => openHdf5(always, FAST), ['network']);
    expect((e as { cause?: unknown }).cause).toBeDefined();
  });

  it('a body cut off mid-way (early close) is retried, then a network error', async () => {
    const url = serve((req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': H5.length }).end();
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range!)!;
      const [a, b] = [Number(m[1]), Math.min(Number(m[2]), H5.length - 1)];
      res.writeHead(206, { 'Content-Length': b - a + 1, 'Content-Range': `bytes ${a}-${b}/${H5.length}` });
      res.write(H5.subarray(a, a + ((b - a) >> 1)));
      setTimeout(() => res.destroy(), 5);
    });
    const e = await expectFails(() => openHdf5(url, FAST), ['network']);
    expect(e.message).toMatch(/body failed.*gave up after 3 attempts/);
  });
});

describe('HTTP: a response that does not answer the request is refused', () => {
  it('a short 206 body (Content-Length agrees with it): truncated at the byte it stops', async () => {
    const url = serve(fileServer(() => H5, { cut: 100 }));
    const e = await expectFails(() => openHdf5(url, FAST), ['truncated']);
    expect(e.offset).toBe(100);
  });

  it('HEAD overstating the size: truncated where the file really ends', async () => {
    const url = serve(fileServer(() => TS, { headSize: TS.length + 5000 }));
    const e = await expectFails(() => openTsFile(url, FAST), ['truncated']);
    expect(e.offset).toBe(TS.length);
    const h5 = serve(fileServer(() => H5, { headSize: H5.length * 2 }));
    const e2 = await expectFails(async () => (await openHdf5(h5, FAST)).read('/vlseq_be'), ['truncated']);
    expect(e2.offset).toBe(H5.length);
  });

  it('a Content-Range for another range', async () => {
    const url = serve(fileServer(() => H5, { range: (a, b, n) => `bytes ${a + 1}-${b + 1}/${n}` }));
    const e = await expectFails(() => openHdf5(url, FAST), ['network']);
    expect(e.message).toMatch(/another range \(Content-Range: bytes 1-/);
  });

  it('a garbled or missing Content-Range', async () => {
    const garbled = serve(fileServer(() => H5, { range: () => 'bytes zero-ten' }));
    await expectFails(() => openHdf5(garbled, FAST), ['network']);
    const good = fileServer(() => TS);
    const missing = serve((req, res, hit) => {
      if (req.method === 'HEAD') return good(req, res, hit);
      res.writeHead(206, { 'Content-Length': 1 }).end(Buffer.from([0]));
    });
    await expectFails(() => openTsFile(missing, FAST), ['network']);
  });

  it('a body longer than the range', async () => {
    const url = serve((req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Length': H5.length }).end();
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range!)!;
      res.writeHead(206, { 'Content-Range': `bytes ${m[1]}-${m[2]}/${H5.length}` }).end(H5);
    });
    await expectFails(() => openHdf5(url, FAST), ['network']);
  });
});

describe('HTTP: a file swapped between requests', () => {
  // The same bytes but one device's values changed, like a writer replacing the file.
  const swapped = Buffer.from(TS);
  for (let i = TS.length >> 2; i < TS.length >> 1; i++) swapped[i] = swapped[i]! ^ 0x55;

  it('another ETag after the open: changed, never rows mixing both files', async () => {
    let version = TS;
    const url = serve(fileServer(() => version));
    const f = await openTsFile(url, FAST);
    const devices = f.devices().map((d) => d.path);
    await f.read({ devices: [devices[0]!] });
    version = swapped;
    const e = await expectFails(() => f.read({ devices: [devices[devices.length - 1]!] }), ['changed']);
    expect(e).toBeInstanceOf(HttpError);
    expect(e.message).toMatch(/changed since it was opened: its ETag/);
  });

  it('same size, no ETag, a later Last-Modified', async () => {
    let version = TS;
    let modified = 'Tue, 01 Jul 2025 10:00:00 GMT';
    const url = serve((req, res) => {
      const h = { 'Last-Modified': modified, 'Content-Length': version.length };
      if (req.method === 'HEAD') return void res.writeHead(200, h).end();
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range!)!;
      const [a, b] = [Number(m[1]), Math.min(Number(m[2]), version.length - 1)];
      res.writeHead(206, { ...h, 'Content-Length': b - a + 1, 'Content-Range': `bytes ${a}-${b}/${version.length}` }).end(version.subarray(a, b + 1));
    });
    const f = await openTsFile(url, FAST);
    version = swapped;
    modified = 'Tue, 01 Jul 2025 10:00:05 GMT';
    await expectFails(() => f.read({ devices: [f.devices()[0]!.path] }), ['changed']);
  });

  it('a longer file under the same URL (no validators): changed', async () => {
    let version = H5;
    const url = serve((req, res, hit) => fileServer(() => version, { etag: '' })(req, res, hit));
    const f = await openHdf5(url, FAST);
    version = Buffer.concat([H5, Buffer.alloc(4096)]);
    await expectFails(() => f.read('/vlseq_be'), ['changed']);
  });

  it('a server that ignores Range and whose file changed: changed (not a silent new file)', async () => {
    let version = H5;
    let ranges = true;
    const url = serve((req, res, hit) => {
      if (ranges || req.method === 'HEAD') return fileServer(() => version)(req, res, hit);
      res.writeHead(200, { 'Content-Length': version.length, ETag: '"v2"' }).end(version);
    });
    const f = await openHdf5(url, FAST);
    ranges = false;
    version = Buffer.from(H5).fill(7, 2000, 3000);
    await expectFails(() => f.read('/vlseq_be'), ['changed']);
  });
});

describe('HTTP: a server that answers ranges compressed (Vite preview)', () => {
  // Ranges over the gzip bytes, decoded by fetch: not the file's bytes. The file is read
  // whole once instead, and reads the same as from memory.
  const gzipRanges = (sendHead: boolean): Handler => {
    const gz = gzipSync(H5);
    return (req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, sendHead ? { 'Content-Length': H5.length, 'Accept-Ranges': 'bytes' } : { 'Content-Encoding': 'gzip' }).end();
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return void res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': gz.length }).end(gz);
      const a = Number(m[1]);
      const e = Math.min(Number(m[2]), gz.length - 1);
      res.writeHead(206, { 'Content-Encoding': 'gzip', 'Content-Range': `bytes ${a}-${e}/${gz.length}`, 'Content-Length': e - a + 1 }).end(gz.subarray(a, e + 1));
    };
  };
  for (const sendHead of [false, true]) {
    it(`reads the whole file once and gives the rows of the file (HEAD ${sendHead ? 'with' : 'without'} a size)`, async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const want = rows(await (await openHdf5(new Uint8Array(H5))).read('/vlseq_be'));
        expect(rows(await (await openHdf5(serve(gzipRanges(sendHead)), FAST)).read('/vlseq_be'))).toBe(want);
        expect(warn).toHaveBeenCalledTimes(1);
      } finally {
        warn.mockRestore();
      }
    });
  }
});

it('every failure above is a DecodeError (HttpError is one)', () => {
  expect(new HttpError('HDF5', 'http://x', 0, 'network', 'x')).toBeInstanceOf(DecodeError);
});
