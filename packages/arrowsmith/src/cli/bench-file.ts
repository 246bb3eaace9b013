/**
 * Time one file with every decoder available in this process: Arrowsmith SIMD and scalar
 * (separate module instances) and, when installed, the JavaScript peers of its format
 * (msgpackr and @msgpack/msgpack; h5wasm and jsfive). Each decoder is warmed up first, then
 * the timed runs go round the decoders in turn, so a machine that slows down mid-way slows
 * every decoder alike.
 */
import { readFileSync } from 'node:fs';
// Node's platform hooks (uninitialised output copies, worker threads): time what a Node
// user of the package gets.
import '../node.js';
import { decodeWith } from '../formats/msgpack/decode.js';
import { wasmFile } from '../wasm/files.js';
import { standalone, type Build, type Format, type Loaded } from '../wasm/instance.js';

/** An instance of one build of a format's module, of its own (benchmarks compare the builds side by side). @internal */
export function instantiateVariant<F extends Format = 'msgpack'>(variant: Build, format: F = 'msgpack' as F): Loaded<F> {
  return standalone(format, new WebAssembly.Module(readFileSync(wasmFile(format, variant))), variant === 'simd');
}

/** One decoder of the file: a run returns the rows it decoded. */
interface Contender {
  name: string;
  run: () => number | Promise<number>;
}

export interface Timing {
  name: string;
  medianMs: number;
  minMs: number;
  rows?: number;
  error?: string;
}

/** Warm-up per decoder: at least this many runs, and on until this much time has passed (or the cap). */
const WARM_RUNS = 3;
const WARM_MS = 250;
const WARM_CAP = 50;

async function race(contenders: Contender[], runs: number): Promise<Timing[]> {
  const times = contenders.map((): number[] => []);
  const rows: number[] = [];
  const errors: (string | undefined)[] = [];
  for (const [i, c] of contenders.entries()) {
    try {
      const t0 = performance.now();
      for (let k = 0; k < WARM_CAP && (k < WARM_RUNS || performance.now() - t0 < WARM_MS); k++) rows[i] = await c.run();
    } catch (e) {
      errors[i] = String((e as Error)?.message ?? e);
    }
  }
  for (let r = 0; r < runs; r++) {
    for (const [i, c] of contenders.entries()) {
      if (errors[i] !== undefined) continue;
      try {
        const t0 = performance.now();
        await c.run();
        times[i]!.push(performance.now() - t0);
      } catch (e) {
        errors[i] = String((e as Error)?.message ?? e);
      }
    }
  }
  return contenders.map((c, i) => {
    if (errors[i] !== undefined) return { name: c.name, medianMs: NaN, minMs: NaN, error: errors[i] };
    const t = times[i]!.sort((a, b) => a - b);
    return { name: c.name, medianMs: t[t.length >> 1]!, minMs: t[0]!, rows: rows[i] };
  });
}

