/**
 * A dataset in RecordBatches, by the cheapest route its storage allows: virtual datasets and
 * external storage as `read` reads them; values stored as Arrow holds them fetched, not
 * decoded (`direct.ts`); on a pool, decoded a few batches ahead on the workers; else on this
 * thread, each batch's bytes fetched while the one before decodes.
 */
import type { RecordBatch } from '../../arrow/lib.js';
import { abortable } from '../../io/abort.js';
import { wholeBytes } from '../../io/source.js';
import type { Job } from '../../pool/protocol.js';
import { rowBytes, window, type Hdf5Reads } from './core.js';
import { directBatches, directPlan } from './direct.js';
import { BATCH_BYTES, batchRows } from './jobs.js';
import { firstKept, narrowed, resultShape, selectSpec, withShape } from './select.js';
import type { Hdf5BatchOptions, Hdf5DatasetInfo } from './types.js';
import { virtualBatch, type VirtualFile } from './virtual.js';

/** The file as its batches read it. */
export type BatchFile = Hdf5Reads & VirtualFile;

/** `Hdf5File.batches` of a dataset in this file (`info` its info). */
export async function* datasetBatches(f: BatchFile, path: string, info: Hdf5DatasetInfo, options: Hdf5BatchOptions): AsyncGenerator<RecordBatch> {
  if (options.select) {
    yield* selectBatches(f, path, info, options);
    return;
  }
  const { core } = f;
  const rows = options.rows ?? batchRows(info);
  if (!(rows >= 1)) throw new RangeError('rows must be at least 1');
  const total = info.shape.length === 0 ? 1 : info.shape[0]!;
  const ranges: [number, number][] = [];
  for (let start = 0; start < total; start += rows) ranges.push([start, Math.min(rows, total - start)]);
  const each = async function* (read: (start: number, count: number) => Promise<RecordBatch>) {
    for (const [start, count] of ranges) yield await abortable(options.signal, () => read(start, count));
  };
  if (info.layout === 'virtual') {
    yield* each((start, count) => virtualBatch(f, path, start, count, options));
    return;
  }
  // External storage, and a dataset with a feature we do not decode: each batch as read()
  // reads its rows (a refused filter fails where a chunk needs it; unwritten chunks are the
  // fill value, as libhdf5 reads them), never the direct or pooled paths.
  if (f.external(info) || info.unsupported !== null) {
    yield* each((start, count) => f.readBatch(path, start, count, options));
    return;
  }
  const max = core.readLimit(options.maxReadBytes);
  // Bytes stored as they read (a file or Blob, not bytes in memory): fetched, not decoded.
  const plan = ranges.length === 0 || wholeBytes(core.reader) ? undefined : await directPlan(f, path, ranges[0]!, max, options.signal);
  if (plan) {
    yield* directBatches(f, path, ranges, plan, rows * rowBytes(info), max, options.signal);
    return;
  }
  if (core.pooled && ranges.length > 1) {
    const { pool, ref } = core.pooled;
    yield* pool.batches(ranges.map(([start, count]) => ({ kind: 'hdf5', file: ref, path, start, count, maxReadBytes: max })), { signal: options.signal, lend: options.lend });
    return;
  }
  if (core.byteHost) {
    // Bytes in memory or a Node file: each read pulls what it decodes, synchronously.
    yield* each((start, count) => f.readBatch(path, start, count, options));
    return;
  }
  for await (const h of core.sequence(ranges.length, (i) => core.handle.read(path, window(ranges[i]![0], ranges[i]![1], max)), options.signal)) yield core.batch(h);
}

/** `batches` of a selection: its first kept dimension in pieces of `rows`. */
async function* selectBatches(f: BatchFile, path: string, info: Hdf5DatasetInfo, options: Hdf5BatchOptions): AsyncGenerator<RecordBatch> {
  const { core } = f;
  const spec = selectSpec(options.select!);
  const kept = spec.length === 3 * info.shape.length ? firstKept(spec, info.shape) : undefined;
  const rows = options.rows ?? Math.max(1, Math.floor(BATCH_BYTES / Math.max(1, rowBytes(info, resultShape(spec, info.shape)))));
  if (!(rows >= 1)) throw new RangeError('rows must be at least 1');
  // Nothing kept, nothing selected or a selection that does not fit: one read (its
  // answer or its error).
  const pieces: number[][] = [];
  if (!kept || kept.n === 0) pieces.push(spec);
  else for (let p = 0; p < kept.n; p += rows) pieces.push(narrowed(spec, kept.k, p, Math.min(rows, kept.n - p)));
  const shape = (sp: number[]) => resultShape(sp, info.shape);
  const virtual = info.layout === 'virtual';
  if (core.pooled && pieces.length > 1 && !virtual && !f.external(info) && info.unsupported === null) {
    const { pool, ref } = core.pooled;
    const max = core.readLimit(options.maxReadBytes);
    const jobs = pieces.map((select): Job => ({ kind: 'hdf5', file: ref, path, start: 0, count: 0, select, maxReadBytes: max }));
    let i = 0;
    for await (const b of pool.batches(jobs, { signal: options.signal, lend: options.lend })) yield withShape(b, shape(pieces[i++]!));
    return;
  }
  for (const sp of pieces) {
    const b = await abortable(options.signal, () => (virtual ? virtualBatch(f, path, 0, undefined, options, sp) : f.readBatch(path, 0, undefined, options, sp)));
    yield withShape(b, shape(sp));
  }
}
