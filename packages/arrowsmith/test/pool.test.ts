// The worker pool: every MessagePack corpus decoded in parallel equals @msgpack/msgpack's
// values; pieces that infer different types still give one decode's table; outputs land in
// shared memory; errors stay typed; abort, recycling and every file source work, and the
// pool stays usable after failures. (TsFile/HDF5 fixtures also run on pools in their own
// test files, against the official writers' dumps.)
import { encode } from '@msgpack/msgpack';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, decodeMsgpack, decodeMsgpackAsync, DecodeError, openHdf5, openTsFile, type Pool } from '../src/node.js';
import { expectTableMatches, reference, referenceMulti, rng, valueAt } from './helpers.js';
import { FIXTURES } from './fixtures.js';
import { workerUrl } from './pools.js';
import { guessCuts } from '../src/formats/msgpack/cuts.js';

const corpora = readdirSync(join(FIXTURES, 'msgpack')).filter((f) => f.endsWith('.msgpack')).sort();
let pool: Pool;
let transfer: Pool;

beforeAll(async () => {
  pool = await createPool({ size: 2, workerUrl, minJobBytes: 0, sharedMemory: true });
  transfer = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
});
afterAll(() => {
  pool.close();
  transfer.close();
});

function records(n: number) {
  const r = rng(7);
  return Array.from({ length: n }, (_, i) => ({
    id: i,
    x: r() * 1000 - 500,
    name: `n${i % 97}é`,
    ok: i % 3 === 0,
    maybe: i % 5 === 0 ? null : Math.floor(r() * 2 ** 31),
    tags: Array.from({ length: i % 4 }, (_, k) => k * i),
    pos: { lat: r(), lon: -r() },
  }));
}

/** Every value of two tables, compared by position. */
function expectSameTable(a: import('apache-arrow').Table, b: import('apache-arrow').Table) {
  expect(b.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(a.schema.fields.map((f) => `${f.name}:${f.type}`));
  expect(b.numRows).toBe(a.numRows);
  for (let c = 0; c < a.numCols; c++) {
    const x = a.getChildAt(c)!;
    const y = b.getChildAt(c)!;
    for (let i = 0; i < a.numRows; i++) {
      const [p, q] = [valueAt(x, i), valueAt(y, i)];
      if (JSON.stringify(p, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) !== JSON.stringify(q, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))) {
        expect(q, `${a.schema.fields[c]!.name} row ${i}`).toEqual(p);
      }
    }
  }
}

