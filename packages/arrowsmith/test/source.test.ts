// Inputs as users hold them: every kind of bytes, Blob/File, URL, Response, and in Node a
// path, a `file:` URL and a FileHandle, for MessagePack (whole) and TsFile/HDF5 (by ranges).
// Values are compared with the writers' own dumps (@msgpack/msgpack, h5py, the TsFile writers).
import { open } from 'node:fs/promises';
import { openAsBlob, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMsgpack, decodeMsgpackAsync, decodeMsgpackStream, openHdf5, openTsFile, type FileHandleLike } from '../src/node.js';
import { expectTableMatches, reference } from './helpers.js';
import { FIXTURES, hex } from './fixtures.js';
import { toRangeReader } from '../src/io/source.js';

const recordsPath = join(FIXTURES, 'msgpack/py_records.msgpack');
const records = new Uint8Array(readFileSync(recordsPath));
const rows = reference(records) as unknown[];
const h5Path = join(FIXTURES, 'hdf5/types_earliest.h5');
const h5Want = JSON.parse(readFileSync(h5Path.replace(/\.h5$/, '.json'), 'utf8')).datasets['/ck_deflate'].rows as number[];
const tsPath = join(FIXTURES, 'tsfile/cpp_plain_snappy.tsfile');
const tsWant = JSON.parse(readFileSync(tsPath.replace(/\.tsfile$/, '.json'), 'utf8'));

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    try {
      const body = readFileSync(join(FIXTURES, new URL(req.url!, 'http://x').pathname));
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return void res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end(req.method === 'HEAD' ? undefined : body);
      const [a, b] = [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
      res.writeHead(206, { 'Content-Range': `bytes ${a}-${b}/${body.length}` }).end(body.subarray(a, b + 1));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
// Keep-alive connections from fetch would hold close() open (Deno waits for them): drop them.
afterAll(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));

/** The same bytes as a DataView in the middle of a larger buffer (offsets must be honoured). */
function dataView(b: Uint8Array): DataView {
  const big = new Uint8Array(b.length + 13);
  big.set(b, 7);
  return new DataView(big.buffer, 7, b.length);
}

/** A FileHandle that counts the bytes read through it and the buffers it was given. */
async function countingHandle(path: string) {
  const fh = await open(path, 'r');
  const seen = { bytes: 0, reads: 0, buffers: new Set<ArrayBufferLike>() };
  const handle: FileHandleLike = {
    fd: fh.fd,
    stat: () => fh.stat(),
    close: () => fh.close(),
    read: async (buffer, offset, length, position) => {
      const r = await fh.read(buffer, offset, length, position);
      seen.bytes += r.bytesRead;
      seen.reads++;
      seen.buffers.add(buffer.buffer);
      return r;
    },
  };
  return { handle, seen, fh };
}

/** Open file descriptors of this process (Linux). */
const openFds = () => readdirSync('/proc/self/fd').length;

describe('MessagePack inputs', { timeout: 30_000 }, () => {
  it('decodeMsgpack decodes a Uint8Array, an ArrayBuffer, a DataView and a Buffer alike', () => {
    for (const input of [records, records.slice().buffer, dataView(records), readFileSync(recordsPath)]) expectTableMatches(decodeMsgpack(input), rows);
  });

  it('decodeMsgpack (synchronous) rejects what it cannot read now with a TypeError naming it', () => {
    const cases: [unknown, RegExp][] = [
      [new Blob([records]), /not a Blob; decodeMsgpackAsync also reads/],
      [new URL('http://x/y'), /not a URL/],
      [recordsPath, /not the string/],
      [42, /not a number \(42\)/],
      [new Float32Array(4), /not a Float32Array/],
      [{ size: 3 }, /not an object with keys size/],
      [null, /not null/],
    ];
    for (const [input, message] of cases) expect(() => decodeMsgpack(input as Uint8Array)).toThrow(message);
    for (const [input] of cases) expect(() => decodeMsgpack(input as Uint8Array)).toThrow(TypeError);
  });

  it('decodeMsgpackAsync reads bytes, Blob, File, Response, URL, path, file: URL and FileHandle', async () => {
    const fh = await open(recordsPath, 'r');
    try {
      const inputs: [string, unknown][] = [
        ['Uint8Array', records],
        ['ArrayBuffer', records.slice().buffer],
        ['DataView', dataView(records)],
        ['Blob', new Blob([records])],
        ['File', new File([records], 'r.msgpack')],
        ['Response', new Response(records)],
        ['URL', new URL(`${base}/msgpack/py_records.msgpack`)],
        ['URL string', `${base}/msgpack/py_records.msgpack`],
        ['path', recordsPath],
        ['file: URL', pathToFileURL(recordsPath)],
        ['file: URL string', pathToFileURL(recordsPath).href],
        ['FileHandle', fh],
      ];
      for (const [name, input] of inputs) {
        const t = await decodeMsgpackAsync(input as Uint8Array).catch((e) => e as Error);
        if (t instanceof Error) throw new Error(`${name}: ${t.message}`);
        expectTableMatches(t, rows);
      }
    } finally {
      await fh.close();
    }
    await expect(decodeMsgpackAsync(42 as never)).rejects.toThrow(/decodeMsgpackAsync takes .* not a number \(42\)/);
    await expect(decodeMsgpackAsync(new Response('nope', { status: 404 }))).rejects.toThrow(/HTTP 404/);
  });

  it('decodeMsgpackStream takes a whole buffer, a Blob, a path and a fetch Response, not only chunks', async () => {
    for (const input of [records, new Blob([records]), recordsPath, new Response(records)]) {
      let n = 0;
      for await (const b of decodeMsgpackStream(input, { batchRows: 500 })) n += b.numRows;
      expect(n).toBe(rows.length);
    }
    await expect((async () => {
      for await (const _ of decodeMsgpackStream([records, 'oops' as never])) void _;
    })()).rejects.toThrow(/stream chunk must be bytes .* not the string "oops"/);
  });
});

describe('TsFile and HDF5 inputs', { timeout: 30_000 }, () => {
  const h5Column = async (input: unknown) => {
    await using f = await openHdf5(input as Uint8Array);
    return [...(await f.read('/ck_deflate')).getChildAt(0)!];
  };

  it('openHdf5 reads every kind of input and gives h5py’s values', async () => {
    const bytes = new Uint8Array(readFileSync(h5Path));
    const fh = await open(h5Path, 'r');
    try {
      for (const input of [bytes.slice().buffer, dataView(bytes), new Blob([bytes]), new File([bytes], 'x.h5'), new Response(bytes), h5Path, pathToFileURL(h5Path), pathToFileURL(h5Path).href, fh, `${base}/hdf5/types_earliest.h5`]) {
        expect(await h5Column(input)).toEqual(h5Want);
      }
    } finally {
      await fh.close();
    }
  });

  it('openTsFile reads a path, a file: URL and a FileHandle: the writer’s times', async () => {
    const fh = await open(tsPath, 'r');
    const dev = tsWant.devices[0];
    try {
      for (const input of [tsPath, pathToFileURL(tsPath), fh]) {
        await using f = await openTsFile(input);
        const tags = Object.fromEntries((tsWant.tags as string[]).map((n, i) => [n, dev.tags[i]]));
        const t = await f.read({ table: tsWant.table, tags });
        expect([...t.getChild('time')!].map(String)).toEqual(dev.columns.time.map(String));
        expect([...t.getChild('txt')!]).toEqual(dev.columns.txt);
      }
    } finally {
      await fh.close();
    }
  });

  it('a file is read by ranges, never whole, through a few reused buffers', async () => {
    const ts = join(FIXTURES, 'remote/table_16dev.tsfile');
    const size = readFileSync(ts).length;
    const { handle, seen, fh } = await countingHandle(ts);
    try {
      await using f = await openTsFile(handle);
      const q = { table: 'bench_table', columns: ['s2'], tags: { id1: 'device07' } };
      expect((await f.read(q)).numRows).toBe(2000);
      expect(seen.bytes / size).toBeLessThan(0.1);
      for (let i = 0; i < 5; i++) await f.read({ ...q, tags: { id1: `device0${i}` } });
      expect(seen.reads).toBeGreaterThan(12);
      expect(seen.buffers.size).toBeLessThan(seen.reads / 2);
    } finally {
      await fh.close();
    }
    const h5 = join(FIXTURES, 'hdf5/vl_big.h5');
    const want = JSON.parse(readFileSync(h5.replace(/\.h5$/, '.json'), 'utf8')).datasets['/a_str'].rows as { hex: string }[];
    const c = await countingHandle(h5);
    try {
      await using f = await openHdf5(c.handle);
      const col = (await f.read('/a_str')).getChildAt(0)!;
      expect([...col].map((s) => hex(new TextEncoder().encode(s as string)))).toEqual(want.map((w) => w.hex));
      expect(c.seen.bytes / readFileSync(h5).length).toBeLessThan(0.5);
    } finally {
      await c.fh.close();
    }
  });

  it('a path opened for the caller is closed by close(), by `await using`, and when opening fails', async () => {
    const before = openFds();
    const f = await openHdf5(h5Path);
    expect(openFds()).toBe(before + 1);
    await f.close();
    expect(openFds()).toBe(before);
    {
      await using g = await openTsFile(tsPath);
      expect(openFds()).toBe(before + 1);
      expect(g.version).toBeGreaterThan(0);
    }
    expect(openFds()).toBe(before);
    await expect(openHdf5(tsPath)).rejects.toMatchObject({ name: 'DecodeError', format: 'HDF5' });
    await expect(openTsFile(recordsPath)).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile' });
    expect(openFds()).toBe(before);
    await expect(openHdf5(join(FIXTURES, 'hdf5/nosuch.h5'))).rejects.toThrow(/ENOENT/);
  });

  it('anything else is a TypeError naming what was passed', async () => {
    for (const [input, message] of [
      [42, /openHdf5 takes .* not a number \(42\)/],
      [{ path: 'x' }, /not an object with keys path/],
      [new Int16Array(8), /not an Int16Array; view its bytes/],
      [undefined, /not undefined/],
    ] as [unknown, RegExp][]) {
      await expect(openHdf5(input as Uint8Array)).rejects.toThrow(message);
      await expect(openHdf5(input as Uint8Array)).rejects.toBeInstanceOf(TypeError);
    }
    await expect(openTsFile(Symbol('s') as never)).rejects.toThrow(/openTsFile takes .* not a symbol/);
  });

  it("a Blob's range fills a target in place (file-backed or in memory): its bytes, and how many there were", async () => {
    for (const blob of [new Blob([records]), await openAsBlob(recordsPath)]) {
      const r = await toRangeReader(blob, { who: 'test', format: 'MessagePack' });
      // Larger than one chunk of Node's Blob stream (64 KiB), at an odd offset.
      const n = Math.min(200_000, records.length - 7);
      const dst = new Uint8Array(n + 16).fill(0xee);
      expect(await r.fill!(7, dst.subarray(8, 8 + n))).toBe(n);
      expect(hex(dst.subarray(8, 8 + n))).toBe(hex(records.subarray(7, 7 + n)));
      expect([...dst.subarray(0, 8), ...dst.subarray(8 + n)].every((x) => x === 0xee)).toBe(true);
      // Past the end: the bytes there are, and their count.
      const tail = new Uint8Array(100);
      expect(await r.fill!(records.length - 30, tail)).toBe(30);
      expect(hex(tail.subarray(0, 30))).toBe(hex(records.subarray(records.length - 30)));
    }
  });
});

