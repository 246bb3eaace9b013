/** N-D selections (hyperslabs): checked, as the wasm reader takes them, and the shape they give. */
import { RecordBatch, Schema, Table } from '../../arrow/lib.js';
import { DecodeError } from '../../errors.js';
import type { Hdf5Select } from '../../types.js';

/** An `argument` DecodeError: the call's selection does not fit. */
export const argument = (message: string) => new DecodeError('HDF5', undefined, 'argument', message);

/**
 * A selection as the wasm reader takes it: `[start, count, step]` per dimension, where a
 * count of -1 is the index `start` and -2 the whole dimension. Numbers are checked here
 * (non-negative integers); ranks, bounds and steps of 0 by the reader.
 */
export function selectSpec(select: readonly Hdf5Select[]): number[] {
  if (!Array.isArray(select)) throw argument('select must be an array with one entry per dimension');
  const out: number[] = [];
  const num = (v: unknown, k: number, what: string) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw argument(`select[${k}]: the ${what} ${String(v)} is not a non-negative integer`);
    return v;
  };
  for (let k = 0; k < select.length; k++) {
    const e = select[k];
    if (e === null || e === undefined) out.push(0, -2, 0);
    else if (typeof e === 'number') out.push(num(e, k, 'index'), -1, 0);
    else if (Array.isArray(e) && (e.length === 2 || e.length === 3)) out.push(num(e[0], k, 'start'), num(e[1], k, 'count'), num(e[2] ?? 1, k, 'step'));
    else throw argument(`select[${k}]: expected an index, [start, count, step?] or null`);
  }
  return out;
}

/** The result shape of a selection the reader has accepted, on a dataset of `dims`. */
export function resultShape(spec: number[], dims: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; 3 * k < spec.length; k++) {
    const c = spec[3 * k + 1]!;
    if (c === -2) out.push(dims[k]!);
    else if (c >= 0) out.push(c);
  }
  return out;
}

/** The first dimension a selection keeps and its count there, or undefined (all indexes). */
export function firstKept(spec: number[], dims: number[]): { k: number; n: number } | undefined {
  for (let k = 0; 3 * k < spec.length; k++) {
    const c = spec[3 * k + 1]!;
    if (c !== -1) return { k, n: c === -2 ? dims[k]! : c };
  }
  return undefined;
}

/** The selection narrowed to positions `from..from+n` of its kept dimension `k`. */
export function narrowed(spec: number[], k: number, from: number, n: number): number[] {
  const out = spec.slice();
  const all = out[3 * k + 1] === -2;
  const start = all ? 0 : out[3 * k]!;
  const step = all ? 1 : out[3 * k + 2]!;
  out[3 * k] = start + from * step;
  out[3 * k + 1] = n;
  out[3 * k + 2] = step;
  return out;
}

/** `schema` with the metadata `shape` (JSON of the result's dimensions). */
function shaped(schema: Schema, shape: number[]): Schema {
  const meta = new Map(schema.metadata);
  meta.set('shape', JSON.stringify(shape));
  return new Schema(schema.fields, meta);
}

/** `b` with the schema metadata `shape`. */
export function withShape(b: RecordBatch, shape: number[]): RecordBatch {
  return new RecordBatch(shaped(b.schema, shape), b.data);
}

/** `t` with the schema metadata `shape`. */
export function tableWithShape(t: Table, shape: number[]): Table {
  const schema = shaped(t.schema, shape);
  return new Table(schema, t.batches.map((b) => new RecordBatch(schema, b.data)));
}
