/** One small column of each Arrow type the decoders build (src/arrow/batch.ts), a null in each. */
import * as A from 'apache-arrow';

const f = (name: string, type: A.DataType) => new A.Field(name, type, true);
export const item = (t: A.DataType) => f('item', t);

/** Timestamps as the decoders hold them: Int64 counts of the unit (a null between the two). */
function raw(type: A.Timestamp, a: bigint, b: bigint): A.Vector {
  return A.makeVector(A.makeData({ type, length: 3, nullCount: 1, nullBitmap: Uint8Array.of(0b101), data: BigInt64Array.of(a, 0n, b) }));
}
const v = (values: unknown[], type: A.DataType) => A.vectorFromArray(values, type as never);
const entries = new A.Field('entries', new A.Struct([new A.Field('key', new A.Utf8(), false), f('value', new A.Int32())]), false);

/** Name → a three-row column. */
export const TYPE_COLUMNS: Record<string, A.Vector> = {
  nul: v([null, null, null], new A.Null()),
  b: v([true, null, false], new A.Bool()),
  i8: v([-128, null, 127], new A.Int8()),
  i16: v([-32768, null, 1], new A.Int16()),
  i32: v([-2147483648, null, 7], new A.Int32()),
  i64: v([-(2n ** 63n), null, 2n ** 63n - 1n], new A.Int64()),
  u8: v([255, null, 0], new A.Uint8()),
  u16: v([65535, null, 0], new A.Uint16()),
  u32: v([4294967295, null, 0], new A.Uint32()),
  u64: v([2n ** 64n - 1n, null, 0n], new A.Uint64()),
  f16: v([1.5, null, -65504], new A.Float16()),
  f32: v([1.5, null, Number.NaN], new A.Float32()),
  f64: v([1e300, null, -0], new A.Float64()),
  s: v(['héllo ✓', null, ''], new A.Utf8()),
  bin: v([new Uint8Array([0, 1, 255]), null, new Uint8Array()], new A.Binary()),
  d: v([new Date(0), null, new Date(86400000 * 365)], new A.DateDay()),
  ts_s: raw(new A.Timestamp(A.TimeUnit.SECOND), 1700000000n, 0n),
  ts_ms: raw(new A.Timestamp(A.TimeUnit.MILLISECOND), 1700000000123n, -1n),
  ts_us: raw(new A.Timestamp(A.TimeUnit.MICROSECOND), 1700000000123456n, 0n),
  ts_ns: raw(new A.Timestamp(A.TimeUnit.NANOSECOND), 1700000000123456789n, 0n),
  list: v([[1, 2], null, []], new A.List(item(new A.Int32()))),
  list16: v([[0.5], null, [-2]], new A.List(item(new A.Float16()))),
  fsl: v([[1, 2], null, [3, null]], new A.FixedSizeList(2, item(new A.Float64()))),
  st: v([{ x: 1, y: 'a' }, null, { x: null, y: 'c' }], new A.Struct([f('x', new A.Int32()), f('y', new A.Utf8())])),
  map: v([new Map([['a', 1]]), null, new Map()], new A.Map_(entries)),
  dict: v(['a', null, 'b'], new A.Dictionary(new A.Utf8(), new A.Int32())),
};
