// Comparing a TsFile read with the expected JSON the fixture generators wrote from the official
// readers: shared by the Node tests (tsfile.test.ts) and the Chromium suite (tests/browser).
import type { Table } from 'apache-arrow';
import { valueAt } from './compare.js';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** One value against the JSON conventions: BigInt-exact int64, hex BLOB, non-finite floats as strings. */
export function sameValue(got: unknown, want: unknown, type: string): boolean {
  if (want === null) return got === null;
  switch (type) {
    case 'INT64': case 'TIMESTAMP': return typeof got === 'bigint' && got === BigInt(want as string | number);
    case 'BLOB': return got instanceof Uint8Array && hex(got) === want;
    // Non-finite values are strings in the JSON; NaN payloads compare as NaN; −0 keeps its sign.
    case 'FLOAT': case 'DOUBLE': return Object.is(got, want) || (Number.isNaN(got) && want === 'NaN') || (got === Infinity && want === 'Infinity') || (got === -Infinity && want === '-Infinity');
    default: return got === want;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the expected JSON's shape is the generators'
type Json = any;

/** Table-model fixture: every device's rows (grouped by tags), times and field values. */
export function tableMismatches(t: Table, json: Json): string[] {
  const out: string[] = [];
  const tagCols = (json.tags as string[]).map((n) => t.getChild(n)!);
  const types = Object.fromEntries((json.fields as [string, string][]).map(([n, ty]) => [n, ty]));
  const rowsByDevice = new Map<string, number[]>();
  for (let i = 0; i < t.numRows; i++) {
    const key = tagCols.map((c) => c.get(i)).join('\u0000');
    rowsByDevice.set(key, [...(rowsByDevice.get(key) ?? []), i]);
  }
  let total = 0;
  for (const dev of json.devices) {
    const rows = rowsByDevice.get((dev.tags as string[]).join('\u0000')) ?? [];
    if (rows.length !== dev.rows) out.push(`${dev.tags}: ${rows.length} rows, want ${dev.rows}`);
    total += rows.length;
    const times = dev.columns.time as (number | string)[];
    const time = t.getChild('time')!;
    const badTime = rows.findIndex((r, k) => valueAt(time, r) !== BigInt(times[k]!));
    if (badTime >= 0) out.push(`${dev.tags} time row ${badTime}: ${valueAt(time, rows[badTime]!)} != ${times[badTime]}`);
    for (const [col, values] of Object.entries(dev.columns as Record<string, unknown[]>)) {
      if (col === 'time') continue;
      const vec = t.getChild(col);
      if (!vec) {
        out.push(`no column ${col}`);
        continue;
      }
      const bad = rows.findIndex((r, k) => !sameValue(valueAt(vec, r), values[k], types[col]!));
      if (bad >= 0) out.push(`${dev.tags} ${col} row ${bad}: ${String(valueAt(vec, rows[bad]!))} != ${String(values[bad])}`);
    }
  }
  if (t.numRows !== total) out.push(`${t.numRows} rows in all, devices hold ${total}`);
  return out;
}

/** Tree-model fixture: every series' points of one device (`t` = the read of that device). */
export function deviceMismatches(t: Table, dev: Json): { problems: string[]; points: number } {
  const out: string[] = [];
  const time = t.getChild('time')!;
  const rowOf = new Map<bigint, number>();
  for (let i = 0; i < t.numRows; i++) rowOf.set(valueAt(time, i) as bigint, i);
  let points = 0;
  for (const [m, s] of Object.entries(dev.series as Record<string, { type: string; times: unknown[]; values: unknown[] }>)) {
    const vec = t.getChild(m);
    if (!vec) {
      out.push(`${dev.path}.${m}: no column`);
      continue;
    }
    const bad = s.times.findIndex((tm, k) => {
      const r = rowOf.get(BigInt(tm as number | string));
      return r === undefined || !sameValue(valueAt(vec, r), s.values[k], s.type);
    });
    if (bad >= 0) {
      const r = rowOf.get(BigInt(s.times[bad] as number | string));
      out.push(`${dev.path}.${m} at ${s.times[bad]}: ${r === undefined ? 'no row' : String(valueAt(vec, r))} != ${String(s.values[bad])}`);
    }
    if (vec.length - vec.nullCount !== s.times.length) out.push(`${dev.path}.${m}: ${vec.length - vec.nullCount} values, want ${s.times.length}`);
    points += s.times.length;
  }
  return { problems: out, points };
}
