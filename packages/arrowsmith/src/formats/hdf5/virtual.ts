/**
 * Virtual datasets, read on the calling thread (also with a pool): the wasm read assembles
 * the rows from the mapped sources, this file's own directly; for sources in other files it
 * says what it misses (shapes and types, then rows), which are read from those files (opened
 * through `resolve`; one the resolver does not have reads as the fill value, as in libhdf5)
 * and supplied, and the read runs again.
 */
import type { RecordBatch } from '../../arrow/lib.js';
import { DecodeError } from '../../errors.js';
import { abortable } from '../../io/abort.js';
import type { FileReadOptions } from '../../types.js';
import { MAX_LINKED_DEPTH, window, type Hdf5Core } from './core.js';
import type { Hdf5Options } from './types.js';

/** What a virtual dataset's read asks of a source in another file: its shape and type, or rows of it. */
interface SourceNeed {
  file: string;
  dataset: string;
  start?: number;
  count?: number;
}

/** Rounds of a virtual read: shapes and types, then rows, then the read (one spare). */
const VIRTUAL_ROUNDS = 4;

/** The file a virtual dataset is in, and how it reaches the others. */
export interface VirtualFile {
  core: Hdf5Core;
  resolve: Hdf5Options['resolve'];
  /** External links followed to reach this file. */
  depth: number;
  /** The core of the file `name` (as a mapping stores it), opened once through `resolve`; undefined if the resolver has none. */
  linked(name: string, resolve: NonNullable<Hdf5Options['resolve']>): Promise<Hdf5Core | undefined>;
}

/** Rows `start..start+count` (or a selection) of the virtual dataset `path`. */
export function virtualBatch(f: VirtualFile, path: string, start: number, count: number | undefined, options: FileReadOptions, select?: number[]): Promise<RecordBatch> {
  if (!(start >= 0) || (count !== undefined && !(count >= 0))) throw new RangeError('start and count must be non-negative');
  const { signal } = options;
  const { core } = f;
  const max = core.readLimit(options.maxReadBytes);
  return core.op(async () => {
    try {
      for (let round = 0; round < VIRTUAL_ROUNDS; round++) {
        const host = core.byteHost;
        const h = await core.call(() => core.handle.readVirtual(path, window(start, count, max, select), host), signal);
        if (h) return core.batch(h);
        const needs = JSON.parse(core.handle.virtualNeeds()) as SourceNeed[];
        for (const n of needs) await supplySource(f, path, n, max, signal);
      }
      throw new DecodeError('HDF5', undefined, 'invalid', `${path}: virtual dataset sources asked for again after they were supplied`);
    } finally {
      core.handle.clearSources();
      core.release();
    }
  });
}

/** Read what a virtual read of `path` misses of another file and hand it to this file's reader. */
async function supplySource(f: VirtualFile, path: string, n: SourceNeed, max: number | undefined, signal?: AbortSignal): Promise<void> {
  const { core, resolve } = f;
  const where = `${n.file}:${n.dataset}`;
  if (!resolve) throw new DecodeError('HDF5', undefined, 'unsupported', `${path}: virtual dataset source in another file (${where}); open the file with resolve to read it`);
  if (f.depth >= MAX_LINKED_DEPTH) throw new DecodeError('HDF5', undefined, 'too-deep', `${path}: more than ${MAX_LINKED_DEPTH} files in a row`);
  const other = await abortable(signal, () => f.linked(n.file, resolve));
  if (n.start === undefined || n.count === undefined) {
    const json = other && (await other.op(() => other.call(() => other.handle.sourceInfo(n.dataset), signal)).catch((e: unknown) => {
      if (e instanceof DecodeError && e.code === 'not-found') return undefined;
      throw e;
    }));
    // No such file or dataset: the fill value, as libhdf5 reads it.
    if (!json) return core.handle.supplySourceInfo(n.file, n.dataset, undefined, '', 0);
    const info = JSON.parse(json) as { dims: number[]; dtype: string; elementSize: number };
    return core.handle.supplySourceInfo(n.file, n.dataset, Float64Array.from(info.dims), info.dtype, info.elementSize);
  }
  if (!other) throw new DecodeError('HDF5', undefined, 'not-found', `${path}: rows of ${where}, which the resolver does not have`);
  const { start, count } = n;
  const bytes = await other.op(async () => {
    try {
      const host = other.byteHost;
      return await other.call(() => other.handle.readRawRows(n.dataset, window(start, count, max), host), signal);
    } finally {
      other.release();
    }
  });
  core.handle.supplySourceRows(n.file, n.dataset, start, count, bytes);
}