describe('worker pool', () => {
  it('starts one worker per requested slot with the main thread’s build', () => {
    expect(pool.size).toBe(2);
    expect(pool.sharedMemory).toBe(true);
    // Shared outputs are opt-in: by default jobs transfer their batches.
    expect(transfer.sharedMemory).toBe(false);
    expect(pool.stats().workers).toBe(2);
  });

  for (const file of corpora) {
    it(`decodes Python corpus ${file} in parallel like @msgpack/msgpack`, async () => {
      const bytes = new Uint8Array(readFileSync(join(FIXTURES, 'msgpack', file)));
      const rows = file.includes('stream') ? referenceMulti(bytes) : (reference(bytes) as unknown[]);
      expectTableMatches(await decodeMsgpackAsync(bytes, { pool }), rows);
      expectTableMatches(await decodeMsgpackAsync(bytes, { pool: transfer }), rows);
    });
  }

  it('decodes 20k nested records in parallel into shared buffers', async () => {
    const bytes = encode(records(20_000));
    const t = await decodeMsgpackAsync(bytes, { pool });
    expectTableMatches(t, reference(bytes) as unknown[]);
    expect(t.batches.length).toBe(1);
    expect(t.getChild('id')!.data[0]!.values.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Utf8 bytes stay in an ordinary ArrayBuffer (TextDecoder rejects shared views).
    expect(t.getChild('name')!.data[0]!.values.buffer).toBeInstanceOf(ArrayBuffer);
    const tt = await decodeMsgpackAsync(bytes, { pool: transfer });
    expect(tt.batches.length).toBeGreaterThan(1);
    expectTableMatches(tt, reference(bytes) as unknown[]);
  });

  it('cuts large record inputs at guessed row starts, proven by the decodes, and falls back exactly when a guess is wrong', async () => {
    const rows = records(40_000);
    const bytes = encode(rows);
    // Every guessed cut is a true record start (the offsets of the encoded records).
    const starts = new Set<number>();
    let at = bytes.length - rows.reduce((n, r) => n + encode(r).length, 0);
    for (const r of rows) {
      starts.add(at);
      at += encode(r).length;
    }
    const guess = guessCuts(bytes, 'auto', 4)!;
    expect(guess.inArray).toBe(true);
    expect(guess.rows).toBe(rows.length);
    expect(guess.cuts.length).toBe(5);
    guess.cuts.slice(0, -1).forEach((c) => expect(starts.has(c), `cut ${c}`).toBe(true));
    for (const p of [pool, transfer]) expectTableMatches(await decodeMsgpackAsync(bytes, { pool: p }), rows);
    // A record stream (concatenated maps) guesses the same way.
    const stream = new Uint8Array(rows.flatMap((r) => [...encode(r)]));
    expect(guessCuts(stream, 'auto', 4)?.inArray).toBe(false);
    expectTableMatches(await decodeMsgpackAsync(stream, { pool }), rows);
    // The first record's opening bytes also inside a binary payload: guesses land inside
    // records, the decodes refuse them, and the exact scan gives the same table.
    const opening = [0x88, 0xa2, 0x69, 0x64]; // fixmap of 8 entries, "id": the tricky records' opening
    const tricky = rows.map((r, i) => ({ ...r, blob: i % 3 ? new Uint8Array(0) : new Uint8Array([...opening, ...opening]) }));
    expect([...encode(tricky[0]).subarray(0, 4)]).toEqual(opening);
    const trickyBytes = encode(tricky);
    const trickyStarts = new Set<number>();
    at = trickyBytes.length - tricky.reduce((n, r) => n + encode(r).length, 0);
    for (const r of tricky) {
      trickyStarts.add(at);
      at += encode(r).length;
    }
    expect(guessCuts(trickyBytes, 'auto', 4)!.cuts.slice(0, -1).some((c) => !trickyStarts.has(c))).toBe(true);
    expectTableMatches(await decodeMsgpackAsync(trickyBytes, { pool }), reference(trickyBytes) as unknown[]);
    // Truncated, and an array whose count disagrees with its elements: one thread's error.
    for (const bad of [bytes.subarray(0, bytes.length - 5), (() => {
      const b = bytes.slice();
      b.set([0xdd, 0, 0, 0x9c, 0x41], 0); // claims 40001 elements
      return b;
    })()]) {
      const e1 = (() => {
        try {
          decodeMsgpack(bad);
        } catch (e) {
          return e as DecodeError;
        }
      })();
      expect(e1).toBeInstanceOf(DecodeError);
      const e2 = (await decodeMsgpackAsync(bad, { pool }).catch((x) => x)) as DecodeError;
      expect(e2).toBeInstanceOf(DecodeError);
      expect([e2.code, e2.offset]).toEqual([e1!.code, e1!.offset]);
    }
  });

  it('gives one decode’s types when pieces would infer different ones', async () => {
    const values: unknown[] = Array.from({ length: 5000 }, (_, i) => i);
    values[4990] = 2.5; // only the last piece sees a float
    values[10] = null;
    const bytes = encode(values);
    const single = decodeMsgpack(bytes);
    expect(String(single.schema.fields[0]!.type)).toBe('Float64');
    const t = await decodeMsgpackAsync(bytes, { pool });
    expectSameTable(single, t);
    expectTableMatches(t, values);
  });

  it('rejects with the decoder’s typed error and stays usable', async () => {
    const bytes = encode(records(3000));
    const bad = bytes.slice();
    const at = bytes.length - 200;
    bad[at] = 0xc1; // never used
    let single: unknown;
    try {
      decodeMsgpack(bad);
    } catch (e) {
      single = e;
    }
    expect(single).toBeInstanceOf(DecodeError);
    const e = await decodeMsgpackAsync(bad, { pool }).catch((x) => x);
    expect(e).toBeInstanceOf(DecodeError);
    expect((e as DecodeError).code).toBe((single as DecodeError).code);
    expect((e as DecodeError).offset).toBe((single as DecodeError).offset);
    expect((e as DecodeError).format).toBe('MessagePack');
    expectTableMatches(await decodeMsgpackAsync(bytes, { pool }), reference(bytes) as unknown[]);
    // A truncation found by the structural scan: the same error as one decode.
    const cut = bytes.subarray(0, bytes.length - 3);
    const e2 = await decodeMsgpackAsync(cut, { pool }).catch((x) => x);
    expect(e2).toBeInstanceOf(DecodeError);
    expect((e2 as DecodeError).code).toBe('truncated');
  });

  it('aborts: the busy workers are replaced and the next call works', async () => {
    const bytes = encode(records(200_000));
    const ac = new AbortController();
    const p = decodeMsgpackAsync(bytes, { pool, signal: ac.signal });
    setTimeout(() => ac.abort(), 5);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    const already = AbortSignal.abort();
    await expect(decodeMsgpackAsync(bytes, { pool, signal: already })).rejects.toMatchObject({ name: 'AbortError' });
    const small = encode(records(3000));
    expectTableMatches(await decodeMsgpackAsync(small, { pool }), reference(small) as unknown[]);
    expect(pool.stats().workers).toBe(2);
  });

  it('rejects clearly when the worker script is not the pool worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arrowsmith-'));
    const idle = join(dir, 'idle.mjs');
    writeFileSync(idle, 'setInterval(() => {}, 1000);\n'); // runs, never answers
    await expect(createPool({ size: 1, workerUrl: pathToFileURL(idle), startTimeoutMs: 300 })).rejects.toThrow(/did not start/);
    const crash = join(dir, 'crash.mjs');
    writeFileSync(crash, 'throw new Error("boom");\n');
    await expect(createPool({ size: 2, workerUrl: pathToFileURL(crash) })).rejects.toThrow(/boom|exited/);
  });

  it('recycles workers whose wasm memory grew past the limit', async () => {
    const tiny = await createPool({ size: 1, workerUrl, recycleBytes: 1, minJobBytes: 0 });
    try {
      const bytes = encode(records(5000));
      for (let i = 0; i < 3; i++) expectTableMatches(await decodeMsgpackAsync(bytes, { pool: tiny }), reference(bytes) as unknown[]);
      expect(tiny.stats().recycled).toBeGreaterThanOrEqual(3);
    } finally {
      tiny.close();
    }
  });

  it('keeps worker memory flat over many calls', async () => {
    const bytes = encode(records(2000));
    for (let i = 0; i < 100; i++) await decodeMsgpackAsync(bytes, { pool });
    const before = pool.stats().wasmBytes;
    for (let i = 0; i < 500; i++) await decodeMsgpackAsync(bytes, { pool });
    // Allocator settling may take a page or two; a leak would take ~50 KB per call.
    pool.stats().wasmBytes.forEach((b, i) => expect(b - before[i]!).toBeLessThanOrEqual(2 * 65536));
  });

  it('keeps the process’s buffer memory flat over many large reads with the default output', async () => {
    // 250k records of three doubles (6 MB out) per read, split: 60 reads make 360 MB of
    // dropped outputs. Transferred outputs are ordinary ArrayBuffers, which V8 collects
    // under their own pressure; shared ones (V8 counts no pressure for them, and every
    // worker that wrote one holds it until its next GC) pile up (+516 MB for 8 MB reads).
    const bytes = encode(Array.from({ length: 250_000 }, (_, i) => ({ a: i * 0.5, b: -i * 0.25, c: i + 0.125 })));
    const want = decodeMsgpack(bytes);
    const first = await decodeMsgpackAsync(bytes, { pool: transfer });
    expect(first.numRows).toBe(250_000);
    for (const i of [0, 123_457, 249_999]) expect(first.get(i)!.toJSON()).toEqual(want.get(i)!.toJSON());
    const jobs = transfer.stats().jobs;
    // JavaScriptCore (Bun) collects array buffers on a clock of its own: peaks of 80–172 MiB
    // over the same reads. There a collection every 10 reads keeps the question to what this
    // library retains; V8 engines run without one.
    const collect = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc;
    const before = process.memoryUsage().arrayBuffers;
    let grew = 0;
    for (let i = 0; i < 60; i++) {
      expect((await decodeMsgpackAsync(bytes, { pool: transfer })).numRows).toBe(250_000);
      grew = Math.max(grew, process.memoryUsage().arrayBuffers - before);
      if (collect && i % 10 === 9) collect(true);
    }
    expect(transfer.stats().jobs - jobs).toBeGreaterThanOrEqual(120);
    expect(grew).toBeLessThan(160 * 1024 * 1024);
  });

  it('reads a path, a file: URL and a FileHandle on the pool; workers open a path themselves and close it with the file', { timeout: 30_000 }, async () => {
    const path = join(FIXTURES, 'hdf5', 'vl_latest.h5');
    const plain = await openHdf5(new Uint8Array(readFileSync(path)));
    const paths = (await plain.list('/')).filter((e) => e.kind === 'dataset' && e.shape.length > 0 && e.shape[0]! > 1).map((e) => '/' + e.name);
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    const fh = await open(path, 'r');
    try {
      for (const src of [path, pathToFileURL(path), fh]) {
        for (const p of [pool, transfer]) {
          const f = await openHdf5(src, { pool: p });
          for (const d of paths) expectSameTable(await plain.read(d), await f.read(d));
          // A path: this thread's descriptor and one per worker that read it.
          if (src !== fh) expect(fds()).toBe(before + 1 + 1 + p.size);
          await f.close();
          await expect.poll(fds).toBe(before + 1);
        }
      }
    } finally {
      await fh.close();
    }
    // decodeMsgpackAsync takes `pool: Pool | undefined` (undefined: this thread).
    const bytes = encode(records(500));
    for (const maybe of [pool, undefined] as (Pool | undefined)[]) expectTableMatches(await decodeMsgpackAsync(bytes, { pool: maybe }), reference(bytes) as unknown[]);
  });

  it('reads files from a Blob, a custom reader and shared memory on the pool', async () => {
    const ts = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile', 'cpp_many_devices_ts2diff.tsfile')));
    const h5 = new Uint8Array(readFileSync(join(FIXTURES, 'hdf5', 'vl_latest.h5')));
    const custom = (b: Uint8Array) => ({ size: b.length, read: async (o: number, n: number) => b.slice(o, o + n) });
    const sab = (b: Uint8Array) => {
      const s = new Uint8Array(new SharedArrayBuffer(b.length));
      s.set(b);
      return s;
    };
    const want = await (await openTsFile(ts)).read();
    expect(want.numRows).toBeGreaterThan(0);
    for (const src of [new Blob([ts]), custom(ts), sab(ts)]) {
      for (const p of [pool, transfer]) expectSameTable(want, await (await openTsFile(src, { pool: p })).read());
    }
    const plain = await openHdf5(h5);
    const paths = (await plain.list('/')).filter((e) => e.kind === 'dataset' && e.shape.length > 0 && e.shape[0]! > 1).map((e) => '/' + e.name);
    expect(paths.length).toBeGreaterThan(1);
    for (const src of [new Blob([h5]), custom(h5), sab(h5)]) {
      const f = await openHdf5(src, { pool });
      for (const path of paths) expectSameTable(await plain.read(path), await f.read(path));
      f.close();
    }
    // Shared bytes at an odd offset: copies into wasm memory then differ in alignment and
    // are staged through plain memory; on a pool and on the calling thread, same tables.
    const odd = new Uint8Array(new SharedArrayBuffer(h5.length + 3), 3);
    odd.set(h5);
    for (const options of [{ pool }, {}]) {
      const f = await openHdf5(odd, options);
      for (const path of paths) expectSameTable(await plain.read(path), await f.read(path));
      f.close();
    }
  });

  it('keeps reads under two jobs of minJobBytes on the calling thread and splits larger ones', async () => {
    const h5 = new Uint8Array(readFileSync(join(FIXTURES, 'hdf5', 'vl_latest.h5')));
    const plain = await openHdf5(h5);
    const vl = (await plain.list('/')).find((e) => e.kind === 'dataset' && e.dtype.includes('vlen') && e.shape[0]! > 1);
    expect(vl).toBeDefined();
    const path = '/' + vl!.name;
    const want = await plain.read(path);
    const bytes = encode(records(2_000));
    const big = await createPool({ size: 2, workerUrl }); // the default: 1 MiB per job
    const small = await createPool({ size: 2, workerUrl, minJobBytes: 1 });
    try {
      expect(big.minJobBytes).toBe(1024 * 1024);
      expect([big.pieces(1 << 20, 4), big.pieces((2 << 20) - 1, 4), big.pieces(2 << 20, 4), big.pieces(1 << 30, 4), pool.pieces(1, 4)]).toEqual([1, 1, 4, 4, 4]);
      // Below the threshold: same tables, no job sent to a worker.
      expectSameTable(want, await (await openHdf5(h5, { pool: big })).read(path));
      const t = await decodeMsgpackAsync(bytes, { pool: big });
      expectTableMatches(t, reference(bytes) as unknown[]);
      expect(big.stats().jobs).toBe(0);
      // Above it: the same tables from jobs on the workers.
      expectSameTable(want, await (await openHdf5(h5, { pool: small })).read(path));
      const h5Jobs = small.stats().jobs;
      expect(h5Jobs).toBeGreaterThan(0);
      expectTableMatches(await decodeMsgpackAsync(bytes, { pool: small }), reference(bytes) as unknown[]);
      expect(small.stats().jobs).toBeGreaterThan(h5Jobs + 1);
    } finally {
      big.close();
      small.close();
    }
  });

  it('decodes arrays of numbers on the calling thread, however large', async () => {
    // A split would need the serial structural scan, which walks numbers about as fast as
    // one thread decodes them.
    const values = Array.from({ length: 300_000 }, (_, i) => (i % 3 ? i * 0.5 : i - 150_000));
    const bytes = encode(values);
    const before = pool.stats().jobs;
    const t = await decodeMsgpackAsync(bytes, { pool });
    expect(pool.stats().jobs).toBe(before);
    expect(t.numRows).toBe(values.length);
    const col = t.getChildAt(0)!;
    for (let i = 0; i < values.length; i += 997) expect(Number(col.get(i))).toBe(values[i]);
    // Arrays of records are still split (minJobBytes 0 on this pool).
    const rb = encode(records(3000));
    expectTableMatches(await decodeMsgpackAsync(rb, { pool }), reference(rb) as unknown[]);
    expect(pool.stats().jobs).toBeGreaterThan(before);
  });

  it('splits a TsFile by time when there are fewer devices than workers', async () => {
    const ts = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile', 'cpp_many_devices_ts2diff.tsfile')));
    const one = await openTsFile(ts);
    const par = await openTsFile(ts, { pool });
    const dev = one.devices()[0]!.path;
    const series = (await one.timeseries()).filter((s) => s.device === dev);
    const start = series[0]!.start + 3n;
    const end = series[0]!.end - 2n;
    for (const q of [{ devices: [dev] }, { devices: [dev], start, end }, { start, end, columns: [series[0]!.measurement] }, { timeUnit: 'us' as const }]) {
      const t = await par.read(q);
      expectSameTable(await one.read(q), t);
    }
  });

  it('yields batches on the pool like one thread: TsFile per device, HDF5 per row range; stops early and aborts cleanly', async () => {
    const { RecordBatch, Table } = await import('apache-arrow');
    const collect = async (it: AsyncIterable<InstanceType<typeof RecordBatch>>) => {
      const out = [];
      for await (const b of it) out.push(b);
      return out;
    };
    const ts = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile', 'cpp_many_devices_ts2diff.tsfile')));
    const one = await openTsFile(ts);
    for (const p of [pool, transfer]) {
      const par = await openTsFile(ts, { pool: p });
      for (const q of [{}, { timeUnit: 'us' as const, columns: [one.tables()[0]!.columns.at(-1)!.name] }]) {
        const want = await collect(one.batches(q));
        const got = await collect(par.batches(q));
        expect(want.length).toBeGreaterThan(2);
        expect(got.length).toBe(want.length);
        got.forEach((b, i) => expectSameTable(new Table([want[i]!]), new Table([b])));
        // Each batch has its own tag dictionary, so the batches are not one Table: count rows.
        expect(got.reduce((n, b) => n + b.numRows, 0)).toBe((await one.read(q)).numRows);
      }
      // A consumer that stops after one batch leaves nothing queued; the pool goes on.
      for await (const b of par.batches()) {
        expect(b.numRows).toBeGreaterThan(0);
        break;
      }
      expect(p.stats().queued).toBe(0);
      const ac = new AbortController();
      await expect(
        (async () => {
          for await (const _ of par.batches({ signal: ac.signal })) ac.abort();
        })(),
      ).rejects.toThrow(/abort/i);
      expect(p.stats().queued).toBe(0);
      expectSameTable(await one.read(), await par.read());
    }
    const h5 = new Uint8Array(readFileSync(join(FIXTURES, 'hdf5', 'vl_latest.h5')));
    const plain = await openHdf5(h5);
    const par = await openHdf5(h5, { pool });
    const paths = (await plain.list('/')).filter((e) => e.kind === 'dataset' && e.shape.length > 0 && e.shape[0]! > 4).map((e) => '/' + e.name);
    expect(paths.length).toBeGreaterThan(1);
    for (const path of paths) {
      const want = await collect(plain.batches(path, { rows: 3 }));
      const got = await collect(par.batches(path, { rows: 3 }));
      expect(got.length).toBe(want.length);
      got.forEach((b, i) => expectSameTable(new Table([want[i]!]), new Table([b])));
      expect(got.reduce((n, b) => n + b.numRows, 0)).toBe((await plain.read(path)).numRows);
    }
  });
});
