// Benchmark decoders, run inside a worker. Arrowsmith runs in the SIMD worker or the scalar
// worker (one wasm build per JS realm); the JavaScript peers run in the scalar worker.
// Heavy peers (h5wasm's 4 MB bundle, jsfive) are loaded only when an HDF5 file is benchmarked.
import { decodeMsgpack, simdActive } from 'arrowsmith';
import { exported } from './exports.js';
import type { FormatName } from './sniff.js';

export type DecoderId = 'arrowsmith-simd' | 'arrowsmith-scalar' | 'msgpackr' | '@msgpack/msgpack' | 'h5wasm' | 'jsfive';

export interface DecoderInfo {
  id: DecoderId;
  label: string;
  /** Which worker runs it. */
  worker: 'simd' | 'scalar';
}

export const DECODERS: Record<FormatName, DecoderInfo[]> = {
  msgpack: [
    { id: 'arrowsmith-simd', label: 'Arrowsmith SIMD', worker: 'simd' },
    { id: 'arrowsmith-scalar', label: 'Arrowsmith scalar', worker: 'scalar' },
    { id: 'msgpackr', label: 'msgpackr', worker: 'scalar' },
    { id: '@msgpack/msgpack', label: '@msgpack/msgpack', worker: 'scalar' },
  ],
  hdf5: [
    { id: 'arrowsmith-simd', label: 'Arrowsmith SIMD', worker: 'simd' },
    { id: 'arrowsmith-scalar', label: 'Arrowsmith scalar', worker: 'scalar' },
    { id: 'h5wasm', label: 'h5wasm', worker: 'scalar' },
    { id: 'jsfive', label: 'jsfive', worker: 'scalar' },
  ],
  tsfile: [
    { id: 'arrowsmith-simd', label: 'Arrowsmith SIMD', worker: 'simd' },
    { id: 'arrowsmith-scalar', label: 'Arrowsmith scalar', worker: 'scalar' },
  ],
};

export interface BenchResult {
  decoder: DecoderId;
  label: string;
  /**
   * Getting ready in a fresh worker, ms: Arrowsmith compiles and instantiates the format's
   * module; a peer imports its code (h5wasm also compiles its module).
   */
  initMs?: number;
  /** The first read right after that (cold: code compiled on first use, fresh memory), ms. */
  firstMs?: number;
  /** Milliseconds per run after the first (warm). */
  times: number[];
  bytes: number;
  rows: number;
  error?: string;
  /** Which wasm build actually ran (Arrowsmith only). */
  simd?: boolean;
}

/** One full decode; returns the rows produced. */
type Run = () => Promise<number> | number;

const rowsOfValues = (values: unknown[]) => (values.length === 1 && Array.isArray(values[0]) ? values[0].length : values.length);

async function arrowsmithRun(format: FormatName, bytes: Uint8Array): Promise<Run> {
  if (format === 'msgpack') return () => decodeMsgpack(bytes).numRows;
  if (format === 'hdf5') {
    const openHdf5 = exported<(b: Uint8Array) => Promise<{ list(p: string): Promise<{ name: string; path?: string; kind: string }[]>; read(p: string): Promise<{ numRows: number }>; close?(): void }>>('openHdf5');
    if (!openHdf5) throw new Error('HDF5 support is not in this build yet');
    return async () => {
      const f = await openHdf5(bytes);
      let rows = 0;
      const walk = async (p: string, depth: number): Promise<void> => {
        for (const c of await f.list(p)) {
          const cp = c.path ?? (p === '/' ? `/${c.name}` : `${p}/${c.name}`);
          if (c.kind === 'group' && depth < 32) await walk(cp, depth + 1);
          else if (c.kind === 'dataset') rows += (await f.read(cp)).numRows;
        }
      };
      try {
        await walk('/', 0);
      } finally {
        f.close?.();
      }
      return rows;
    };
  }
  const openTsFile = exported<(b: Uint8Array) => Promise<{ tables(): Promise<unknown[]> | unknown[]; read(q: { table?: string }): Promise<{ numRows: number }>; close?(): void }>>('openTsFile');
  if (!openTsFile) throw new Error('TsFile support is not in this build yet');
  return async () => {
    const f = await openTsFile(bytes);
    try {
      const tables = await f.tables();
      if (!tables.length) return (await f.read({})).numRows; // tree model: every device
      let rows = 0;
      for (const t of tables) rows += (await f.read({ table: typeof t === 'string' ? t : String((t as { name: string }).name) })).numRows;
      return rows;
    } finally {
      f.close?.();
    }
  };
}

