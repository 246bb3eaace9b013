/**
 * How DuckDB reads the Arrow types Arrowsmith produces, and the one conversion it needs:
 * DuckDB-wasm 1.32 (DuckDB 1.4) rejects Float16 ("Unsupported Internal Arrow Type e"), so
 * Float16 columns (also inside lists and structs) become Float32, which holds every half
 * exactly. Every other type maps to a DuckDB type that holds its values (docs/api.md, "SQL").
 */
import { type Data, type DataType, FixedSizeList, Field, Float32, List, makeData, Map_, RecordBatch, Schema, Struct } from './lib.js';

/** Arrow's type ids (apache-arrow `Type`, the same numbers in every version). */
const FLOAT = 3;
const LIST = 12;
const STRUCT = 13;
const FIXED_SIZE_LIST = 16;
const MAP = 17;
const DICTIONARY = -1;

/**
 * The type as DuckDB sees it, as text: a dictionary is its values' type (DuckDB reads it as
 * VARCHAR, like Utf8), Float16 is Float32. Two columns with one signature land in one DuckDB
 * column type.
 */
export function duckSignature(type: DataType): string {
  const t = type as DataType & { precision?: number; dictionary?: DataType; listSize?: number; children: Field[] };
  switch (type.typeId) {
    case DICTIONARY:
      return duckSignature(t.dictionary!);
    case FLOAT:
      return t.precision === 0 ? 'Float32' : String(type);
    case LIST:
      return `List<${duckSignature(t.children[0]!.type)}>`;
    case FIXED_SIZE_LIST:
      return `FixedSizeList[${t.listSize}]<${duckSignature(t.children[0]!.type)}>`;
    case STRUCT:
      return `Struct<{${t.children.map((f) => `${f.name}:${duckSignature(f.type)}`).join(', ')}}>`;
    case MAP:
      return `Map<${duckSignature(t.children[0]!.type)}>`;
    default:
      return String(type);
  }
}

function hasHalf(type: DataType): boolean {
  if (type.typeId === FLOAT) return (type as DataType & { precision: number }).precision === 0;
  return (type.children ?? []).some((f: Field) => hasHalf(f.type));
}

/** An IEEE half (its 16 bits) as a number. */
function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function childField(f: Field, data: Data): Field {
  return new Field(f.name, data.type, f.nullable, f.metadata);
}

/** `data` with its Float16 parts as Float32 (a new values buffer for those only). */
function widen(data: Data): Data {
  if (!hasHalf(data.type)) return data;
  if (data.type.typeId === FLOAT) {
    const halves = data.values as Uint16Array;
    const values = new Float32Array(data.length);
    for (let i = 0; i < values.length; i++) values[i] = halfToNumber(halves[i]!);
    return makeData({ type: new Float32(), offset: data.offset, length: data.length, nullCount: data.nullCount, nullBitmap: data.nullBitmap, data: values });
  }
  const children = data.children.map(widen);
  const fields = (data.type.children as Field[]).map((f, i) => childField(f, children[i]!));
  const t = data.type as DataType & { listSize?: number; keysSorted?: boolean };
  let type: DataType;
  switch (data.type.typeId) {
    case LIST:
      type = new List(fields[0]!);
      break;
    case FIXED_SIZE_LIST:
      type = new FixedSizeList(t.listSize!, fields[0]!);
      break;
    case MAP:
      type = new Map_(fields[0] as Field<Struct>, t.keysSorted);
      break;
    default:
      type = new Struct(fields);
  }
  return data.clone(type, data.offset, data.length, data.nullCount, data as never, children);
}

/** The batch with every Float16 column (nested too) as Float32; the batch itself when it has none. */
export function forDuckDB(batch: RecordBatch): RecordBatch {
  if (!batch.schema.fields.some((f) => hasHalf(f.type))) return batch;
  const children = batch.data.children.map(widen);
  const fields = batch.schema.fields.map((f, i) => childField(f, children[i]!));
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, batch.data.clone(new Struct(fields), batch.data.offset, batch.data.length, batch.data.nullCount, batch.data as never, children));
}
