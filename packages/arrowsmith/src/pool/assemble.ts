/**
 * Turning the batches of a pool's tasks into one Arrow table.
 *
 * Shared output: every column gets SharedArrayBuffers sized for all rows, and each task
 * is told where its rows go (byte, bit and offset positions, dictionary remapping) so
 * that the workers write in place and each column is one contiguous Arrow Data. Utf8 and
 * Binary values come back in ordinary ArrayBuffers (TextDecoder rejects shared views)
 * and are placed here. Transfer mode: each task's buffers already came back; each task
 * becomes one RecordBatch of a common schema.
 */
import type { Map_ } from 'apache-arrow';
import { type Dictionary, type Field, type FixedSizeList, type List, makeData, RecordBatch, Schema, Struct, Utf8, Vector, type Data, type DataType } from '../arrow/lib.js';
import { arrowField, buildData, typed } from '../arrow/batch.js';
import type { ColumnDesc, ColumnType, FieldDesc, FixedWidthType } from '../types.js';
import { SchemaMismatch } from '../errors.js';
import type { Decoded, WriteOp } from './protocol.js';


/** Value width in bytes of each fixed-width type (a type added to the union must be added here). */
const WIDTH = {
  int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4, date32: 4,
  int64: 8, uint64: 8, float64: 8, timestamp: 8,
} satisfies Record<FixedWidthType, number>;

const widthOf = (t: ColumnType): number | undefined => (WIDTH as Partial<Record<ColumnType, number>>)[t];

function sameType(a: ColumnDesc, b: ColumnDesc): boolean {
  return (
    a.type === b.type &&
    a.unit === b.unit &&
    a.size === b.size &&
    a.children.length === b.children.length &&
    a.children.every((c, i) => c.name === b.children[i]!.name && sameType(c.col, b.children[i]!.col))
  );
}

/** The schema all tasks share (nullable if any task is), or SchemaMismatch. */
export function commonFields(results: Decoded[]): FieldDesc[] {
  const first = results[0]!.desc.fields;
  for (const r of results) {
    const f = r.desc.fields;
    if (f.length !== first.length || f.some((x, i) => x.name !== first[i]!.name || !sameType(x.col, first[i]!.col))) {
      throw new SchemaMismatch('arrowsmith: the pieces decoded to different schemas');
    }
  }
  return first.map((f, i) => ({ ...f, nullable: results.some((r) => r.desc.fields[i]!.nullable) }));
}

function sharedBytes(n: number): SharedArrayBuffer {
  // Whole 8-byte words: bitmaps are written as Int32 words, values viewed as 64-bit.
  return new SharedArrayBuffer(Math.ceil(n / 8) * 8);
}

/** A column laid out across all tasks: where its shared buffers are. */
interface Node {
  len: number;
  nulls: number;
  validity?: SharedArrayBuffer;
  values?: SharedArrayBuffer;
  offsets?: SharedArrayBuffer;
  data?: Uint8Array;
  dict?: string[];
  children: Node[];
}

/** Per task: the write ops for phase 2, and where its `out` buffers go on return. */
export interface Layout {
  fields: FieldDesc[];
  rows: number;
  nodes: Node[];
  ops: WriteOp[][];
  outs: { data: Uint8Array; at: number }[][];
}

export function layout(results: Decoded[]): Layout {
  const fields = commonFields(results);
  const n = results.length;
  const ops: WriteOp[][] = results.map(() => []);
  const outs: Layout['outs'] = results.map(() => []);
  const dictAt = results.map(() => 0);

  const place = (cols: ColumnDesc[]): Node => {
    const c0 = cols[0]!;
    const len = cols.reduce((s, c) => s + c.len, 0);
    const nulls = cols.reduce((s, c) => s + c.nulls, 0);
    const node: Node = { len, nulls, children: [] };
    // Row position of each task in this column.
    const at: number[] = [];
    cols.reduce((s, c, t) => ((at[t] = s), s + c.len), 0);
    if (nulls > 0 && c0.type !== 'null') {
      node.validity = sharedBytes(Math.ceil(len / 8));
      for (let t = 0; t < n; t++) ops[t]!.push({ op: 'bits', src: cols[t]!.validity, n: cols[t]!.len, dst: node.validity, bit: at[t]! });
    }
    const lens = (t: number, b: number) => results[t]!.lens[b]!;
    const varOffsets = (add: (t: number) => number) => {
      node.offsets = sharedBytes((len + 1) * 4);
      for (let t = 0; t < n; t++) {
        ops[t]!.push({ op: 'offsets', src: cols[t]!.buffers[0]!, n: cols[t]!.len + 1, dst: node.offsets, at: at[t]!, add: add(t) });
      }
    };
    switch (c0.type) {
      case 'null':
        break;
      case 'bool':
        node.values = sharedBytes(Math.ceil(len / 8));
        for (let t = 0; t < n; t++) ops[t]!.push({ op: 'bits', src: cols[t]!.buffers[0]!, n: cols[t]!.len, dst: node.values, bit: at[t]! });
        break;
      case 'utf8':
      case 'binary': {
        const starts: number[] = [];
        const total = cols.reduce((s, c, t) => ((starts[t] = s), s + lens(t, c.buffers[1]!)), 0);
        varOffsets((t) => starts[t]!);
        node.data = new Uint8Array(total);
        for (let t = 0; t < n; t++) {
          ops[t]!.push({ op: 'out', src: cols[t]!.buffers[1]! });
          outs[t]!.push({ data: node.data, at: starts[t]! });
        }
        break;
      }
      case 'list':
      case 'map': {
        const starts: number[] = [];
        cols.reduce((s, c, t) => ((starts[t] = s), s + c.children[0]!.col.len), 0);
        varOffsets((t) => starts[t]!);
        node.children.push(place(cols.map((c) => c.children[0]!.col)));
        break;
      }
      case 'fixedsizelist':
      case 'struct':
        c0.children.forEach((_, i) => node.children.push(place(cols.map((c) => c.children[i]!.col))));
        break;
      case 'dictionary': {
        const global = new Map<string, number>();
        node.dict = [];
        node.values = sharedBytes(len * 4);
        for (let t = 0; t < n; t++) {
          const local = results[t]!.dicts[dictAt[t]!++] ?? [];
          const map = Int32Array.from(local, (s) => {
            let g = global.get(s);
            if (g === undefined) global.set(s, (g = node.dict!.push(s) - 1));
            return g;
          });
          ops[t]!.push({ op: 'remap', src: cols[t]!.buffers[0]!, n: cols[t]!.len, dst: node.values, at: at[t]!, map });
        }
        break;
      }
      default: {
        const w = widthOf(c0.type);
        if (!w) throw new Error(`arrowsmith: cannot lay out a ${c0.type} column`);
        node.values = sharedBytes(len * w);
        for (let t = 0; t < n; t++) ops[t]!.push({ op: 'bytes', src: cols[t]!.buffers[0]!, dst: node.values, at: at[t]! * w });
      }
    }
    return node;
  };

  const nodes = fields.map((_, i) => place(results.map((r) => r.desc.fields[i]!.col)));
  const rows = results.reduce((s, r) => s + r.desc.rows, 0);
  return { fields, rows, nodes, ops, outs };
}

