/**
 * Arrow assembly: a decoded batch described by the wasm side (JSON schema + buffer list)
 * becomes Arrow JS data. Each buffer is copied out of wasm memory once into a JS-owned
 * ArrayBuffer (or viewed in place when the caller asked for zero-copy); no per-value work.
 */
import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Dictionary,
  Field,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  makeData,
  Map_,
  Null,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimeUnit,
  Timestamp,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Vector,
  type Data,
} from './lib.js';
import type { BatchDesc, ColumnType, FieldDesc, ColumnDesc, WasmBatchHandle } from '../types.js';
import { ownedBytes, ownedCopy, type Loaded } from '../wasm/instance.js';

type Bytes = (i: number) => Uint8Array;

const UNITS = { s: TimeUnit.SECOND, ms: TimeUnit.MILLISECOND, us: TimeUnit.MICROSECOND, ns: TimeUnit.NANOSECOND };

function arrowType(c: ColumnDesc): DataType {
  switch (c.type) {
    case 'null': return new Null();
    case 'bool': return new Bool();
    case 'int8': return new Int8();
    case 'int16': return new Int16();
    case 'int32': return new Int32();
    case 'int64': return new Int64();
    case 'uint8': return new Uint8();
    case 'uint16': return new Uint16();
    case 'uint32': return new Uint32();
    case 'uint64': return new Uint64();
    case 'float16': return new Float16();
    case 'float32': return new Float32();
    case 'float64': return new Float64();
    case 'utf8': return new Utf8();
    case 'binary': return new Binary();
    case 'date32': return new DateDay();
    case 'timestamp': return new Timestamp(UNITS[c.unit ?? 'ns']);
    case 'list': return new List(arrowField(c.children[0]!));
    case 'fixedsizelist': return new FixedSizeList(c.size!, arrowField(c.children[0]!));
    case 'struct': return new Struct(c.children.map(arrowField));
    case 'map': return new Map_(arrowField(c.children[0]!) as Field<Struct>);
    case 'dictionary': return new Dictionary(new Utf8(), new Int32());
    default: throw new Error(`arrowsmith: unknown column type ${c.type satisfies never}`);
  }
}

export function arrowField(f: FieldDesc): Field {
  return new Field(f.name, arrowType(f.col), f.nullable);
}

/** Typed view over an owned byte copy, matching the Arrow type's value array. */
export function typed(type: ColumnType, b: Uint8Array): ArrayBufferView {
  const { buffer, byteOffset, byteLength } = b;
  switch (type) {
    case 'int8': return new Int8Array(buffer, byteOffset, byteLength);
    case 'int16': return new Int16Array(buffer, byteOffset, byteLength / 2);
    case 'int32': case 'date32': case 'dictionary': return new Int32Array(buffer, byteOffset, byteLength / 4);
    case 'int64': case 'timestamp': return new BigInt64Array(buffer, byteOffset, byteLength / 8);
    case 'uint16': case 'float16': return new Uint16Array(buffer, byteOffset, byteLength / 2);
    case 'uint32': return new Uint32Array(buffer, byteOffset, byteLength / 4);
    case 'uint64': return new BigUint64Array(buffer, byteOffset, byteLength / 8);
    case 'float32': return new Float32Array(buffer, byteOffset, byteLength / 4);
    case 'float64': return new Float64Array(buffer, byteOffset, byteLength / 8);
    default: return b;
  }
}

