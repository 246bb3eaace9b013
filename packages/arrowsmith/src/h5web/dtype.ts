/**
 * HDF5 datatypes and dataspaces as h5web models them: the rules of h5web's own providers
 * (a compound of numeric `r` and `i` is complex, an enum of `FALSE = 0` and `TRUE = 1` is
 * boolean), applied to what the file declares.
 */
import { DTypeClass, ShapeClass, type DType, type NumericType, type Shape } from '@h5web/app';
import type { Hdf5Type } from '../formats/hdf5/file.js';

const ENDIAN = (be: boolean) => (be ? 'big-endian' : 'little-endian') as 'big-endian' | 'little-endian';
const STR_PAD = ['null-terminated', 'null-padded', 'space-padded'] as const;

const isNumeric = (t: DType): t is NumericType => t.class === DTypeClass.Integer || t.class === DTypeClass.Float;

/** An HDF5 datatype as an h5web `DType`. */
export function dtypeOf(t: Hdf5Type): DType {
  switch (t.class) {
    case 'int':
      return { class: DTypeClass.Integer, signed: t.signed, endianness: ENDIAN(t.be), size: t.size * 8 };
    case 'float':
      return { class: DTypeClass.Float, endianness: ENDIAN(t.be), size: t.size * 8 };
    case 'complex': {
      const part = dtypeOf(t.base) as NumericType;
      return { class: DTypeClass.Complex, realType: part, imagType: part };
    }
    case 'string':
      return {
        class: DTypeClass.String,
        charSet: t.utf8 ? 'UTF-8' : 'ASCII',
        strPad: STR_PAD[t.pad] ?? 'null-terminated',
        ...(t.size !== null && { length: t.size }),
      };
    case 'bitfield':
      return { class: DTypeClass.Bitfield, endianness: ENDIAN(t.be) };
    case 'opaque':
      return { class: DTypeClass.Opaque, tag: t.tag };
    case 'time':
      return { class: DTypeClass.Time };
    case 'reference':
      return { class: DTypeClass.Reference };
    case 'compound': {
      const fields = new Map(t.members.map((m) => [m.name, dtypeOf(m.type)] as const));
      const r = fields.get('r');
      const i = fields.get('i');
      if (r && i && isNumeric(r) && isNumeric(i)) return { class: DTypeClass.Complex, realType: r, imagType: i };
      return { class: DTypeClass.Compound, fields };
    }
    case 'enum': {
      const base = dtypeOf(t.base) as NumericType;
      const m = t.members;
      if (m.length === 2 && m.some((x) => x.name === 'FALSE' && x.value === 0) && m.some((x) => x.name === 'TRUE' && x.value === 1)) {
        return { class: DTypeClass.Bool, base };
      }
      // h5web keys the mapping by value (to label values fast): as its providers build it,
      // the last label of a value wins.
      const mapping: Record<number, string> = {};
      for (const x of m) mapping[x.value] = x.name;
      return { class: DTypeClass.Enum, base, mapping };
    }
    case 'vlen':
      return { class: DTypeClass.VLen, base: dtypeOf(t.base) };
    case 'array':
      return { class: DTypeClass.Array, base: dtypeOf(t.base), dims: t.dims };
  }
}

/** A dataspace's dimensions (`null`: the null dataspace) as an h5web `Shape`. */
export function shapeOf(dims: number[] | null): Shape {
  if (!dims) return { class: ShapeClass.Null };
  if (dims.length === 0) return { class: ShapeClass.Scalar, dims: [] };
  return { class: ShapeClass.Array, dims };
}
