/**
 * `arrowsmith/flechette`: an Arrowsmith (apache-arrow) table as a `@uwdata/flechette` table
 * over the same memory, for Arquero 8 (`aq.fromArrow`) and Mosaic.
 *
 * ```ts
 * import { toFlechette } from 'arrowsmith/flechette';
 * const dt = aq.fromArrow(toFlechette(decodeMsgpack(bytes)));
 * ```
 *
 * Every buffer is a view of the apache-arrow one (64-bit integers of Arrow 15, held as pairs of
 * Int32 words, are viewed as BigInt64 values), but for a validity or boolean bitmap of a slice
 * that starts inside a byte (flechette batches have no bit offset) and the keys of a
 * dictionary column whose batches bring different dictionaries (see `dictionaryColumn`).
 */
import { type Batch, batchType, Column, type ExtractionOptions, Table as FTable, type DataType as FType, type Field as FField, type Schema as FSchema } from '@uwdata/flechette';
import * as f from '@uwdata/flechette';
import type { Data, DataType, Field, Table, Vector } from './arrow/lib.js';

export type { ExtractionOptions } from '@uwdata/flechette';

/** Arrow's type ids (apache-arrow `Type`; flechette's are the same numbers). */
const T = { Null: 1, Int: 2, Float: 3, Binary: 4, Utf8: 5, Bool: 6, Date: 8, Timestamp: 10, List: 12, Struct: 13, FixedSizeList: 16, Map: 17, Dictionary: -1 } as const;

/** Thrown for an apache-arrow type with no flechette counterpart here (none that Arrowsmith makes). */
export class ToFlechetteError extends Error {
  constructor(message: string) {
    super(`arrowsmith/flechette: ${message}`);
    this.name = 'ToFlechetteError';
  }
}

type AnyType = DataType & {
  bitWidth?: number;
  isSigned?: boolean;
  precision?: number;
  unit?: number;
  timezone?: string | null;
  listSize?: number;
  keysSorted?: boolean;
  isOrdered?: boolean;
  id?: number;
  indices?: DataType;
  dictionary?: DataType;
  children: Field[];
};

function fieldOf(field: Field): FField {
  return f.field(field.name, typeOf(field.type), field.nullable, field.metadata.size ? field.metadata : null);
}

function typeOf(type: DataType): FType {
  const t = type as AnyType;
  switch (type.typeId) {
    case T.Null: return f.nullType();
    case T.Bool: return f.bool();
    case T.Int: return f.int(t.bitWidth as 8 | 16 | 32 | 64, t.isSigned);
    case T.Float: return f.float(t.precision as 0 | 1 | 2);
    case T.Utf8: return f.utf8();
    case T.Binary: return f.binary();
    case T.Date: return t.unit === 0 ? f.dateDay() : f.dateMillisecond();
    case T.Timestamp: return f.timestamp(t.unit as 0 | 1 | 2 | 3, t.timezone ?? null);
    case T.List: return f.list(fieldOf(t.children[0]!));
    case T.FixedSizeList: return f.fixedSizeList(fieldOf(t.children[0]!), t.listSize!);
    case T.Struct: return f.struct(t.children.map(fieldOf));
    case T.Map: {
      const [key, value] = (t.children[0]!.type as AnyType).children;
      return f.map(fieldOf(key!), fieldOf(value!), t.keysSorted);
    }
    case T.Dictionary: return f.dictionary(typeOf(t.dictionary!), typeOf(t.indices!) as ReturnType<typeof f.int>, t.isOrdered, t.id);
    default: throw new ToFlechetteError(`no flechette type for ${String(type)}`);
  }
}