/** Place the Utf8/Binary bytes a task sent back. */
export function placeOuts(l: Layout, task: number, out: ArrayBuffer[]): void {
  l.outs[task]!.forEach((o, i) => o.data.set(new Uint8Array(out[i]!), o.at));
}

const utf8 = new TextEncoder();

function dictionaryVector(values: string[]): Vector {
  const bytes = values.map((v) => utf8.encode(v));
  const offsets = new Int32Array(values.length + 1);
  bytes.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
  const data = new Uint8Array(offsets[values.length]!);
  bytes.forEach((b, i) => data.set(b, offsets[i]!));
  return new Vector([makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: offsets, data })]);
}

function nodeData(node: Node, c: ColumnDesc, type: DataType): Data {
  const nullBitmap = node.validity ? new Uint8Array(node.validity, 0, Math.ceil(node.len / 8)) : undefined;
  const base = { type, length: node.len, nullCount: node.nulls, nullBitmap } as const;
  const child = (i: number) => nodeData(node.children[i]!, c.children[i]!.col, (type.children[i] as Field).type);
  const offsets = () => new Int32Array(node.offsets!, 0, node.len + 1);
  switch (c.type) {
    case 'null':
      return makeData({ type: type as never, length: node.len, nullCount: node.len });
    case 'bool':
      return makeData({ ...base, type: type as never, data: new Uint8Array(node.values!, 0, Math.ceil(node.len / 8)) });
    case 'utf8':
    case 'binary':
      return makeData({ ...base, type: type as Utf8, valueOffsets: offsets(), data: node.data! });
    case 'list':
      return makeData({ ...base, type: type as List, valueOffsets: offsets(), child: child(0) });
    case 'map':
      return makeData({ ...base, type: type as Map_, valueOffsets: offsets(), child: child(0) });
    case 'fixedsizelist':
      return makeData({ ...base, type: type as FixedSizeList, child: child(0) });
    case 'struct':
      return makeData({ ...base, type: type as Struct, children: c.children.map((_, i) => child(i)) });
    case 'dictionary':
      return makeData({ ...base, type: type as Dictionary, data: new Int32Array(node.values!, 0, node.len), dictionary: dictionaryVector(node.dict!) });
    default: {
      const w = widthOf(c.type)!;
      return makeData({ ...base, type: type as never, data: typed(c.type, new Uint8Array(node.values!, 0, node.len * w)) as Int32Array });
    }
  }
}

/** The RecordBatch over the shared buffers, once every task has written. */
export function sharedBatch(l: Layout): RecordBatch {
  const fields = l.fields.map(arrowField);
  const children = l.nodes.map((node, i) => nodeData(node, l.fields[i]!.col, fields[i]!.type));
  const schema = new Schema(fields);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: l.rows, nullCount: 0, children }));
}

/**
 * Transfer mode: one RecordBatch per task, all of one schema; a task's batch written into
 * lent memory (`lent`, the offsets in `lent` of `memory`) is a view of it.
 */
export function transferredBatches(results: Decoded[], memory?: SharedArrayBuffer): RecordBatch[] {
  const common = commonFields(results);
  const fields = common.map(arrowField);
  const schema = new Schema(fields);
  return results.map((r) => {
    const bytes = (i: number) => (r.lent && r.lent[i]! >= 0 ? new Uint8Array(memory!, r.lent[i]!, r.lens[i]!) : new Uint8Array(r.buffers![i]!));
    const children = r.desc.fields.map((f, i) => buildData(f.col, fields[i]!.type, bytes));
    return new RecordBatch(schema, makeData({ type: new Struct(fields), length: r.desc.rows, nullCount: 0, children }));
  });
}
