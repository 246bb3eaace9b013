/**
 * Reading the out-of-order fixtures (scripts/fixtures/tsfile/gen_java_order.sh) and
 * comparing a read with their sidecars; and a read's rows as text, to compare two reads.
 */
import { RecordBatch, Table } from 'apache-arrow';
import { int64At } from '../src/arrow/int64.js';

/** A column's rows as text (int64s exact from their bytes, the rest through `get`; null as 'null'). */
export function texts(t: Table | RecordBatch, name: string): string[] {
  const vec = t.getChild(name)!;
  const int64 = vec.type.typeId === 10 /* Timestamp */ || (vec.type.typeId === 2 && (vec.type as { bitWidth: number }).bitWidth === 64);
  const out: string[] = [];
  let at = 0;
  for (const d of vec.data) {
    for (let i = 0; i < d.length; i++) {
      if (!d.getValid(i)) out.push('null');
      else out.push(int64 ? String(int64At(d, i)) : String(vec.get(at + i)));
    }
    at += d.length;
  }
  return out;
}

/** Every row of a table as one text each: column values (dictionaries decoded) joined. */
export function rowTexts(t: Table | RecordBatch): string[] {
  const names = t.schema.fields.map((f) => f.name);
  const cols = names.map((n) => texts(t, n));
  return Array.from({ length: t.numRows }, (_, r) => cols.map((c) => c[r]).join('|'));
}

/** Batches as one table (each batch has its own dictionary types: one schema for all). */
export const concat = (batches: RecordBatch[]) => (batches.length ? new Table(batches.map((b) => new RecordBatch(batches[0]!.schema, b.data))) : new Table());

const text = (v: unknown) => (v === null || v === undefined ? 'null' : String(v));

/**
 * Mismatches between a read of one query and the Java reader's output for it (`q`, one of
 * the sidecar's `queries`; `whole`: its first, for series the Java reader's own range query
 * reads wrong). The Java reader returns every point of every chunk without merging: the tree
 * model in file order (compared per series, each time's points as a set), the table model by
 * chunk start time (compared row for row after a stable sort by time).
 */
// biome-ignore lint/suspicious/noExplicitAny: the sidecar JSON
export function orderMismatches(t: Table, json: any, q: any, whole: any): string[] {
  const problems: string[] = [];
  const fields: string[] = json.fields.map((f: [string, string]) => f[0]);
  const key = json.model === 'table' ? 'id' : 'device';
  const keys = [...t.getChild(key)!].map((v) => String(v));
  const times = texts(t, 'time');
  const vals = Object.fromEntries(fields.map((f) => [f, texts(t, f)]));
  let seen = 0;
  for (const d of q.devices) {
    const name = json.model === 'table' ? d.tag : d.path;
    const rows = keys.flatMap((k, r) => (k === name ? [r] : []));
    seen += rows.length;
    const ts = rows.map((r) => BigInt(times[r]!));
    if (!ts.every((x, i) => i === 0 || ts[i - 1]! <= x)) problems.push(`${name}: rows not in time order`);
    if (json.model === 'table') {
      const want = d.time.map((tm: unknown, r: number) => [BigInt(text(tm)), [text(tm), ...fields.map((f) => text(d.columns[f][r]))].join('|')] as const);
      want.sort((a: readonly [bigint, string], b: readonly [bigint, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const got = rows.map((r) => [times[r], ...fields.map((f) => vals[f]![r])].join('|'));
      if (got.length !== want.length) problems.push(`${name}: ${got.length} rows, want ${want.length}`);
      got.forEach((g, i) => {
        if (g !== want[i]?.[1] && problems.length < 20) problems.push(`${name} row ${i}: ${g} want ${want[i]?.[1]}`);
      });
      continue;
    }
    const di = q.devices.indexOf(d);
    for (const f of fields) {
      const differs = (json.reader_range_differs ?? []).includes(`${name}.${f}`);
      const src = q.start !== null && differs ? whole.devices[di].series[f] : d.series[f];
      const inRange = (x: bigint) => (q.start === null || x >= BigInt(q.start)) && (q.end === null || x <= BigInt(q.end));
      const want = src.times
        .map((tm: unknown, i: number) => `${text(tm)}=${text(src.values[i])}`)
        .filter((p: string) => inRange(BigInt(p.split('=')[0]!)));
      const got = rows.filter((r) => vals[f]![r] !== 'null').map((r) => `${times[r]}=${vals[f]![r]}`);
      const gotTimes = got.map((p) => BigInt(p.split('=')[0]!));
      if (!gotTimes.every((x, i) => i === 0 || gotTimes[i - 1]! <= x)) problems.push(`${name}.${f}: points not in time order`);
      const a = [...got].sort().join(',');
      const b = [...want].sort().join(',');
      if (a !== b) problems.push(`${name}.${f} ${q.start ?? ''}..${q.end ?? ''}: ${got.length} points, want ${want.length}`);
    }
  }
  if (seen !== t.numRows) problems.push(`${t.numRows - seen} rows of other devices`);
  return problems;
}