async function peer(name: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(name)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function count(v: unknown): number {
  return Array.isArray(v) ? v.length : 1;
}

/** Arrowsmith's two builds of a format's module, each its own instance, running `run`. */
function builds<F extends Format>(format: F, run: (w: Loaded<F>) => number | Promise<number>): Contender[] {
  return (['simd', 'scalar'] as const).map((v) => {
    const w = instantiateVariant(v, format);
    return { name: `arrowsmith ${v}`, run: () => run(w) };
  });
}

async function msgpackContenders(bytes: Uint8Array): Promise<{ list: Contender[]; note?: string }> {
  const list = builds('msgpack', (w) => decodeWith(w, bytes).numRows);
  const msgpackr = await peer('msgpackr');
  if (msgpackr) list.push({ name: 'msgpackr', run: () => count((msgpackr.unpack as (b: Uint8Array) => unknown)(bytes)) });
  const msgpack = await peer('@msgpack/msgpack');
  if (msgpack) list.push({ name: '@msgpack/msgpack', run: () => count((msgpack.decode as (b: Uint8Array) => unknown)(bytes)) });
  return { list, note: msgpackr && msgpack ? undefined : 'install msgpackr and @msgpack/msgpack to compare with them' };
}

async function tsfileContenders(bytes: Uint8Array, what?: string): Promise<{ list: Contender[]; note?: string }> {
  const { TsFile } = await import('../formats/tsfile/file.js');
  const list = builds('tsfile', async (w) => {
    await using f = await TsFile.openWith(w, bytes);
    const q = what ? (f.tables().some((t) => t.name === what) ? { table: what } : { devices: [what] }) : {};
    return (await f.read(q)).numRows;
  });
  return { list, note: 'no JavaScript TsFile reader exists to compare with (bench/tsfile_native.py compares with the official Python reader)' };
}

interface H5Peer {
  default: {
    ready: Promise<{ FS: { writeFile(p: string, b: Uint8Array): void; unlink(p: string): void } }>;
    File: new (p: string, m: string) => { get(p: string): { shape: number[] | null; value: unknown } | null; close(): void };
  };
}
interface JsfivePeer {
  File: new (b: ArrayBuffer, n: string) => { get(p: string): { shape: number[]; value: unknown } };
}

async function hdf5Contenders(bytes: Uint8Array, path: string): Promise<{ list: Contender[]; note?: string }> {
  const { Hdf5File } = await import('../formats/hdf5/file.js');
  const list = builds('hdf5', async (w) => {
    await using f = await Hdf5File.openWith(w, bytes);
    return (await f.read(path)).numRows;
  });
  const h5wasm = (await peer('h5wasm/node')) as H5Peer | undefined;
  if (h5wasm) {
    const { FS } = await h5wasm.default.ready;
    list.push({
      name: 'h5wasm',
      run: () => {
        // h5wasm reads from its in-memory file system: writing the bytes there is part of its open.
        FS.writeFile('/bench.h5', bytes);
        const f = new h5wasm.default.File('/bench.h5', 'r');
        try {
          const d = f.get(path);
          if (!d || d.value === undefined) throw new Error(`h5wasm found no dataset ${path}`);
          return d.shape?.[0] ?? 1;
        } finally {
          f.close();
          FS.unlink('/bench.h5');
        }
      },
    });
  }
  const jsfive = (await peer('jsfive')) as JsfivePeer | undefined;
  if (jsfive) {
    list.push({
      name: 'jsfive',
      run: () => {
        const d = new jsfive.File(bytes.slice().buffer, 'bench.h5').get(path);
        void d.value;
        return d.shape[0] ?? 1;
      },
    });
  }
  return { list, note: h5wasm && jsfive ? undefined : 'install h5wasm and jsfive to compare with them' };
}

/**
 * Time every decoder on a file (MessagePack: decode; TsFile/HDF5: open + read of `what`,
 * HDF5 needs a dataset path). `failed` names the decoders that could not read it.
 */
export async function benchFile(bytes: Uint8Array, runs: number, format: 'msgpack' | 'tsfile' | 'hdf5', what?: string): Promise<{ text: string; failed: string[] }> {
  if (format === 'hdf5' && !what) throw new Error('benchFile: an HDF5 bench needs a dataset path');
  const { list, note } = format === 'msgpack' ? await msgpackContenders(bytes) : format === 'tsfile' ? await tsfileContenders(bytes, what) : await hdf5Contenders(bytes, what!);
  const results = await race(list, runs);
  const base = results[0]!.medianMs;
  const label = { msgpack: 'MessagePack decode', tsfile: `TsFile open + read${what ? ` of ${what}` : ''}`, hdf5: `HDF5 open + read of ${what}` }[format];
  const lines = [`${label}, ${bytes.length} bytes, ${runs} runs after warm-up, medians:`];
  for (const r of results) {
    lines.push(
      r.error
        ? `  ${r.name.padEnd(18)} failed: ${r.error}`
        : `  ${r.name.padEnd(18)} ${r.medianMs.toFixed(3).padStart(10)} ms  (min ${r.minMs.toFixed(3)})  ${Number.isFinite(base) ? `${(r.medianMs / base).toFixed(2)}× arrowsmith simd's time` : ''}, ${r.rows} rows`,
    );
  }
  if (note) lines.push(`  (${note})`);
  return { text: lines.join('\n'), failed: results.filter((r) => r.error).map((r) => r.name) };
}
