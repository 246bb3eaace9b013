/**
 * Dataset and attribute values in the form h5web's providers give them (flat typed arrays
 * for numbers, arrays of rows for compounds, `[real, imag]` pairs for complex numbers, enum
 * and boolean values as their base integers), from the Arrow tables `read` returns.
 */
import { DTypeClass, type Attribute, type DType, type Dataset } from '@h5web/app';
import type { Table, Vector } from '../arrow/lib.js';
import type { Hdf5File, Hdf5Type } from '../formats/hdf5/file.js';
import type { Hdf5Select } from '../types.js';

/** Writing through the index signature every typed array has (numbers or bigints, by its kind). */
type Indexed = { [i: number]: unknown };

type Typed = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** A value this provider cannot give exactly: an enum value no label names, a null where h5web expects a number. */
function unrepresentable(what: string): RangeError {
  return new RangeError(`arrowsmith/h5web: ${what}`);
}

/** The typed array h5web's providers use for a numeric type (`size` in bits). */
function arrayClass(t: DType): new (n: number) => Typed {
  if (t.class === DTypeClass.Float) return t.size === 64 ? Float64Array : Float32Array;
  if (t.class !== DTypeClass.Integer) throw unrepresentable(`no typed array for ${t.class}`);
  const s = t.signed;
  if (t.size <= 8) return s ? Int8Array : Uint8Array;
  if (t.size <= 16) return s ? Int16Array : Uint16Array;
  if (t.size <= 32) return s ? Int32Array : Uint32Array;
  return s ? BigInt64Array : BigUint64Array;
}

/** `n` numbers of `leaf` (a vector of integers or floats) in the typed array of `t`. */
function numbers(leaf: Vector, t: DType): Typed {
  if (leaf.nullCount > 0) throw unrepresentable(`${leaf.nullCount} values of ${leaf.length} are missing`);
  const C = arrayClass(t);
  // Arrow's Float16 holds raw bits (toArray() gives them as Uint16Array): decode by get().
  const half = leaf.type.typeId === 3 && (leaf.type as { precision?: number }).precision === 0;
  const raw = leaf.toArray() as Typed;
  if (raw instanceof C && !half) return raw;
  const out = new C(leaf.length);
  const big = out instanceof BigInt64Array || out instanceof BigUint64Array;
  for (let i = 0; i < leaf.length; i++) {
    const v = leaf.get(i) as number | bigint;
    (out as Indexed)[i] = big ? BigInt(v) : Number(v);
  }
  return out;
}

/** Enum members as value by label position (the dictionary's keys are label positions). */
function enumValues(t: Hdf5Type): number[] {
  return t.class === 'enum' ? t.members.map((m) => m.value) : [];
}

/** The key positions of a dictionary vector, element by element (null: no label matched). */
function dictionaryKeys(v: Vector): (number | null)[] {
  const out: (number | null)[] = [];
  for (const d of v.data) {
    const keys = d.values as Int32Array;
    for (let i = 0; i < d.length; i++) out.push(d.getValid(i) ? keys[i]! : null);
  }
  return out;
}

const text = (b: Uint8Array, utf8: boolean) => {
  const z = b.indexOf(0);
  return new TextDecoder(utf8 ? 'utf-8' : 'latin1').decode(z < 0 ? b : b.subarray(0, z));
};

/**
 * One element (`leaf.get(i)`) as h5web's providers give it inside rows and sequences:
 * numbers (BigInt for 64-bit integers unless `json`), strings, rows as arrays.
 */
