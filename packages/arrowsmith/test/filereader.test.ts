// What the file readers share (src/file/): closing (and `using`), use after close, and
// AbortSignal on every read, with or without a pool.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPool, decodeMsgpackAsync, openHdf5, openTsFile, type Pool, type RangeReader } from '../src/node.js';
import { FIXTURES } from './fixtures.js';
import { workerUrl } from './pools.js';

const h5 = new Uint8Array(readFileSync(join(FIXTURES, 'hdf5/types_earliest.h5')));
const ts = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile/cpp_plain_snappy.tsfile')));
const records = new Uint8Array(readFileSync(join(FIXTURES, 'msgpack/py_records.msgpack')));

/** A ranged reader whose reads wait until `release()` (a slow network, say). */
function slowReader(bytes: Uint8Array) {
  const waiting: (() => void)[] = [];
  let open = true;
  const reader: RangeReader = {
    size: bytes.length,
    read: (offset, length) =>
      open ? Promise.resolve(bytes.subarray(offset, offset + length)) : new Promise((resolve) => waiting.push(() => resolve(bytes.subarray(offset, offset + length)))),
  };
  return {
    reader,
    hold: () => void (open = false),
    release: () => {
      open = true;
      for (const w of waiting.splice(0)) w();
    },
    waiting: () => waiting.length,
  };
}

const reason = new Error('the user went away');

describe('closing files and pools', { timeout: 30_000 }, () => {
  it('a closed file says so, whatever is called', async () => {
    const f = await openHdf5(h5);
    await f.close();
    await expect(f.read('/ck_deflate')).rejects.toThrow(/this HDF5 file is closed/);
    await expect(f.list('/')).rejects.toThrow(/HDF5 file is closed/);
    const t = await openTsFile(ts);
    t.close();
    expect(() => t.tables()).toThrow(/this TsFile is closed/);
    await expect(t.read()).rejects.toThrow(/TsFile is closed/);
    await t.close(); // closing twice is harmless
  });

  it('`using` and `await using` close files and pools at the end of the block', async () => {
    let kept: Awaited<ReturnType<typeof openHdf5>>;
    {
      using f = await openHdf5(h5);
      kept = f;
      expect((await f.read('/ck_deflate')).numRows).toBe(1000);
    }
    await expect(kept.read('/ck_deflate')).rejects.toThrow(/closed/);
    let pool: Pool;
    {
      await using p = await createPool({ size: 1, workerUrl });
      pool = p;
      expect(p.stats().workers).toBe(1);
    }
    expect(pool.stats().workers).toBe(0);
    await expect(decodeMsgpackAsync(records, { pool })).rejects.toThrow(/this pool is closed/);
    await expect(openHdf5(h5, { pool })).rejects.toThrow(/this pool is closed/);
  });
});

describe('AbortSignal on every read, pool or not', { timeout: 30_000 }, () => {
  it('an aborted signal rejects with its reason before any work', async () => {
    const signal = AbortSignal.abort(reason);
    const f = await openHdf5(h5);
    await expect(f.read('/ck_deflate', { signal })).rejects.toBe(reason);
    await expect(f.info('/ck_deflate', { signal })).rejects.toBe(reason);
    await expect(f.list('/', { signal })).rejects.toBe(reason);
    const t = await openTsFile(ts);
    await expect(t.read({ signal })).rejects.toBe(reason);
    await expect(t.timeseries({ signal })).rejects.toBe(reason);
    await expect(decodeMsgpackAsync(records, { signal })).rejects.toBe(reason);
    await expect(openHdf5(h5, { signal })).rejects.toBe(reason);
    // Nothing was left half-done: the same files read normally afterwards.
    expect((await f.read('/ck_deflate')).numRows).toBe(1000);
  });

  it('a read waiting on its source rejects at once when aborted, and the file stays usable', async () => {
    for (const format of ['hdf5', 'tsfile'] as const) {
      const slow = slowReader(format === 'hdf5' ? h5 : ts);
      const f = format === 'hdf5' ? await openHdf5(slow.reader) : await openTsFile(slow.reader);
      slow.hold();
      const ac = new AbortController();
      const p = format === 'hdf5' ? (f as Awaited<ReturnType<typeof openHdf5>>).read('/ck_deflate', { signal: ac.signal }) : (f as Awaited<ReturnType<typeof openTsFile>>).read({ signal: ac.signal });
      await expect.poll(slow.waiting).toBeGreaterThan(0);
      ac.abort(reason);
      await expect(p).rejects.toBe(reason);
      slow.release();
      const again = format === 'hdf5' ? await (f as Awaited<ReturnType<typeof openHdf5>>).read('/ck_deflate') : await (f as Awaited<ReturnType<typeof openTsFile>>).read();
      expect(again.numRows).toBeGreaterThan(0);
    }
  });

  it('batches() stop at an abort with its reason', async () => {
    const f = await openHdf5(h5);
    const ac = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const b of f.batches('/ck_deflate', { rows: 100, signal: ac.signal })) {
          seen.push(b.numRows);
          if (seen.length === 2) ac.abort(reason);
        }
      })(),
    ).rejects.toBe(reason);
    expect(seen).toEqual([100, 100]);
  });
});
