/** Plain-text rendering of tables for the CLI: schema, column summaries and the first rows. */
import { DataType, type Table, type Vector } from '../arrow/lib.js';
import { int64At } from '../arrow/int64.js';

const UNIT_DIGITS = [0, 3, 6, 9]; // Arrow TimeUnit: SECOND, MILLISECOND, MICROSECOND, NANOSECOND

/** An epoch count in 10^-digits seconds as ISO 8601 UTC, keeping every digit of the unit. */
export function isoTime(v: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  let secs = v / scale;
  let frac = v % scale;
  if (frac < 0n) {
    secs -= 1n;
    frac += scale;
  }
  const whole = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  return digits === 0 ? `${whole}Z` : `${whole}.${frac.toString().padStart(digits, '0')}Z`;
}

/** Days since 1970-01-01 as an ISO date. */
export function isoDate(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

/** The stored int64 of row `i` of a timestamp column (full precision: Arrow JS's `get` gives float ms). */
function rawValue(vec: Vector, i: number): unknown {
  for (const d of vec.data) {
    if (i < d.length) return d.getValid(i) ? int64At(d, i) : null;
    i -= d.length;
  }
  return null;
}

/** One cell as text: dates and timestamps in ISO 8601, bytes in hex, nested values as JSON. */
export function cellAt(vec: Vector, i: number): string {
  const t = vec.type;
  if (DataType.isTimestamp(t)) {
    const v = rawValue(vec, i);
    return v === null ? 'null' : isoTime(BigInt(v as bigint), UNIT_DIGITS[t.unit]!);
  }
  if (DataType.isDate(t)) {
    const v = vec.get(i) as number | Date | null;
    return v === null ? 'null' : isoDate(Math.floor(Number(v) / 86_400_000));
  }
  return cellText(vec.get(i));
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `0x${Buffer.from(v.subarray(0, 16)).toString('hex')}${v.length > 16 ? '…' : ''}`;
  if (typeof v === 'object' && v !== null && 'toJSON' in v) {
    return JSON.stringify((v as { toJSON(): unknown }).toJSON(), (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  }
  return String(v);
}

export function schemaText(table: Table): string {
  return table.schema.fields.map((f) => `  ${f.name}: ${f.type}${f.nullable ? '' : ' (not null)'}`).join('\n');
}

/** Each column's type and null count (the structure, no values). */
export function columnsText(table: Table): string {
  return table.schema.fields
    .map((f, i) => `  ${f.name}: ${f.type}, ${table.getChildAt(i)!.nullCount} nulls`)
    .join('\n');
}

export function rowsText(table: Table, limit = 10, width = 24): string {
  const names = table.schema.fields.map((f) => f.name);
  const cols = names.map((_, i) => table.getChildAt(i)!);
  const n = Math.min(limit, table.numRows);
  const clip = (s: string) => (s.length > width ? s.slice(0, width - 1) + '…' : s);
  const grid = [names.map(clip)];
  for (let r = 0; r < n; r++) grid.push(cols.map((c) => clip(cellAt(c, r))));
  const widths = names.map((_, j) => Math.max(...grid.map((row) => row[j]!.length)));
  return grid.map((row) => row.map((s, j) => s.padEnd(widths[j]!)).join('  ').trimEnd()).join('\n');
}