function element(x: unknown, t: DType, ht: Hdf5Type, json: boolean): unknown {
  if (x === null || x === undefined) {
    if (t.class === DTypeClass.String) return '';
    throw unrepresentable(`a missing ${t.class} value`);
  }
  switch (t.class) {
    case DTypeClass.Integer:
      return typeof x === 'bigint' && (json || t.size <= 32) ? Number(x) : t.size > 32 && !json ? BigInt(x as number) : x;
    case DTypeClass.Float:
      return Number(x);
    case DTypeClass.Bool:
      // Inside rows and sequences, booleans are their base integers (as h5web's providers read them).
      return json ? x : x ? 1 : 0;
    case DTypeClass.Enum: {
      // Arrow holds the label; h5web wants the value (labels of an HDF5 enum are unique).
      const m = ht.class === 'enum' ? ht.members.find((y) => y.name === x) : undefined;
      if (!m) throw unrepresentable(`enum label ${String(x)} is not one of the type's`);
      return m.value;
    }
    case DTypeClass.Reference:
      return { ref_data: typeof x === 'bigint' ? u64le(x) : x };
    case DTypeClass.String:
      return x instanceof Uint8Array ? text(x, t.charSet === 'UTF-8') : String(x);
    case DTypeClass.Complex: {
      const row = x as Record<string, unknown>;
      if (ht.class === 'complex') return [...(x as Iterable<number>)].map(Number);
      return [Number(row.r), Number(row.i)];
    }
    case DTypeClass.Compound: {
      const members = ht.class === 'compound' ? ht.members : [];
      const row = x as Record<string, unknown>;
      return members.map((m) => element(row[m.name], t.fields.get(m.name)!, m.type, json));
    }
    case DTypeClass.Array: {
      const flat: unknown[] = [];
      const base = ht.class === 'array' ? ht.base : ht;
      const walk = (v: unknown, depth: number) => {
        if (depth === 0) flat.push(element(v, t.base, base, true));
        else for (const y of v as Iterable<unknown>) walk(y, depth - 1);
      };
      walk(x, t.dims.length);
      return nest(flat, t.dims);
    }
    case DTypeClass.VLen: {
      const items = [...(x as Iterable<unknown>)];
      const base = ht.class === 'vlen' ? ht.base : ht;
      if (t.base.class === DTypeClass.Integer || t.base.class === DTypeClass.Float) {
        const C = arrayClass(t.base);
        const out = new C(items.length);
        items.forEach((y, k) => ((out as Indexed)[k] = element(y, t.base, base, false)));
        return json ? [...out].map(Number) : out;
      }
      return items.map((y) => element(y, t.base, base, json));
    }
    default:
      return x;
  }
}

/** `flat` grouped by every dimension but the first, innermost first (as h5wasm nests arrays). */
function nest(flat: unknown[], dims: readonly number[]): unknown[] {
  let out: unknown[] = flat;
  for (const d of [...dims.slice(1)].reverse()) {
    const next: unknown[] = [];
    for (let k = 0; k < out.length; k += d) next.push(out.slice(k, k + d));
    out = next;
  }
  return out;
}

/** The leaf vector of each column: every element of the result in row-major order. */
function leaves(table: Table, rank: number): Vector[] {
  const out: Vector[] = [];
  for (let c = 0; c < table.numCols; c++) {
    let v = table.getChildAt(c)!;
    for (let k = 1; k < rank; k++) v = v.getChildAt(0)!;
    out.push(v);
  }
  return out;
}

