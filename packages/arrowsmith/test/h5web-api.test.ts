// ArrowsmithApi beyond the differential (h5web.test.ts): the NeXus attributes h5web's NeXus
// views read, against h5py (nexus.json); a frame and a column of the 3-D stack against h5py;
// the NPY export of a slice; an aborted getValue; what is fetched of a ranged URL.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArrowsmithApi } from '../src/h5web/node.js';
import { FIXTURES, parseExact } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const path = join(FIXTURES, 'hdf5/nexus.h5');
const bytes = new Uint8Array(readFileSync(path));
// biome-ignore lint/suspicious/noExplicitAny: h5py's dump
const h5py = parseExact(readFileSync(join(FIXTURES, 'hdf5/nexus.json'), 'utf8')) as any;
const text = (h: { hex: string }) => Buffer.from(h.hex, 'hex').toString('utf8');

let server: Server;
let url = '';
let fetched = 0;
let whole = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const [a, b] = m ? [Number(m[1]), Math.min(Number(m[2]), bytes.length - 1)] : [0, bytes.length - 1];
    if (req.method !== 'HEAD') fetched += b - a + 1;
    if (req.method !== 'HEAD' && !m) whole++;
    res.writeHead(m ? 206 : 200, { 'Accept-Ranges': 'bytes', 'Content-Length': b - a + 1, ...(m && { 'Content-Range': `bytes ${a}-${b}/${bytes.length}` }) });
    res.end(req.method === 'HEAD' ? undefined : bytes.subarray(a, b + 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scans/nexus.h5`;
});
afterAll(() => server.close());

describe('ArrowsmithApi', () => {
  it('gives the NeXus attributes as h5py reads them, by ranges from a URL, named after the URL', async () => {
    fetched = whole = 0;
    const api = new ArrowsmithApi(url);
    expect(api.filepath).toBe('nexus.h5');
    for (const p of ['/', '/entry', '/entry/image', '/entry/stack']) {
      const values = await api.getAttrValues(await api.getEntity(p));
      const want = h5py.attrs[p];
      for (const [k, v] of Object.entries(want)) expect(values[k], `${p}@${k}`).toEqual(Array.isArray(v) ? v.map(text) : text(v as { hex: string }));
    }
    const frames = await api.getEntity('/entry/stack/frames');
    expect(frames.kind).toBe('dataset');
    // Every GET was a range (bench:h5web measures how little of a big file a view fetches).
    expect(fetched).toBeGreaterThan(0);
    expect(whole).toBe(0);
    // A frame, and a column across frames, of the 3-D stack.
    const frame = (await api.getValue({ dataset: frames as never, selection: '3,:,:' })) as Uint16Array;
    expect(frame).toBeInstanceOf(Uint16Array);
    expect([...frame]).toEqual(h5py.datasets['/entry/stack/frames'].rows[3].flat());
    const column = (await api.getValue({ dataset: frames as never, selection: ':,5,:' })) as Uint16Array;
    expect([...column]).toEqual(h5py.datasets['/entry/stack/frames'].rows.flatMap((f: number[][]) => f[5]));
    await api.close();
  });

  it('exports a numeric slice as NPY (numpy format 1.0: header, shape, little-endian values)', async () => {
    const api = new ArrowsmithApi(bytes);
    const frames = await api.getEntity('/entry/stack/frames');
    const url = api.getExportURL('npy', frames as never, '2,:,:');
    expect(typeof url).toBe('function');
    const blob = (await (url as () => Promise<Blob>)()) as Blob;
    const b = new Uint8Array(await blob.arrayBuffer());
    expect([...b.subarray(0, 8)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    const hlen = b[8]! | (b[9]! << 8);
    expect((10 + hlen) % 64).toBe(0);
    const header = new TextDecoder().decode(b.subarray(10, 10 + hlen));
    expect(header).toMatch(/'descr': '<u2', 'fortran_order': False, 'shape': \(48, 64\)/);
    const values = new Uint16Array(b.slice(10 + hlen).buffer);
    expect([...values]).toEqual(h5py.datasets['/entry/stack/frames'].rows[2].flat());
    // Strings have no NPY export here (h5web's built-in CSV/JSON exporters serve them).
    expect(api.getExportURL('npy', (await api.getEntity('/entry/title')) as never)).toBeUndefined();
    await api.close();
  });

  describe('on a pool', () => {
    usePools();
    for (const { mode, options } of MODES) {
      it(`gives every value of the NeXus file the same (${mode})`, async () => {
        const api = new ArrowsmithApi(bytes, options());
        const frames = await api.getEntity('/entry/stack/frames');
        const want = h5py.datasets['/entry/stack/frames'].rows;
        expect([...((await api.getValue({ dataset: frames as never })) as Uint16Array)]).toEqual(want.flat(2));
        expect([...((await api.getValue({ dataset: frames as never, selection: ':,:,7' })) as Uint16Array)]).toEqual(want.flatMap((f: number[][]) => f.map((r) => r[7])));
        const counts = await api.getEntity('/entry/spectrum/counts');
        expect([...((await api.getValue({ dataset: counts as never })) as Float64Array)]).toEqual(h5py.datasets['/entry/spectrum/counts'].rows);
        await api.close();
      });
    }
  });

  it('stops a getValue when its signal aborts', async () => {
    const api = new ArrowsmithApi(bytes);
    const frames = await api.getEntity('/entry/stack/frames');
    const ctl = new AbortController();
    const reason = new Error('user moved on');
    ctl.abort(reason);
    await expect(api.getValue({ dataset: frames as never, selection: '0,:,:' }, ctl.signal)).rejects.toBe(reason);
    await api.close();
  });
});
