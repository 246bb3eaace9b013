/**
 * Idle-time warm-up (`init({ warm: true })`). An engine runs a wasm function's first calls
 * in baseline code and compiles optimized code in the background only once the function
 * has run a while, so a first read runs mostly in baseline code (2–4× slower than later
 * reads). Reading a small built-in input a few times while the page or process is idle gets
 * the hot functions compiled before the first real read. Each format's module carries its
 * own input (crates/wasm/warm, written by scripts/fixtures/<format>/gen_warm.*). Each
 * warm-up read waits for idle time (`requestIdleCallback` in browsers, an unref'd timer
 * elsewhere), so real work goes first; a failing warm-up read only ends that format's warm-up.
 */
import { openHdf5 } from './hdf5/file.js';
import { decodeMsgpack } from './msgpack/decode.js';
import { reserveOutput } from '../arrow/batch.js';
import { openTsFile } from './tsfile/file.js';
import { TSFILE_OUTPUT_RESERVE, TSFILE_PIECE_MEMORY } from './tsfile/sizes.js';
import type { Format } from '../wasm/instance.js';
import { instanceAsync } from '../wasm/instance.js';

/** Reads of each built-in input: enough for V8 to tier up the hot loops (bench/results/cold.md). */
const READS = 12;

/** Runs `f` in idle time, with the ms left of that idle period (0: one step only). */
type Idle = (f: (left: () => number) => void) => void;
const g = globalThis as { requestIdleCallback?: (f: (d: { timeRemaining(): number }) => void, o?: { timeout: number }) => void };
const idle: Idle = g.requestIdleCallback
  ? (f) => g.requestIdleCallback!((d) => f(() => d.timeRemaining()), { timeout: 2000 })
  : (f) => (setTimeout(() => f(() => 0), 0) as { unref?: () => void }).unref?.();

/**
 * Idle ms a warm-up read needs left to start in the same idle period (browsers: a period
 * lasts up to 50 ms and the next may come a frame or more later, so one read per period
 * made 40 reads take seconds).
 */
const READ_SLOT_MS = 8;

interface Warmer {
  /** The built-in input, out of the format's module (once per warm-up). */
  input(): Promise<Uint8Array>;
  /** Reads of it (default READS). */
  reads?: number;
  /** One warm-up read of it, the way a first real read goes. */
  read(input: Uint8Array): unknown;
  /** After the reads: the wasm memory a first real read grows into, grown and touched now. */
  prefault?(): Promise<void>;
}

const WARM: Record<Format, Warmer> = {
  // A map of documents, one bin each: the map, then each document, decoded whole.
  msgpack: {
    input: async () => (await instanceAsync('msgpack')).glue.msgpackWarmInput(),
    read: (input) => {
      const docs = decodeMsgpack(input);
      for (const f of docs.schema.fields) decodeMsgpack(docs.getChild(f.name)!.get(0) as Uint8Array);
    },
  },
  tsfile: {
    input: async () => (await instanceAsync('tsfile')).glue.warmInput(),
    // V8 optimizes the page loop (`aligned`) and the value decoders of a TsFile read only
    // after ~28 reads of the 2,000-row input: with 12, a first whole read ran them in
    // baseline code (bench/results/cold.md).
    reads: 40,
    read: async (input) => {
      const f = await openTsFile(input);
      try {
        await f.read();
      } finally {
        f.close();
      }
    },
    // A whole read holds one piece of output in wasm memory at a time (tsfile/pieces.ts): the
    // module's memory grows by that much now and its pages are written (a supplied buffer
    // of zeros, then freed to the allocator), so the first read reuses them instead of
    // faulting fresh pages in.
    prefault: async () => {
      const w = await instanceAsync('tsfile');
      const r = new w.glue.TsFileReader(TSFILE_PIECE_MEMORY);
      try {
        r.supply(0, new Uint8Array(TSFILE_PIECE_MEMORY));
      } finally {
        r.free();
      }
      // And the JS output memory a first whole read copies its columns into.
      reserveOutput(TSFILE_OUTPUT_RESERVE);
    },
  },
  // Every dataset at the root, each read whole.
  hdf5: {
    input: async () => (await instanceAsync('hdf5')).glue.hdf5WarmInput(),
    read: async (input) => {
      const f = await openHdf5(input);
      try {
        for (const e of await f.list('/')) if (e.kind === 'dataset') await f.read(`/${e.name}`);
      } finally {
        await f.close();
      }
    },
  },
};

/** The built-in input of a format. @internal */
export function builtInInput(format: Format): Promise<Uint8Array> {
  return WARM[format].input();
}

/**
 * Idle time after the reads before `warmed` resolves: the optimized code they set off is
 * compiled on the engine's background threads and lands after the last read. Waiting as long
 * again as the reads took (at least `floorMs`, at most 1 s) lets it land first on this
 * project's 2-core machine (bench/results/cold.md: HDF5 read 1 after a warm start, 34.6 →
 * 16.5 ms wall with 100 ms of idle; the reads took ~90 ms).
 * @internal
 */
export function settleMs(readsMs: number, floorMs = 0): number {
  return Math.min(Math.max(readsMs, floorMs), 1000);
}

/**
 * The settling time where reads share idle periods (browsers): there they take less time than
 * the compiles they set off (the TsFile reads: ~290 ms of optimizing compiles on a quiet
 * machine, more on a busy one), so the full second they had when one read took a period.
 */
const PACKED_SETTLE_MS = 1000;

/** Waits `ms` of idle time: in idle callbacks in browsers, an unref'd timer elsewhere. */
async function idleFor(ms: number): Promise<void> {
  if (!g.requestIdleCallback) return new Promise<void>((r) => (setTimeout(r, ms) as { unref?: () => void }).unref?.());
  const end = performance.now() + ms;
  while (performance.now() < end) await new Promise<void>((r) => idle(() => r()));
}

/** Warm up each format in turn; resolves with the reads made (never rejects). */
export async function warmUp(formats: readonly Format[]): Promise<number> {
  const start = performance.now();
  let reads = 0;
  for (const f of formats) {
    try {
      const { input: get, read, reads: n = READS } = WARM[f];
      const input = await get();
      for (let i = 0; i < n; ) {
        const left = await new Promise<() => number>((r) => idle(r));
        do {
          await read(input);
          reads++;
        } while (++i < n && left() > READ_SLOT_MS);
      }
      const { prefault } = WARM[f];
      if (prefault) {
        await new Promise<void>((r) => idle(() => r()));
        await prefault();
      }
    } catch {
      // A warm-up is only an optimisation: the real read reports any problem.
    }
  }
  if (reads > 0) await idleFor(settleMs(performance.now() - start, g.requestIdleCallback ? PACKED_SETTLE_MS : 0));
  return reads;
}
