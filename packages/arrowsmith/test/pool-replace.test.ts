// Worker replacement against fake workers whose 'exit' fires inside terminate(), as Deno's
// worker_threads do (Node fires it later): abort and close must reject each job once, with
// the right error, and leave exactly one live worker per slot.
import { afterEach, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../src/node.js';
import type { Job } from '../src/pool/protocol.js';
import { platform, type WorkerPort } from '../src/wasm/instance.js';

class FakeWorker implements WorkerPort {
  static all: FakeWorker[] = [];
  terminated = 0;
  readonly tasks: number[] = [];
  #message?: (m: unknown) => void;
  #failure?: (e: Error) => void;
  constructor() {
    FakeWorker.all.push(this);
  }
  static live(): number {
    return FakeWorker.all.filter((w) => w.terminated === 0).length;
  }
  post(m: unknown): void {
    const msg = m as { type: string; id?: number };
    // Tasks are held (never answered) until the test acts.
    if (msg.type === 'task') this.tasks.push(msg.id!);
  }
  onMessage(f: (m: unknown) => void): void {
    this.#message = f;
    // Ready once started, as real workers say.
    queueMicrotask(() => this.#message?.({ type: 'ready', memory: {} }));
  }
  onFailure(f: (e: Error) => void): void {
    this.#failure = f;
  }
  /** A crash while running. */
  crash(): void {
    this.#failure?.(new Error('arrowsmith: pool worker failed: boom'));
  }
  terminate(): void {
    // Deno: the exit event runs synchronously, inside the first terminate().
    if (this.terminated++ === 0) this.#failure?.(new Error('arrowsmith: pool worker exited (code 1)'));
  }
}

const saved = platform.startWorker;
let pool: Pool | undefined;

async function fakePool(size: number): Promise<Pool> {
  FakeWorker.all = [];
  platform.startWorker = () => new FakeWorker();
  pool = await createPool({ size, workerUrl: new URL('file:///fake-worker.js'), minJobBytes: 0 });
  return pool;
}

afterEach(() => {
  pool?.close();
  pool = undefined;
  platform.startWorker = saved;
});

const job: Job = { kind: 'msgpack', bytes: new Uint8Array([0x01]), base: 0, inArray: false, options: { fastPath: false, maxDepth: 64 } };
const until = async (f: () => boolean) => {
  for (let i = 0; i < 100 && !f(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(f()).toBe(true);
};

describe('pool worker replacement when exit fires inside terminate()', () => {
  it('abort rejects with the abort reason and leaves one live worker per slot', async () => {
    const p = await fakePool(2);
    const ac = new AbortController();
    const reason = new Error('stop');
    const it = p.batches([job, job], { signal: ac.signal })[Symbol.asyncIterator]();
    const first = it.next();
    await until(() => FakeWorker.all.filter((w) => w.tasks.length > 0).length === 2);
    ac.abort(reason);
    await expect(first).rejects.toBe(reason);
    expect(FakeWorker.all.filter((w) => w.tasks.length > 0).every((w) => w.terminated === 1)).toBe(true);
    expect(FakeWorker.live()).toBe(2);
    expect(FakeWorker.all.length).toBe(4);
    expect(p.stats().workers).toBe(2);
  });

  it('a table() call aborted mid-run rejects with the reason, once, and the pool goes on', async () => {
    const p = await fakePool(1);
    const ac = new AbortController();
    const reason = new Error('stop');
    const t = p.table([job], { signal: ac.signal });
    await until(() => FakeWorker.all[0]!.tasks.length === 1);
    ac.abort(reason);
    await expect(t).rejects.toBe(reason);
    expect(FakeWorker.live()).toBe(1);
    expect(FakeWorker.all.length).toBe(2);
    // The replacement takes the next job.
    void p.table([job]).catch(() => {});
    await until(() => FakeWorker.all[1]!.tasks.length === 1);
  });

  it('a crash rejects its job with the crash and starts exactly one replacement', async () => {
    const p = await fakePool(1);
    const t = p.table([job]);
    await until(() => FakeWorker.all[0]!.tasks.length === 1);
    FakeWorker.all[0]!.crash();
    await expect(t).rejects.toThrow(/boom/);
    expect(FakeWorker.all[0]!.terminated).toBe(1);
    expect(FakeWorker.live()).toBe(1);
    expect(FakeWorker.all.length).toBe(2);
  });

  it('close() rejects pending work with "closed" and terminates every worker once', async () => {
    const p = await fakePool(2);
    const t = p.table([job, job, job]);
    await until(() => FakeWorker.all.filter((w) => w.tasks.length > 0).length === 2);
    p.close();
    await expect(t).rejects.toThrow(/closed/);
    expect(FakeWorker.all.map((w) => w.terminated)).toEqual([1, 1]);
    expect(FakeWorker.live()).toBe(0);
    expect(p.stats().workers).toBe(0);
  });
});

describe('pool workers given their next job ahead', () => {
  it('gives a worker a second job only once every worker has one, and not the last jobs', async () => {
    const p = await fakePool(2);
    void p.table([job, job, job, job, job]).catch(() => {});
    await until(() => FakeWorker.all.reduce((n, w) => n + w.tasks.length, 0) === 3);
    expect(FakeWorker.all.map((w) => w.tasks.length).sort()).toEqual([1, 2]);
    // The two left wait for a worker that has nothing to do.
    expect(p.stats().queued).toBe(2);
  });

  it("an abort that replaces a worker sends another call's job it was given to the next worker", async () => {
    const p = await fakePool(1);
    // Bytes in a larger buffer: not transferred, so they can be sent again.
    const view: Job = { ...job, bytes: new Uint8Array(new ArrayBuffer(8), 0, 1) } as Job;
    const ac = new AbortController();
    const reason = new Error('stop');
    const aborted = p.table([view], { signal: ac.signal });
    let other: unknown = 'pending';
    p.table([view, view]).then((x) => (other = x), (e) => (other = e));
    await until(() => FakeWorker.all[0]!.tasks.length === 2);
    ac.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    await until(() => FakeWorker.all[1]?.tasks.length === 1);
    expect(p.stats().queued).toBe(1);
    expect(other).toBe('pending');
    expect(FakeWorker.live()).toBe(1);
  });
});
