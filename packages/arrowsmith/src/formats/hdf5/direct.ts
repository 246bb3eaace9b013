/**
 * Datasets stored as Arrow holds them (uncompressed little-endian numbers in whole rows; see
 * `Hdf5File::direct_ranges` in crates/hdf5): their batches are the file's bytes, fetched a
 * few batches ahead of the consumer, never decoded and never passed through wasm memory.
 */
import { assemble } from '../../arrow/batch.js';
import type { RecordBatch } from '../../arrow/lib.js';
import { abortable } from '../../io/abort.js';
import type { BatchDesc, ColumnDesc } from '../../types.js';
import { window, type Hdf5Reads } from './core.js';

/** Batches fetched ahead of the consumer: at most this many... */
const AHEAD_BATCHES = 4;
/** ...and about this many bytes (at least one batch). */
const AHEAD_BYTES = 48 * 1024 * 1024;

const NUMBERS = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64']);

/** A column of numbers without nulls (in FixedSizeLists without nulls): one buffer, the values. */
function plainColumn(c: ColumnDesc): boolean {
  if (c.validity >= 0) return false;
  if (c.type === 'fixedsizelist') return c.children.length === 1 && plainColumn(c.children[0]!.col);
  return NUMBERS.has(c.type) && c.buffers.length === 1 && c.buffers[0] === 0;
}

/** A column description for `rows` rows (a FixedSizeList's child: `size` values a row). */
function sized(c: ColumnDesc, rows: number): ColumnDesc {
  if (c.type !== 'fixedsizelist') return { ...c, len: rows };
  const child = c.children[0]!;
  return { ...c, len: rows, children: [{ ...child, col: sized(child.col, rows * c.size!) }] };
}

/** The file ranges [start, end, ...] holding rows `start..start+count` as Arrow values (empty: they need decoding). */
function directRanges(f: Hdf5Reads, path: string, start: number, count: number, max: number | undefined, signal?: AbortSignal): Promise<Float64Array> {
  const { core } = f;
  return core.op(() => core.call(() => core.handle.directRanges(path, window(start, count, max)), signal).finally(() => core.release()));
}

/** How a dataset's batches are read directly: the first batch's ranges and the column's description. */
export interface DirectPlan {
  first: Float64Array;
  desc: BatchDesc;
}

/**
 * Whether the batches' values are the file's bytes as stored: then the first batch's ranges
 * and the column's description (from a read of no rows), else undefined.
 */
export async function directPlan(f: Hdf5Reads, path: string, [start, count]: [number, number], max: number | undefined, signal?: AbortSignal): Promise<DirectPlan | undefined> {
  const { core } = f;
  const first = await directRanges(f, path, start, count, max, signal);
  if (first.length === 0) return undefined;
  const h = await core.op(() => core.call(() => core.handle.read(path, window(0, 0, max)), signal));
  let desc: BatchDesc;
  try {
    desc = JSON.parse(h.schema()) as BatchDesc;
  } finally {
    h.free();
  }
  return desc.fields.length === 1 && plainColumn(desc.fields[0]!.col) ? { first, desc } : undefined;
}

/**
 * Batches of `ranges` ([start, count] rows each, `batchBytes` each) read by `plan`: each batch's ranges are
 * fetched into a buffer of its own that becomes the column (a Blob's or path's read is used
 * as it is), about AHEAD_BYTES ahead of the consumer, so reading never waits on decoding. A
 * batch that is not stored so (an unwritten chunk: fill values) is decoded as usual.
 */
export async function* directBatches(f: Hdf5Reads, path: string, ranges: [number, number][], plan: DirectPlan, batchBytes: number, max: number | undefined, signal?: AbortSignal): AsyncGenerator<RecordBatch> {
  const depth = Math.max(1, Math.min(AHEAD_BATCHES, Math.floor(AHEAD_BYTES / Math.max(1, batchBytes))));
  const field = plan.desc.fields[0]!;
  const queue: { start: number; count: number; bytes?: Promise<Uint8Array> }[] = [];
  let next = 0;
  while (next < ranges.length || queue.length) {
    signal?.throwIfAborted();
    while (next < ranges.length && queue.length <= depth) {
      const [start, count] = ranges[next]!;
      const flat = next === 0 ? plan.first : await directRanges(f, path, start, count, max, signal);
      next++;
      const bytes = flat.length ? f.core.fetchOwned(flat, signal) : undefined;
      bytes?.catch(() => {}); // awaited in turn, or dropped with the stream
      queue.push({ start, count, bytes });
    }
    const p = queue.shift()!;
    if (!p.bytes) {
      yield await abortable(signal, () => f.readBatch(path, p.start, p.count, { signal, maxReadBytes: max }));
      continue;
    }
    const bytes = await p.bytes;
    signal?.throwIfAborted();
    yield assemble({ rows: p.count, fields: [{ ...field, col: sized(field.col, p.count) }] }, () => bytes);
  }
}