interface H5Node {
  keys?(): string[];
  get?(k: string): unknown;
  value?: unknown;
  shape?: number[] | null;
  type?: string;
}

async function peerRun(id: DecoderId, bytes: Uint8Array): Promise<Run> {
  switch (id) {
    case 'msgpackr': {
      const { unpackMultiple } = await import('msgpackr');
      return () => rowsOfValues(unpackMultiple(bytes) as unknown[]);
    }
    case '@msgpack/msgpack': {
      const { decodeMulti } = await import('@msgpack/msgpack');
      return () => rowsOfValues([...decodeMulti(bytes)]);
    }
    case 'h5wasm': {
      const h5 = await import('h5wasm');
      const { FS } = await h5.ready;
      return () => {
        const name = `/bench-${Math.random().toString(36).slice(2)}.h5`;
        FS!.writeFile(name, bytes);
        const f = new h5.File(name, 'r');
        let rows = 0;
        const walk = (g: H5Node, depth: number) => {
          for (const k of g.keys?.() ?? []) {
            const c = g.get!(k) as H5Node | null;
            if (!c) continue;
            if (c instanceof h5.Dataset) {
              void c.value;
              rows += c.shape?.length ? c.shape[0]! : 1;
            } else if (c instanceof h5.Group && depth < 32) walk(c, depth + 1);
          }
        };
        try {
          walk(f as unknown as H5Node, 0);
        } finally {
          f.close();
          FS!.unlink(name);
        }
        return rows;
      };
    }
    case 'jsfive': {
      const hdf5 = (await import('jsfive')) as unknown as { File: new (b: ArrayBuffer, name?: string) => unknown; Group: new (...a: unknown[]) => unknown; Dataset: new (...a: unknown[]) => unknown };
      return () => {
        const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
        const f = new hdf5.File(buf, 'bench.h5') as { keys: string[]; get(k: string): unknown };
        let rows = 0;
        const walk = (g: { keys: string[]; get(k: string): unknown }, depth: number) => {
          for (const k of g.keys) {
            const c = g.get(k) as { keys?: string[]; value?: unknown; shape?: number[] } | null;
            if (!c) continue;
            if (Array.isArray(c.keys)) {
              if (depth < 32) walk(c as { keys: string[]; get(k: string): unknown }, depth + 1);
            } else {
              void c.value;
              rows += c.shape?.length ? c.shape[0]! : 1;
            }
          }
        };
        walk(f, 0);
        return rows;
      };
    }
    default:
      throw new Error(`unknown decoder ${id}`);
  }
}

/**
 * One decoder in a fresh worker: its init, its first read (cold), then `runs` timed reads
 * (warm). `load` loads the format's Arrowsmith module (timed as Arrowsmith's init).
 */
export async function runBench(id: DecoderId, label: string, format: FormatName, bytes: Uint8Array, runs: number, load: () => Promise<unknown>): Promise<BenchResult> {
  const result: BenchResult = { decoder: id, label, times: [], bytes: bytes.length, rows: 0 };
  try {
    const t0 = performance.now();
    const arrowsmith = id.startsWith('arrowsmith');
    if (arrowsmith) await load();
    const run = arrowsmith ? await arrowsmithRun(format, bytes) : await peerRun(id, bytes);
    result.initMs = performance.now() - t0;
    if (arrowsmith) result.simd = simdActive();
    const t1 = performance.now();
    result.rows = await run();
    result.firstMs = performance.now() - t1;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await run();
      result.times.push(performance.now() - t);
    }
  } catch (e) {
    result.error = errorText(e);
    result.times = [];
  }
  return result;
}

export function errorText(e: unknown): string {
  const err = e as { name?: string; message?: string; offset?: number };
  if (err?.name === 'DecodeError') return String(err.message);
  return String(err?.message ?? e);
}
