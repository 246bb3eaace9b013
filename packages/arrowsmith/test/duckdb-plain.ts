/** DuckDB-wasm's query results (its own Arrow 17) as plain values, in Node and in browsers. */

/** A DuckDB (Arrow 17) value as plain JS: lists as arrays, structs as objects. */
export function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const o = v as { toArray?: () => ArrayLike<unknown>; toJSON?: () => Record<string, unknown> };
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, plain);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, plain(x)]));
  // A Vector (a list's values) has a length; a StructRow does not.
  if (typeof o.toArray === 'function' && 'length' in v) return Array.from(o.toArray(), plain);
  const entries = typeof o.toJSON === 'function' ? o.toJSON() : (v as Record<string, unknown>);
  return Object.fromEntries(Object.entries(entries).map(([k, x]) => [k, plain(x)]));
}