/** A bitmap starting at bit `offset`: a view when the offset is whole bytes, else shifted into a copy. */
function bits(bitmap: Uint8Array, offset: number, length: number): Uint8Array {
  if (offset % 8 === 0) return bitmap.subarray(offset >> 3, (offset + length + 7) >> 3);
  const out = new Uint8Array((length + 7) >> 3);
  for (let i = 0; i < length; i++) if (bitmap[(offset + i) >> 3]! & (1 << ((offset + i) & 7))) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

type ArrayCtor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayBufferView;

/** `values` seen as `Ctor` (same buffer, same byte offset). */
function view(values: ArrayBufferView, Ctor: ArrayCtor | undefined, length: number): ArrayBufferView {
  if (!Ctor || values.constructor === Ctor) return values;
  return new Ctor(values.buffer, values.byteOffset, length);
}

interface Context {
  options: ExtractionOptions;
  /** One flechette column per apache-arrow dictionary vector, shared by the batches that share it. */
  dictionaries: Map<Vector, Column<unknown>>;
}

type DictionaryBatch = Batch<unknown> & { setDictionary(c: Column<unknown>): unknown };

function dictionaryBatch(Ctor: new (o: object) => Batch<unknown>, options: object, dictionary: Column<unknown>): Batch<unknown> {
  const b = new Ctor(options) as DictionaryBatch;
  b.setDictionary(dictionary);
  return b;
}

function batchOf(data: Data, type: FType, cx: Context): Batch<unknown> {
  const Ctor: new (o: object) => Batch<unknown> = batchType(type, cx.options);
  const { length, nullCount, offset } = data;
  const validity = nullCount > 0 && data.nullBitmap?.length ? bits(data.nullBitmap, offset, length) : undefined;
  const base = { length, nullCount, type, validity };
  const ft = type as FType & { values?: ArrayCtor; children?: FField[]; indices?: { values: ArrayCtor }; dictionary?: FType };
  const children = () => data.children.map((c, i) => batchOf(c, ft.children![i]!.type, cx));
  switch (type.typeId) {
    case T.Null:
      return new Ctor({ length, nullCount: length, type });
    case T.Bool:
      return new Ctor({ ...base, values: bits(data.values as Uint8Array, offset, length) });
    case T.Int:
    case T.Float:
    case T.Date:
    case T.Timestamp:
      return new Ctor({ ...base, values: view(data.values, ft.values, length) });
    case T.Utf8:
    case T.Binary:
      return new Ctor({ ...base, offsets: data.valueOffsets, values: data.values });
    case T.List:
    case T.Map:
      return new Ctor({ ...base, offsets: data.valueOffsets, children: children() });
    case T.FixedSizeList:
    case T.Struct:
      return new Ctor({ ...base, children: children() });
    case T.Dictionary: {
      const dict = data.dictionary!;
      let column = cx.dictionaries.get(dict);
      if (!column) {
        column = new Column(dict.data.map((d) => batchOf(d, ft.dictionary!, cx)), ft.dictionary);
        cx.dictionaries.set(dict, column);
      }
      return dictionaryBatch(Ctor, { ...base, values: view(data.values, ft.indices!.values, length) }, column);
    }
    default:
      throw new ToFlechetteError(`no flechette batch for ${String(data.type)}`);
  }
}

/**
 * A top-level dictionary column. Arquero reads every batch of a column through the last
 * batch's dictionary (an IPC stream's dictionaries only grow), so batches that bring
 * dictionaries of their own (TsFile batches and device groups) share one merged dictionary
 * of unique values, their keys remapped into new index arrays; a column with one dictionary
 * stays a view.
 */
function dictionaryColumn(chunks: Data[], type: FType, cx: Context): Column<unknown> {
  const dicts = [...new Set(chunks.map((d) => d.dictionary!))];
  if (dicts.length <= 1) return new Column(chunks.map((d) => batchOf(d, type, cx)), type);
  const ft = type as FType & { indices: { values: new (n: number) => Int32Array }; dictionary: FType };
  const index = new Map<unknown, number>();
  const values: unknown[] = [];
  const maps = new Map<Vector, Int32Array>();
  for (const d of dicts) {
    const m = new Int32Array(d.length);
    for (let i = 0; i < d.length; i++) {
      const v = d.get(i);
      let k = index.get(v);
      if (k === undefined) index.set(v, (k = values.push(v) - 1));
      m[i] = k;
    }
    maps.set(d, m);
  }
  const dictionary = f.columnFromArray(values, ft.dictionary) as Column<unknown>;
  return new Column(
    chunks.map((d) => {
      const m = maps.get(d.dictionary!)!;
      const keys = d.values as Int32Array;
      const Ctor: new (o: object) => Batch<unknown> = batchType(type, cx.options);
      const validity = d.nullCount > 0 && d.nullBitmap?.length ? bits(d.nullBitmap, d.offset, d.length) : undefined;
      const same = m.every((k, i) => k === i);
      // A null's key may be anything: it maps to 0.
      const remapped = same ? keys : ft.indices.values === Int32Array ? Int32Array.from({ length: d.length }, (_, i) => m[keys[i]!] ?? 0) : undefined;
      if (!remapped) throw new ToFlechetteError(`dictionary keys of ${String(d.type)} are not Int32`);
      return dictionaryBatch(Ctor, { length: d.length, nullCount: d.nullCount, type, validity, values: remapped }, dictionary);
    }),
    type,
  );
}

/**
 * The table as a flechette `Table` over the same buffers. `options` are flechette's
 * extraction options (`useBigInt`, `useDate`, `useMap`, `useProxy`, ...), as for its
 * `tableFromIPC`. The apache-arrow table must stay alive (its memory is shared, not copied).
 */
export function toFlechette(table: Table, options: ExtractionOptions = {}): FTable {
  const cx: Context = { options, dictionaries: new Map() };
  const fields = table.schema.fields.map(fieldOf);
  const schema: FSchema = { version: f.Version.V5, endianness: f.Endianness.Little, fields, metadata: table.schema.metadata.size ? table.schema.metadata : null };
  const columns = fields.map((field, i) => {
    const chunks = table.batches.map((b) => b.data.children[i]!);
    return field.type.typeId === T.Dictionary ? dictionaryColumn(chunks, field.type, cx) : new Column(chunks.map((d) => batchOf(d, field.type, cx)), field.type);
  });
  return new FTable(schema, columns, options.useProxy);
}
