/**
 * Row `i` of an Int64-backed column chunk (Int64, Timestamp) as the int64 it is, read from
 * the bytes of its values buffer: what `values[i]` means depends on the Arrow JS version
 * (15 holds these as pairs of Int32 words, later versions as a BigInt64Array), and `get`
 * gives timestamps as float milliseconds.
 */
export function int64At(data: { values: unknown }, i: number): bigint {
  // (A sliced Data's values start at its first row: no offset to add.)
  const v = data.values as ArrayBufferView;
  return new DataView(v.buffer, v.byteOffset + i * 8, 8).getBigInt64(0, true);
}
