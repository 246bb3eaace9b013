/**
 * Idle-time warm-up (`init({ warm: true })`). An engine runs a wasm function's first calls
 * in baseline code and compiles optimized code in the background only once the function
 * has run a while, so a first read runs mostly in baseline code (2–4× slower than later
 * reads). Reading a small built-in input a few times while the page or process is idle gets
 * the hot functions compiled before the first real read. Each warm-up read waits for idle
 * time (`requestIdleCallback` in browsers, an unref'd timer elsewhere), so real work goes
 * first; a failing warm-up read only ends the warm-up.
 */
import type { Format } from './wasm.js';
import { instanceAsync } from './wasm.js';
import { openTsFile } from './tsfile.js';

/** Reads of the built-in input: enough for V8 to tier up the hot loops (bench/results/cold.md). */
const READS = 12;

type Idle = (f: () => void) => void;
const g = globalThis as { requestIdleCallback?: (f: () => void, o?: { timeout: number }) => void };
const idle: Idle = g.requestIdleCallback
  ? (f) => g.requestIdleCallback!(f, { timeout: 2000 })
  : (f) => (setTimeout(f, 0) as { unref?: () => void }).unref?.();

/** The built-in input of a format, if it has one. @internal */
export async function builtInInput(format: Format): Promise<Uint8Array | undefined> {
  return format === 'tsfile' ? (await instanceAsync('tsfile')).glue.warmInput() : undefined;
}

/** One warm-up read of a format's built-in input (fetched out of the module once). */
const readOnce: Partial<Record<Format, (input: Uint8Array) => Promise<unknown>>> = {
  tsfile: async (input) => {
    const f = await openTsFile(input);
    try {
      await f.read();
    } finally {
      f.close();
    }
  },
};

/** Warm up the formats that have a built-in input; resolves with the reads made (never rejects). */
export async function warmUp(formats: readonly Format[]): Promise<number> {
  let reads = 0;
  for (const f of formats) {
    const read = readOnce[f];
    if (!read) continue;
    try {
      const input = (await builtInInput(f))!;
      for (let i = 0; i < READS; i++) {
        await new Promise<void>((r) => idle(r));
        await read(input);
        reads++;
      }
    } catch {
      // A warm-up is only an optimisation: the real read reports any problem.
    }
  }
  return reads;
}
