/**
 * How HDF5 reads are cut for a pool: rows into ranges aligned to the dataset's chunks, a
 * selection's first kept dimension into pieces starting at chunk boundaries (so a chunk is
 * rarely inflated twice), and the default rows of a batch.
 */
import type { Pool } from '../../pool/pool.js';
import type { FileRef, Job } from '../../pool/protocol.js';
import { rowBytes } from './core.js';
import { firstKept, narrowed } from './select.js';
import type { Hdf5DatasetInfo } from './types.js';

/** Bytes a default batch holds: whole chunks (at least one) up to about this. */
export const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Default rows per batch: a multiple of the chunk's rows along the first dimension (so every
 * chunk is decoded by one batch), about BATCH_BYTES of output. A VL cell counts as four
 * times its size (its payload is unknown until read).
 */
export function batchRows(info: Hdf5DatasetInfo): number {
  const grid = info.layout === 'chunked' && info.chunks?.length ? info.chunks[0]! : 1;
  return grid * Math.max(1, Math.floor(BATCH_BYTES / Math.max(1, grid * rowBytes(info))));
}

/** Where a pool's jobs read: the pool, the file as its workers reach it, the dataset. */
export interface JobTarget {
  pool: Pool;
  ref: FileRef;
  path: string;
  maxReadBytes: number | undefined;
}

/**
 * Jobs of rows `start..start+count`: ranges aligned to the chunks, one per worker (row
 * ranges of one dataset cost about the same). Undefined when one thread should read it
 * (scalar, less than two of the pool's `minJobBytes` jobs, or rows outside the dataset: the
 * single-thread path gives the answer or error).
 */
export function rowJobs(t: JobTarget, info: Hdf5DatasetInfo, start: number, count: number | undefined): Job[] | undefined {
  const total = info.shape[0];
  if (total === undefined || !(start >= 0) || start > total || (count !== undefined && !(count >= 0 && start + count <= total))) return undefined;
  const end = count === undefined ? total : start + count;
  const pieces = Math.min(t.pool.pieces((end - start) * rowBytes(info), t.pool.size), end - start);
  if (pieces < 2) return undefined;
  const grid = info.chunks?.[0] ?? 1;
  const cuts = [start];
  for (let i = 1; i < pieces; i++) {
    const c = Math.floor((start + ((end - start) * i) / pieces) / grid) * grid;
    if (c > cuts[cuts.length - 1]! && c < end) cuts.push(c);
  }
  cuts.push(end);
  return cuts.slice(1).map((b, i) => ({ kind: 'hdf5', file: t.ref, path: t.path, start: cuts[i]!, count: b - cuts[i]!, maxReadBytes: t.maxReadBytes }));
}

/**
 * Jobs of a selection (`spec`, see `selectSpec`): its first kept dimension cut into pieces
 * starting at chunk boundaries where the step allows. Undefined when one thread should read
 * it (nothing kept, a small read, or a selection of the wrong rank).
 */
export function selectJobs(t: JobTarget, info: Hdf5DatasetInfo, spec: number[], resultShape: number[]): Job[] | undefined {
  const kept = spec.length === 3 * info.shape.length ? firstKept(spec, info.shape) : undefined;
  if (!kept) return undefined;
  const { k, n } = kept;
  const pieces = Math.min(t.pool.pieces(n * rowBytes(info, resultShape), t.pool.size), n);
  if (pieces < 2) return undefined;
  const all = spec[3 * k + 1] === -2;
  const start = all ? 0 : spec[3 * k]!;
  const step = all ? 1 : spec[3 * k + 2]!;
  const grid = (info.layout === 'chunked' && info.chunks?.[k]) || 1;
  const cuts = [0];
  for (let i = 1; i < pieces; i++) {
    const at = Math.floor((start + Math.floor((n * i) / pieces) * step) / grid) * grid;
    const p = Math.ceil((at - start) / step);
    if (p > cuts[cuts.length - 1]! && p < n) cuts.push(p);
  }
  cuts.push(n);
  return cuts.slice(1).map((b, i) => ({ kind: 'hdf5', file: t.ref, path: t.path, start: 0, count: 0, select: narrowed(spec, k, cuts[i]!, b - cuts[i]!), maxReadBytes: t.maxReadBytes }));
}
