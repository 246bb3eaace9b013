/**
 * Arrow values normalized for comparison with a reference decoder's output. No test-runner
 * imports here: the browser suite bundles this file too.
 */
import { decode as refDecode, decodeMulti, decodeTimestampToTimeSpec, ExtensionCodec } from '@msgpack/msgpack';
import { type Data, type FixedSizeList, type Float, Precision, type Table, Type, type Vector } from 'apache-arrow';

/** @msgpack/msgpack with exact integers (bigint beyond 2^53) and nanosecond timestamps. */
const codec = new ExtensionCodec();
codec.register({
  type: -1,
  encode: () => null,
  decode: (data: Uint8Array) => {
    const { sec, nsec } = decodeTimestampToTimeSpec(data);
    return { timestampNs: BigInt(sec) * 1_000_000_000n + BigInt(nsec) };
  },
});
export const reference = (b: Uint8Array): unknown => refDecode(b, { useBigInt64: true, extensionCodec: codec });
export const referenceMulti = (b: Uint8Array): unknown[] => [...decodeMulti(b, { useBigInt64: true, extensionCodec: codec })];

/** JSON.parse, but integers too long for a double are kept as strings (compare with BigInt). */
export function parseExact(text: string): unknown {
  return JSON.parse(text.replace(/([[,:]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

/** The value at row `i` of an Arrow vector, as plain JS (timestamps as bigint ns). */
export function valueAt(v: Vector | Data, i: number): unknown {
  const data = 'data' in v && Array.isArray((v as Vector).data) ? locate(v as Vector, i) : { d: v as Data, j: i };
  return dataValue(data.d, data.j);
}

function locate(v: Vector, i: number): { d: Data; j: number } {
  let j = i;
  for (const d of v.data) {
    if (j < d.length) return { d, j };
    j -= d.length;
  }
  throw new RangeError(`row ${i} out of range`);
}

function dataValue(d: Data, i: number): unknown {
  if (d.nullCount > 0 && d.nullBitmap && d.nullBitmap.length > 0) {
    const k = d.offset + i;
    if (((d.nullBitmap[k >> 3]! >> (k & 7)) & 1) === 0) return null;
  }
  // apache-arrow's slice() cuts every buffer but the validity bitmap and boolean values,
  // which keep `offset` (arrowsmith's own batches have offset 0).
  const k = i;
  switch (d.typeId) {
    case Type.Null: return null;
    case Type.Bool: return ((d.values[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 1;
    case Type.Float: return (d.type as Float).precision === Precision.HALF ? half(d.values[k]) : d.values[k];
    case Type.Int: case Type.Date: case Type.Timestamp: return d.values[k];
    case Type.FixedSizeList: {
      const n = (d.type as FixedSizeList).listSize;
      return Array.from({ length: n }, (_, j) => dataValue(d.children[0]!, k * n + j));
    }
    case Type.Utf8: return new TextDecoder().decode(d.values.subarray(d.valueOffsets[k]!, d.valueOffsets[k + 1]!));
    case Type.Binary: return d.values.subarray(d.valueOffsets[k]!, d.valueOffsets[k + 1]!);
    case Type.List: {
      const out = [];
      for (let j = d.valueOffsets[k]!; j < d.valueOffsets[k + 1]!; j++) out.push(dataValue(d.children[0]!, j));
      return out;
    }
    case Type.Map: {
      // Entries as an object keyed by each key's text, as @msgpack/msgpack gives maps.
      const o: Record<string, unknown> = {};
      const e = d.children[0]!;
      for (let j = d.valueOffsets[k]!; j < d.valueOffsets[k + 1]!; j++) o[String(dataValue(e.children[0]!, j))] = dataValue(e.children[1]!, j);
      return o;
    }
    case Type.Struct: {
      const o: Record<string, unknown> = {};
      d.type.children.forEach((f: { name: string }, c: number) => (o[f.name] = dataValue(d.children[c]!, k)));
      return o;
    }
    case Type.Dictionary: return valueAt(d.dictionary!, d.values[k]);
    default: throw new Error(`unhandled type ${d.type}`);
  }
}

/** IEEE half-precision bits → number. */
function half(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/** Why `got` differs from the reference value `want`, or null when they are equal. */
export function mismatch(got: unknown, want: unknown, where: string): string | null {
  const fail = (what: string) => `${where}: ${what}`;
  const show = (x: unknown) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `bytes(${x.length})` : JSON.stringify(x));
  if (want === null || want === undefined) return got === null ? null : fail(`expected null, got ${show(got)}`);
  if (typeof want === 'bigint' || (typeof want === 'number' && Number.isInteger(want) && typeof got === 'bigint')) {
    if (typeof got !== 'bigint' && !(typeof got === 'number' && Number.isInteger(got))) return fail(`expected integer ${show(want)}, got ${show(got)}`);
    return BigInt(got as number) === BigInt(want as number) ? null : fail(`expected ${show(want)}, got ${show(got)}`);
  }
  if (typeof want === 'number') {
    if (Number.isNaN(want)) return Number.isNaN(got) ? null : fail(`expected NaN, got ${show(got)}`);
    return Object.is(got, want) ? null : fail(`expected ${Object.is(want, -0) ? '-0' : want}, got ${Object.is(got, -0) ? '-0' : show(got)}`);
  }
  if (typeof want === 'string' || typeof want === 'boolean') return got === want ? null : fail(`expected ${show(want)}, got ${show(got)}`);
  if (want instanceof Uint8Array) {
    if (!(got instanceof Uint8Array) || got.length !== want.length || got.some((b, i) => b !== want[i])) return fail('bytes differ');
    return null;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return fail(`expected a list, got ${show(got)}`);
    if (got.length !== want.length) return fail(`list length ${got.length} != ${want.length}`);
    for (let i = 0; i < want.length; i++) {
      const m = mismatch(got[i], want[i], `${where}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (typeof want === 'object' && 'timestampNs' in (want as object)) {
    const ns = (want as { timestampNs: bigint }).timestampNs;
    return got === ns ? null : fail(`expected timestamp ${ns}ns, got ${show(got)}`);
  }
  if (typeof want === 'object') {
    if (typeof got !== 'object' || got === null) return fail(`expected a struct, got ${show(got)}`);
    const g = got as Record<string, unknown>;
    for (const [k, w] of Object.entries(want as object)) {
      const m = mismatch(g[k], w, `${where}.${k}`);
      if (m) return m;
    }
    for (const k of Object.keys(g)) if (!(k in (want as object)) && g[k] !== null) return fail(`.${k} absent in input but ${show(g[k])}`);
    return null;
  }
  return fail(`unhandled reference value ${show(want)}`);
}

/**
 * Every difference between a decoded table and the reference decoder's rows (first 20).
 * Rows that are maps are compared with one column per key, unless `value`: then with the
 * one column `value` (a Map column).
 */
export function tableMismatches(table: Table, rows: unknown[], value = false): string[] {
  const out: string[] = [];
  const push = (m: string | null) => m && out.length < 20 && out.push(m);
  if (table.numRows !== rows.length) return [`row count ${table.numRows} != ${rows.length}`];
  const isRecords = !value && rows.length > 0 && rows.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r) && !(r instanceof Uint8Array) && !('timestampNs' in (r as object)));
  if (!isRecords) {
    const names = table.schema.fields.map((f) => f.name).join(',');
    if (names !== 'value') return [`columns ${names}, expected value`];
    const col = table.getChildAt(0)!;
    rows.forEach((r, i) => push(mismatch(valueAt(col, i), r, `row ${i}`)));
    return out;
  }
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r as object)))].sort();
  const names = table.schema.fields.map((f) => f.name).sort();
  if (names.join(',') !== keys.join(',')) return [`columns ${names} != keys ${keys}`];
  for (const name of keys) {
    const col = table.getChild(name)!;
    rows.forEach((r, i) => push(mismatch(valueAt(col, i), (r as Record<string, unknown>)[name] ?? null, `row ${i}.${name}`)));
  }
  return out;
}

/** Deterministic PRNG (mulberry32) so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
