// Small helpers on Arrow tables shared by the adapters (and the page).
import { DataType, type Field, type RecordBatch, type Table } from 'apache-arrow';
import type { TreeNode } from './types.js';

/** The schema as tree nodes (nested struct/list children below their parent). */
export function fieldsToTree(fields: Field[], top = true): TreeNode[] {
  return fields.map((f) => ({
    label: f.name,
    kind: 'field' as const,
    detail: `${f.type}${f.nullable ? '' : ' not null'}`,
    column: top ? f.name : undefined,
    children: f.type.children?.length ? fieldsToTree(f.type.children, false) : undefined,
  }));
}

/** A time-like column: an Arrow Timestamp/Date, else a numeric column named like time. */
export function findTimeColumn(t: Table): string | undefined {
  const fs = t.schema.fields;
  const typed = fs.find((f) => DataType.isTimestamp(f.type) || DataType.isDate(f.type));
  if (typed) return typed.name;
  return fs.find((f) => /^(time|timestamp|ts|t)$/i.test(f.name) && (DataType.isInt(f.type) || DataType.isFloat(f.type)))?.name;
}

/** A cell of a time column as milliseconds since the epoch. */
export function timeMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') return Number(v);
  return Number(v);
}

/**
 * Rows whose time is in [start, end] (either bound optional). Sorted time columns are
 * cut with a binary search and a zero-copy slice; unsorted ones are left unfiltered.
 */
export function filterByTime(t: Table, column: string, start?: number, end?: number): Table {
  if (start === undefined && end === undefined) return t;
  const col = t.getChild(column);
  if (!col) return t;
  const n = t.numRows;
  const at = (i: number) => timeMs(col.get(i));
  for (let i = 1; i < n; i++) if (at(i) < at(i - 1)) return t; // not sorted
  const lower = (x: number, strict: boolean) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (strict ? at(mid) <= x : at(mid) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const a = start === undefined ? 0 : lower(start, false);
  const b = end === undefined ? n : lower(end, true);
  return t.slice(a, Math.max(a, b));
}

export function selectColumns(t: Table, columns?: string[], keep?: string): Table {
  if (!columns?.length) return t;
  const names = keep && !columns.includes(keep) ? [keep, ...columns] : columns;
  const have = names.filter((c) => t.getChild(c));
  return have.length ? t.select(have) : t;
}

/**
 * A numeric column of a batch as plain numbers (no copy unless int64: those become doubles)
 * and, when it has nulls, a validity test. Batches of the readers hold one chunk per column.
 */
export function numbersOf(batch: RecordBatch, name: string): { ys: ArrayLike<number>; valid?: (i: number) => boolean } {
  const col = batch.getChild(name);
  if (!col) throw new Error(`the batch has no column ${name}`);
  const d = col.data.length === 1 ? col.data[0]! : undefined;
  if (!d || !(DataType.isInt(d.type) || DataType.isFloat(d.type))) throw new Error(`${name} is not a numeric column (${col.type})`);
  const raw = d.values as ArrayLike<number | bigint>;
  const ys = raw instanceof BigInt64Array || raw instanceof BigUint64Array ? Float64Array.from(raw as ArrayLike<bigint>, Number) : (raw as ArrayLike<number>);
  return { ys, valid: d.nullCount > 0 ? (i: number) => d.getValid(i) : undefined };
}

/** The first numeric column of a schema that is not `time`. */
export function firstNumeric(fields: Field[]): string | undefined {
  return fields.find((f) => f.name !== 'time' && (DataType.isInt(f.type) || DataType.isFloat(f.type)))?.name;
}