/** Bytes of a column of Binary (or fixed-size integers read from bitfields) as one array. */
function bytesOf(leaf: Vector): Uint8Array {
  if (leaf.type.typeId === 2 /* Int: a bitfield of 1, 2, 4 or 8 bytes */) {
    const a = leaf.toArray() as Typed;
    return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
  }
  const parts: Uint8Array[] = [];
  for (let i = 0; i < leaf.length; i++) {
    const x = leaf.get(i);
    if (x instanceof Uint8Array) parts.push(x);
    else if (ArrayBuffer.isView(x)) parts.push(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  }
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u64le(x: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, x, true);
  return b;
}

/** The values of `leaf` (and the compound's other columns) for a dataset of type `t`. */
function values(cols: Vector[], t: DType, ht: Hdf5Type, names: string[], dims: readonly number[], json: boolean): unknown {
  const leaf = cols[0]!;
  switch (t.class) {
    case DTypeClass.Integer:
    case DTypeClass.Float: {
      const a = numbers(leaf, t);
      return json ? [...a].map(Number) : a;
    }
    case DTypeClass.Bool: {
      if (leaf.nullCount > 0) throw unrepresentable(`${leaf.nullCount} boolean values are neither FALSE nor TRUE`);
      if (json) return [...leaf].map(Boolean);
      const out = new (arrayClass(t.base))(leaf.length);
      for (let i = 0; i < leaf.length; i++) (out as Int8Array)[i] = leaf.get(i) ? 1 : 0;
      return out;
    }
    case DTypeClass.Enum: {
      const byKey = enumValues(ht);
      const keys = dictionaryKeys(leaf);
      const out = new (arrayClass(t.base))(keys.length);
      const big = out instanceof BigInt64Array || out instanceof BigUint64Array;
      keys.forEach((k, i) => {
        if (k === null) throw unrepresentable(`element ${i} holds a value no label of the enum names`);
        (out as Indexed)[i] = big ? BigInt(byKey[k]!) : byKey[k]!;
      });
      return json ? [...out].map(Number) : out;
    }
    case DTypeClass.Compound:
    case DTypeClass.Complex: {
      // One column of rows (an attribute's Struct, HDF5 2.0 complex pairs), or one per member.
      if (ht.class === 'complex' || cols.length === 1) return [...leaf].map((x) => element(x, t, ht, json));
      const members = ht.class === 'compound' ? ht.members : [];
      const out: unknown[][] = [];
      for (let i = 0; i < leaf.length; i++) {
        out.push(
          members.map((m, k) => {
            const ct = t.class === DTypeClass.Compound ? t.fields.get(m.name)! : k === 0 ? t.realType : t.imagType;
            return element(cols[names.indexOf(m.name)]!.get(i), ct, m.type, json);
          }),
        );
      }
      return out;
    }
    case DTypeClass.Array: {
      const flat: unknown[] = [];
      for (const x of leaf) flat.push(...(element(x, t, ht, true) as unknown[]).flat(t.dims.length));
      return nest(flat, [...dims, ...t.dims]);
    }
    case DTypeClass.Bitfield:
    case DTypeClass.Opaque:
      return bytesOf(leaf);
    case DTypeClass.Reference:
      // As h5wasm gives them: the reference's stored bytes (an object reference is its address).
      return [...leaf].map((x) => ({ ref_data: typeof x === 'bigint' ? u64le(x) : (x as Uint8Array) }));
    default:
      return [...leaf].map((x) => element(x, t, ht, json));
  }
}

/** The Arrow table `read` gives, as h5web's value of `selection` (all of it when absent). */
export function h5webValue(table: Table, t: DType, ht: Hdf5Type, dims: readonly number[], selection: string | undefined): unknown {
  const shape = JSON.parse(table.schema.metadata.get('shape') ?? JSON.stringify(dims)) as number[];
  const cols = leaves(table, shape.length);
  const names = table.schema.fields.map((f) => f.name);
  // Dataset values are h5wasm's plain reads (BigInt for 64-bit integers, base integers for booleans).
  const v = values(cols, t, ht, names, dims, false);
  // Raw bytes stay whole (h5web's providers give types they do not decode as bytes).
  if (t.class === DTypeClass.Bitfield || t.class === DTypeClass.Opaque) return v;
  // A whole scalar dataset is its one value; a selection keeps typed arrays as they are and
  // unwraps other one-element results (h5web's providers do both).
  const scalar = selection ? !selection.includes(':') : shape.length === 0;
  if (scalar && Array.isArray(v)) return v[0];
  if (!selection && shape.length === 0 && ArrayBuffer.isView(v)) return (v as Typed)[0];
  return v;
}

/** h5web's selection string (`"12,:,:"`) as a `select` (an index or a whole dimension each). */
export function selectOf(selection: string, dims: readonly number[]): Hdf5Select[] {
  const parts = selection.split(',');
  if (parts.length !== dims.length) throw new RangeError(`arrowsmith/h5web: selection ${selection} does not fit a dataset of ${dims.length} dimensions`);
  return parts.map((p, k) => (p.trim() === ':' ? [0, dims[k]!] : Number(p)));
}

/** What h5web's `getValue` returns for `dataset` (its `selection`). */
export async function getValue(file: Hdf5File, dataset: Dataset, selection: string | undefined, signal?: AbortSignal): Promise<unknown> {
  const ht = dataset.rawType as Hdf5Type;
  if (!('dims' in dataset.shape)) return null;
  const dims = dataset.shape.dims;
  const select = selection ? selectOf(selection, dims) : dims.length ? dims.map((d) => [0, d] as Hdf5Select) : undefined;
  const table = await file.read(dataset.path, { signal, ...(select && { select }) });
  return h5webValue(table, dataset.type, ht, dims, selection);
}

/** An attribute's value as h5web's providers give it: JSON-like (plain numbers, booleans), a scalar as its value. */
export function attrValue(a: Attribute, ht: Hdf5Type, column: Vector | undefined): unknown {
  if (!column || !('dims' in a.shape)) return null;
  const dims = a.shape.dims;
  let leaf = column;
  for (let k = 1; k < dims.length; k++) leaf = leaf.getChildAt(0)!;
  const v = values([leaf], a.type, ht, [a.name], dims, true);
  if (a.type.class === DTypeClass.Bitfield || a.type.class === DTypeClass.Opaque) return v;
  return dims.length === 0 && (Array.isArray(v) || ArrayBuffer.isView(v)) ? (v as unknown[])[0] : v;
}