function i32(b: Uint8Array): Int32Array {
  return new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

export function buildData(c: ColumnDesc, type: DataType, bytes: Bytes): Data {
  const nullBitmap = c.validity >= 0 ? bytes(c.validity) : undefined;
  const base = { type, length: c.len, nullCount: c.nulls, nullBitmap } as const;
  const child = (i: number) => buildData(c.children[i]!.col, (type.children[i] as Field).type, bytes);
  switch (c.type) {
    case 'null':
      return makeData({ type: type as Null, length: c.len, nullCount: c.len });
    case 'utf8':
    case 'binary':
      return makeData({ ...base, type: type as Utf8, valueOffsets: i32(bytes(c.buffers[0]!)), data: bytes(c.buffers[1]!) });
    case 'list':
      return makeData({ ...base, type: type as List, valueOffsets: i32(bytes(c.buffers[0]!)), child: child(0) });
    case 'map':
      return makeData({ ...base, type: type as Map_, valueOffsets: i32(bytes(c.buffers[0]!)), child: child(0) });
    case 'fixedsizelist':
      return makeData({ ...base, type: type as FixedSizeList, child: child(0) });
    case 'struct':
      return makeData({ ...base, type: type as Struct, children: c.children.map((_, i) => child(i)) });
    case 'dictionary': {
      const dictDesc = c.children[0]!.col;
      const dict = buildData(dictDesc, new Utf8(), bytes);
      return makeData({ ...base, type: type as Dictionary, data: i32(bytes(c.buffers[0]!)), dictionary: makeVectorFromData(dict) });
    }
    default:
      return makeData({ ...base, type: type as Int32, data: typed(c.type, bytes(c.buffers[0]!)) as Int32Array });
  }
}

// Arrow JS builds a dictionary Vector from Data via the Vector constructor.
function makeVectorFromData(d: Data): Vector {
  return new Vector([d]);
}

/**
 * Turn a wasm batch handle into an Arrow RecordBatch. With `copy` (the default) every
 * buffer is copied into JS-owned memory and the handle can be freed right after.
 * @internal
 */
export function toRecordBatch(wasm: Loaded, h: WasmBatchHandle, copy: boolean | Copier = true, rewrite?: (desc: BatchDesc) => void): RecordBatch {
  const desc = JSON.parse(h.schema()) as BatchDesc;
  rewrite?.(desc);
  const ptrs = h.buffers();
  const mem = wasm.memory.buffer;
  return assemble(desc, (i) => {
    const ptr = ptrs[2 * i]!;
    const len = ptrs[2 * i + 1]!;
    const view = new Uint8Array(mem, ptr, len);
    return copy === true ? ownedCopy(view) : copy ? copy(i, view) : view;
  });
}

/** Copies buffer `i` of a batch out of wasm memory. @internal */
export type Copier = (i: number, src: Uint8Array) => Uint8Array;

/**
 * JS output memory written ahead of use (the warm start, in idle time): the first copies out
 * of wasm memory land on resident pages instead of faulting fresh ones in, ~4 µs a page on
 * this project's machine, which was a third of a first whole read of 34 MiB
 * (bench/results/cold.md). Handed out front to back (8-byte aligned), never reused: the
 * buffers of a read share its one ArrayBuffer, as Arrow IPC readers' do.
 */
let reserve: { bytes: Uint8Array; used: number } | undefined;

/** Writes `n` bytes of JS memory now for the next reads' output (replacing any left; 0: none). @internal */
export function reserveOutput(n: number): void {
  if (!(n > 0)) {
    reserve = undefined;
    return;
  }
  const bytes = ownedBytes(n);
  bytes.fill(0);
  reserve = { bytes, used: 0 };
}

/** Bytes of the reserve not handed out yet (0 without one). @internal */
export function reserveLeft(): number {
  return reserve ? reserve.bytes.length - reserve.used : 0;
}

/** `n` JS-owned bytes: from the reserve while it has them, else freshly allocated. */
function outputBytes(n: number): Uint8Array {
  const r = reserve;
  if (!r || r.used + n > r.bytes.length) return ownedBytes(n);
  const out = r.bytes.subarray(r.used, r.used + n);
  r.used = Math.min(r.bytes.length, (r.used + n + 7) & ~7);
  // What is left is too little to matter: let the ArrayBuffer go with the reads that use it.
  if (r.bytes.length - r.used < 64 * 1024) reserve = undefined;
  return out;
}

/** Copies a buffer out of wasm memory into output memory (the reserve while it lasts). @internal */
export const outputCopy: Copier = (_, src) => {
  const own = outputBytes(src.length);
  own.set(src);
  return own;
};

/**
 * Where the buffers of a read made in pieces go when copied out of wasm memory: one JS
 * buffer per buffer slot (a column's values, its validity, ...) for the whole read, sized
 * from the first piece's bytes per row and the read's row count, each piece's bytes at the
 * next 8-byte aligned offset. Pieces copied into buffers of their own would make smaller
 * allocations, which the C allocator under Node (glibc, with its threshold for handing
 * memory back set by the largest block freed so far) returns to the system after each
 * read, so every later read faulted them in again (bench/results/cold.md). Bytes that do
 * not fit their slot (the row count was low) get a buffer of their own.
 * @internal
 */
export class Slabs {
  #slabs: Uint8Array[] | undefined;
  #used: number[] = [];

  /** `rows`: the read's rows (or a bound on them); `pieces`: how many pieces it takes. */
  constructor(
    readonly rows: number,
    readonly pieces: number,
  ) {}

  /** The copier of one piece: `rows` rows in buffers of `lens` bytes. */
  copier(rows: number, lens: number[]): Copier {
    if (!this.#slabs && rows > 0) {
      this.#slabs = lens.map((len) => outputBytes(Math.ceil((len * this.rows) / rows) + 16 * this.pieces));
      this.#used = lens.map(() => 0);
    }
    return (i, src) => {
      const slab = this.#slabs?.[i];
      const at = this.#used[i] ?? 0;
      if (!slab || at + src.length > slab.length) return outputCopy(i, src);
      const dst = slab.subarray(at, at + src.length);
      dst.set(src);
      this.#used[i] = (at + src.length + 7) & ~7;
      return dst;
    };
  }
}

/** A RecordBatch of the described columns over the given buffers (by index, as the description numbers them). @internal */
export function assemble(desc: BatchDesc, bytes: Bytes): RecordBatch {
  const fields = desc.fields.map(arrowField);
  const children = desc.fields.map((f, i) => buildData(f.col, fields[i]!.type, bytes));
  const schema = new Schema(fields);
  const data = makeData({ type: new Struct(fields), length: desc.rows, nullCount: 0, children });
  return new RecordBatch(schema, data);
}

export function toTable(batches: RecordBatch[]): Table {
  return new Table(batches);
}

/**
 * One Table over batches decoded apart as pieces of one read. Their schemas must agree on
 * names and types; dictionary ids (each batch makes its own) and nullability (nullable if
 * any piece is) are unified. Undefined when the pieces' schemas differ otherwise.
 * @internal
 */
export function piecesTable(batches: RecordBatch[]): Table | undefined {
  const first = batches[0]!.schema.fields;
  const same = (b: RecordBatch) => b.schema.fields.length === first.length && b.schema.fields.every((f, i) => f.name === first[i]!.name && String(f.type) === String(first[i]!.type));
  if (!batches.every(same)) return undefined;
  const fields = first.map((f, i) => (batches.some((b) => b.schema.fields[i]!.nullable) && !f.nullable ? new Field(f.name, f.type, true, f.metadata) : f));
  const schema = new Schema(fields);
  const struct = new Struct(fields);
  return new Table(batches.map((b) => new RecordBatch(schema, makeData({ type: struct, length: b.numRows, nullCount: 0, children: b.data.children.map((c, i) => c.clone(fields[i]!.type)) }))));
}
