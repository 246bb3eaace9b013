// TsFile `batches()` on a worker pool from a path and from a Blob (how big files are read):
// the same batches as one thread and the official reader's values; a consumer that pauses
// leaves a bounded number of windows in flight; an abort stops the workers mid-read.
import { RecordBatch, Table } from 'apache-arrow';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, openTsFile, type Pool } from '../src/node.js';
import { fixturePairs } from './fixtures.js';
import { workerUrl } from './pools.js';
import { tableMismatches } from './tsfile-compare.js';
import { toRecordBatch } from '../src/arrow/batch.js';
import type { WasmBatchHandle } from '../src/types.js';
import { instance } from '../src/wasm/instance.js';

const fixtures = fixturePairs('tsfile', '.tsfile');
const fixture = (name: string) => fixtures.find((f) => f.name === name)!;
let pool: Pool;
let dir: string;

beforeAll(async () => {
  pool = await createPool({ size: 2, workerUrl, minJobBytes: 0 });
  dir = mkdtempSync(join(tmpdir(), 'arrowsmith-batches-'));
});
afterAll(() => {
  pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fixture written to a file of its own (a path source; workers open it themselves). */
function onDisk(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, fixture(name).data);
  return path;
}

/** The 12-device fixture on disk, its query in 5-row batches, one thread's batches of it and its device count. */
async function manyDevices() {
  const { json } = fixture('cpp_many_devices_ts2diff.tsfile');
  const path = onDisk('cpp_many_devices_ts2diff.tsfile');
  const q = { table: json.table, timeUnit: json.time_unit, rows: 5 };
  await using one = await openTsFile(path);
  return { json, path, q, want: await collect(one.batches(q)), devices: one.devices().length };
}

const collect = async (it: AsyncIterable<RecordBatch>) => {
  const out: RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
};
const rowsOf = (b: RecordBatch) => JSON.stringify(new Table([b]).toArray(), (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
// Each batch has its own dictionary types (tags): one schema to concatenate them.
const concat = (batches: RecordBatch[]) => new Table(batches.map((b) => new RecordBatch(batches[0]!.schema, b.data)));
const tick = () => new Promise((r) => setTimeout(r, 10));

describe('TsFile batches() on a pool', () => {
  // One device of 2,000 rows, two of 400, twelve of 20.
  for (const name of ['cpp_long_pages_ts2diff_lz4.tsfile', 'cpp_multipage_gorilla_lz4.tsfile', 'cpp_many_devices_ts2diff.tsfile']) {
    it(`from a path and from a Blob: the one-thread batches, and the official reader's values (${name})`, async () => {
      const { json } = fixture(name);
      const path = onDisk(name);
      const q = { table: json.table, timeUnit: json.time_unit, rows: 7 };
      for (const [kind, source] of [
        ['path', () => path],
        ['Blob', () => openAsBlob(path)],
      ] as const) {
        await using one = await openTsFile(await source());
        await using par = await openTsFile(await source(), { pool });
        const want = await collect(one.batches(q));
        const jobs = pool.stats().jobs;
        const got = await collect(par.batches(q));
        // Every window was a job on the pool (a single device's windows too).
        expect(pool.stats().jobs - jobs, kind).toBeGreaterThanOrEqual(Math.ceil(want.length / 2));
        expect(want.length, kind).toBeGreaterThan(2 * one.devices().length);
        expect(got.map((b) => b.numRows), kind).toEqual(want.map((b) => b.numRows));
        got.forEach((b, i) => expect(rowsOf(b), `${kind} batch ${i}`).toBe(rowsOf(want[i]!)));
        expect(tableMismatches(concat(got), json), kind).toEqual([]);
      }
    }, 60_000);
  }

  it("a Blob's windows read each device's bytes from shared memory, a few buffers reused for all devices", async () => {
    const { path, q, want, devices } = await manyDevices();
    // SharedArrayBuffers made on this thread, counted (the workers have globals of their own).
    const Real = SharedArrayBuffer;
    let made = 0;
    globalThis.SharedArrayBuffer = class extends Real {
      constructor(n: number) {
        super(n);
        made++;
      }
    } as typeof SharedArrayBuffer;
    let got: RecordBatch[];
    try {
      // A file-backed Blob (workers cannot be sent it: this thread reads it for them).
      await using par = await openTsFile(await openAsBlob(path), { pool });
      got = await collect(par.batches(q));
    } finally {
      globalThis.SharedArrayBuffer = Real;
    }
    expect(got.map((b) => b.numRows)).toEqual(want.map((b) => b.numRows));
    got.forEach((b, i) => expect(rowsOf(b), `batch ${i}`).toBe(rowsOf(want[i]!)));
    // 12 devices of 4 windows each: the devices' bytes went to shared memory, in buffers
    // given back for reuse once their windows were done.
    expect(devices).toBe(12);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(6);
  }, 60_000);

  it('a window given some of its bytes reads the rest from the source, and only the rest', async () => {
    const { data, json } = fixture('cpp_many_devices_ts2diff.tsfile');
    const asked: [number, number][] = [];
    const source = { size: data.length, read: async (o: number, n: number) => (asked.push([o, o + n]), data.slice(o, o + n)) };
    await using f = await openTsFile(source);
    const q = { table: json.table, timeUnit: json.time_unit };
    const want = rowsOf((await f.read(q)).batches[0]!);
    // Given the first half of the file (the footer and index are kept since the open).
    const half = Math.floor(data.length / 2);
    asked.length = 0;
    const internal = f as unknown as { readHandle: (q: object, g: object) => Promise<WasmBatchHandle> };
    const h = await internal.readHandle(q, { ranges: [0, half], bytes: data.slice(0, half) });
    // The file reads with the default instance of its module (it has not grown past the limit).
    expect(rowsOf(toRecordBatch(instance('tsfile'), h))).toBe(want);
    h.free();
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every(([a, b]) => b > half && a >= half - 4096)).toBe(true);
  }, 30_000);

  it('a consumer that pauses leaves at most twice the workers of windows in flight', async () => {
    const { json } = fixture('cpp_many_devices_ts2diff.tsfile');
    const path = onDisk('cpp_many_devices_ts2diff.tsfile');
    for (const source of [path, await openAsBlob(path)]) {
      await using f = await openTsFile(source, { pool });
      const before = pool.stats().jobs;
      const it = f.batches({ table: json.table, rows: 5 })[Symbol.asyncIterator]();
      const first = await it.next();
      expect(first.done).toBe(false);
      // Paused after one batch: let the pool finish all it was given, then count the windows
      // it took (jobs started), the one consumed included.
      // (Idle, and no job started over a few more turns: a Blob's windows are fetched here first.)
      let seen = -1;
      while (seen !== pool.stats().jobs) {
        seen = pool.stats().jobs;
        for (let i = 0; i < 5 || pool.stats().queued + pool.stats().running > 0; i++) await tick();
      }
      const taken = pool.stats().jobs - before;
      expect(taken).toBeGreaterThan(1);
      expect(taken).toBeLessThanOrEqual(2 * pool.size + 1);
      // The rest streams on: the windows of 12 devices × 20 rows, 5 rows each about.
      let rows = first.value!.numRows;
      let batches = 1;
      for (let r = await it.next(); !r.done; r = await it.next()) {
        rows += r.value.numRows;
        batches++;
      }
      expect(batches).toBeGreaterThan(4 * (2 * pool.size + 1));
      expect(rows).toBe(json.devices.reduce((n: number, d: { columns: Record<string, unknown[]> }) => n + Object.values(d.columns)[0]!.length, 0));
    }
  }, 60_000);

  it("an abort mid-stream stops the workers' reads (the workers waiting for bytes are replaced)", async () => {
    const { data, json } = fixture('cpp_many_devices_ts2diff.tsfile');
    // A ranged source the workers ask through this thread: once `gate` is set, reads are
    // counted and wait until released.
    let gate = false;
    let asked = 0;
    const held: (() => void)[] = [];
    const source = {
      size: data.length,
      read: (o: number, n: number) => {
        if (!gate) return Promise.resolve(data.slice(o, o + n));
        asked++;
        return new Promise<Uint8Array>((r) => held.push(() => r(data.slice(o, o + n))));
      },
    };
    await using f = await openTsFile(source, { pool });
    const q = { table: json.table, timeUnit: json.time_unit, rows: 5 };
    // A first pass: this thread learns the device spans and both workers open the file, so
    // the reads counted below are the workers' data reads.
    const all = (await collect(f.batches(q))).reduce((n, b) => n + b.numRows, 0);
    expect(all).toBe((await f.read({ table: json.table })).numRows);
    const ac = new AbortController();
    const it = f.batches({ ...q, signal: ac.signal })[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    gate = true;
    // Pull on until a worker waits for bytes (the windows decoded before the gate come first).
    let next = it.next();
    while (asked === 0) {
      const r = await Promise.race([next.then(() => 'batch' as const), tick().then(() => 'wait' as const)]);
      if (r === 'batch') next = it.next();
    }
    // (The waiting workers' other requests, already posted, arrive first: until none came for 10 turns.)
    for (let seen = -1, still = 0; still < 10; still = seen === asked ? still + 1 : 0, seen = asked) await tick();
    ac.abort(new Error('stop'));
    // (A window decoded before the abort may still come; then the stream ends with the reason.)
    await expect(
      (async () => {
        for (let r = await next; !r.done; r = await it.next());
      })(),
    ).rejects.toThrow('stop');
    // The workers that waited were terminated: their places hold fresh workers (no TsFile
    // module yet), none busy; the bytes released now reach no one.
    expect(pool.stats().wasm.filter((w) => w.tsfile === undefined).length).toBeGreaterThan(0);
    expect([pool.stats().running, pool.stats().queued]).toEqual([0, 0]);
    for (const release of held.splice(0)) release();
    // The pool and the file read on.
    gate = false;
    expect((await collect(f.batches(q))).reduce((n, b) => n + b.numRows, 0)).toBe(all);
  }, 60_000);
});

describe('TsFile batches({ lend: true }) on a pool', () => {
  it("each batch holds the official reader's values until the iterator advances; later batches reuse its memory", async () => {
    const { json, path, q, want } = await manyDevices();
    expect(tableMismatches(concat(want), json)).toEqual([]);
    for (const [kind, source] of [
      ['path', () => path],
      ['Blob', () => openAsBlob(path)],
    ] as const) {
      await using par = await openTsFile(await source(), { pool });
      const seen: string[] = [];
      const memory: ArrayBufferLike[] = [];
      for await (const b of par.batches({ ...q, lend: true })) {
        // Read while current (the documented contract).
        seen.push(rowsOf(b));
        memory.push(b.getChild('time')!.data[0]!.values.buffer);
        // String bytes are never in shared memory (browsers' TextDecoder rejects it).
        for (const c of b.data.children) {
          const text = [c, ...(c.dictionary?.data ?? [])].filter((d) => String(d.type) === 'Utf8' || String(d.type) === 'Binary');
          for (const d of text) expect(d.values.buffer instanceof SharedArrayBuffer, `${kind} ${d.type}`).toBe(false);
        }
      }
      expect(seen, kind).toEqual(want.map(rowsOf));
      // The jobs taken before a first batch came back (twice the workers) had no size to go
      // by; every later batch was lent, in a few pieces of shared memory used again and again.
      const lent = memory.filter((m) => m instanceof SharedArrayBuffer);
      expect(lent.length, kind).toBeGreaterThanOrEqual(memory.length - 2 * pool.size);
      expect(new Set(lent).size, kind).toBeLessThanOrEqual(2 * pool.size + 2);
      expect(new Set(lent).size, kind).toBeLessThan(lent.length / 4);
    }
  }, 60_000);

  it('a later lending call reuses the memory of an earlier one (workers keep what they were sent until their own GC)', async () => {
    const { path, q, want } = await manyDevices();
    await using par = await openTsFile(path, { pool });
    const pieces = async () => {
      const seen = new Set<ArrayBufferLike>();
      const rows: string[] = [];
      for await (const b of par.batches({ ...q, lend: true })) {
        rows.push(rowsOf(b));
        const m = b.getChild('time')!.data[0]!.values.buffer;
        if (m instanceof SharedArrayBuffer) seen.add(m);
      }
      expect(rows).toEqual(want.map(rowsOf));
      return seen;
    };
    const first = await pieces();
    const second = await pieces();
    expect(first.size).toBeGreaterThan(0);
    expect([...second].filter((m) => first.has(m)).length).toBeGreaterThan(0);
  }, 60_000);

  it('without lend, batches kept while later ones decode keep their values (memory of their own, not lent)', async () => {
    const { json } = fixture('cpp_many_devices_ts2diff.tsfile');
    const path = onDisk('cpp_many_devices_ts2diff.tsfile');
    await using par = await openTsFile(await openAsBlob(path), { pool });
    const got = await collect(par.batches({ table: json.table, timeUnit: json.time_unit, rows: 5 }));
    expect(tableMismatches(concat(got), json)).toEqual([]);
    const memory = got.map((b) => b.getChild('time')!.data[0]!.values.buffer);
    expect(memory.every((m) => !(m instanceof SharedArrayBuffer))).toBe(true);
  }, 60_000);
});

describe('TsFile batches() from a Blob on one thread', () => {
  it("read each device's bytes once, the next device's while this one's windows are consumed: the official reader's values", async () => {
    const { json } = fixture('cpp_many_devices_ts2diff.tsfile');
    const blob = await openAsBlob(onDisk('cpp_many_devices_ts2diff.tsfile'));
    // The ranges read from the Blob, counted from after the open.
    const slice = blob.slice.bind(blob);
    const asked: [number, number][] = [];
    blob.slice = (a?: number, b?: number) => (asked.push([a!, b!]), slice(a, b));
    await using f = await openTsFile(blob);
    asked.length = 0;
    const q = { table: json.table, timeUnit: json.time_unit, rows: 5 };
    const it = f.batches(q)[Symbol.asyncIterator]();
    const got = [(await it.next()).value as RecordBatch];
    // A TsFile holds its data before its index, and the first read is of the index (the
    // open kept only the tail): reads that start before it are data.
    const data = () => asked.filter(([a]) => a < asked[0]![0]);
    // Paused after device 0's first window: its bytes and device 1's were asked for, no more.
    for (let i = 0; i < 10; i++) await tick();
    expect(data().length).toBe(2);
    expect(data()[1]![0]).toBeGreaterThanOrEqual(data()[0]![1] - 128);
    for (let r = await it.next(); !r.done; r = await it.next()) got.push(r.value);
    expect(got.length).toBeGreaterThan(2 * 12);
    expect(data().length).toBe(12);
    expect(tableMismatches(concat(got), json)).toEqual([]);
  }, 30_000);
});

