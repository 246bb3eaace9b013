// A column's cells as plain numbers or texts, chunk by chunk from its buffers: the chart reads
// every row of tables of millions, where apache-arrow's per-cell `get` (a visitor call, a
// BigInt for 64-bit ints, a dictionary lookup) costs more than drawing.
import { type Data, DataType, makeVector, type Vector } from 'apache-arrow';

const isValid = (d: Data, i: number) => {
  const bits = d.nullBitmap;
  return d.nullCount === 0 || !bits || bits.length === 0 || ((bits[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 1;
};

/** Milliseconds per unit of apache-arrow's TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const MS_PER = [1000, 1, 1e-3, 1e-6];

/**
 * The column as doubles, nulls as NaN: ints and floats as their values, timestamps and dates
 * as epoch milliseconds (as apache-arrow's `get` gives them), other types through `get`.
 */
export function doubles(col: Vector): Float64Array {
  const out = new Float64Array(col.length);
  let at = 0;
  for (const d of col.data) {
    const t = d.type as DataType;
    const values = d.values as ArrayLike<number | bigint> | undefined;
    const scale = DataType.isTimestamp(t) ? MS_PER[(t as unknown as { unit: number }).unit]! : DataType.isInt(t) || DataType.isFloat(t) ? 1 : undefined;
    // Int64 values are a BigInt64Array in apache-arrow 21, Int32 word pairs in 15: the
    // word pairs take `get`.
    const direct = scale !== undefined && values && values.length === d.length && !(DataType.isFloat(t) && (t as unknown as { precision: number }).precision === 0);
    if (direct && d.nullCount === 0 && scale === 1 && typeof values[0] !== 'bigint') {
      // Converted by the engine in one call.
      out.set(values as unknown as ArrayLike<number>, at);
    } else if (direct) {
      if (typeof values[0] === 'bigint') {
        // The 64-bit ints as their two 32-bit words (little-endian, as wasm and every JS
        // engine here lay them out): hi·2³² + lo rounds once, as Number(bigint) does, and
        // costs a fraction of it.
        const v = values as unknown as BigInt64Array | BigUint64Array;
        const w = new Int32Array(v.buffer, v.byteOffset, 2 * v.length);
        const unsigned = v instanceof BigUint64Array;
        for (let i = 0; i < d.length; i++) {
          const hi = unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!;
          out[at + i] = hi * 4294967296 + (w[2 * i]! >>> 0);
        }
        if (scale !== 1) for (let i = 0; i < d.length; i++) out[at + i]! *= scale;
        if (d.nullCount > 0) for (let i = 0; i < d.length; i++) if (!isValid(d, i)) out[at + i] = NaN;
      } else {
        const v = values as ArrayLike<number>;
        for (let i = 0; i < d.length; i++) out[at + i] = isValid(d, i) ? v[i]! * scale : NaN;
      }
    } else {
      const vec = makeVector(d);
      for (let i = 0; i < d.length; i++) {
        const x = vec.get(i) as unknown;
        out[at + i] = x === null || x === undefined ? NaN : x instanceof Date ? x.getTime() : Number(x);
      }
    }
    at += d.length;
  }
  return out;
}

/** The column's cells as text (null as `∅`); a dictionary's values are made text once per chunk. */
export function texts(col: Vector): string[] {
  const out = new Array<string>(col.length);
  let at = 0;
  for (const d of col.data) {
    if (DataType.isDictionary(d.type) && d.dictionary) {
      const dict = d.dictionary;
      const names = Array.from({ length: dict.length }, (_, k) => String(dict.get(k) ?? '∅'));
      const keys = d.values as ArrayLike<number>;
      for (let i = 0; i < d.length; i++) out[at + i] = isValid(d, i) ? names[keys[i]!]! : '∅';
    } else {
      const vec = makeVector(d);
      for (let i = 0; i < d.length; i++) out[at + i] = String(vec.get(i) ?? '∅');
    }
    at += d.length;
  }
  return out;
}
