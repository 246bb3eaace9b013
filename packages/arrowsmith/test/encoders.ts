/**
 * The real-encoder fixtures (fixtures/msgpack/encoders): each `.json` names its writer,
 * how to read the bytes (decode options and the table's shape) and the values the
 * writer's own reader gives. No test-runner imports: the browser suite uses this too.
 */
import type { Table } from 'apache-arrow';
import type { MsgpackDecodeOptions } from '../src/wasm/msgpack-options.js';
import { tableMismatches, valueAt } from './compare.js';

/** How rows of the expected values map to the table. */
export type Shape = 'rows' | 'tuples' | 'columnar' | 'value';

export interface Read {
  options?: MsgpackDecodeOptions;
  shape?: Shape;
  /** The decode is this DecodeError (code), e.g. a value no Arrow column holds exactly. */
  error?: string;
}

export interface EncoderFixture {
  writer: string;
  reads: Read[];
  /** @msgpack/msgpack reads these bytes exactly too. */
  msgpack: boolean;
  expected: unknown;
}

/** Typed JSON (see scripts/fixtures/msgpack/README.md) → the values compare.ts expects. */
export function fromTyped(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(fromTyped);
  const o = v as Record<string, unknown>;
  if ('$int' in o) return BigInt(o.$int as string);
  if ('$float' in o) return o.$float === '-0' ? -0 : Number(o.$float);
  if ('$bin' in o) return Uint8Array.from((o.$bin as string).match(/../g) ?? [], (h) => parseInt(h, 16));
  if ('$ts_ns' in o) return { timestampNs: BigInt(o.$ts_ns as string) };
  if ('$ms' in o) return BigInt(o.$ms as string);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, fromTyped(x)]));
}

/** The expected rows, in the form tableMismatches compares. */
export function expectedRows(values: unknown, read: Read): unknown[] {
  switch (read.shape ?? 'rows') {
    case 'tuples': {
      const names = read.options?.columns;
      return (values as (unknown[] | null)[]).map((r) => (r === null ? null : Object.fromEntries(r.map((x, i) => [names?.[i] ?? String(i), x]))));
    }
    case 'columnar': {
      const cols = Object.entries(values as Record<string, unknown[]>);
      return Array.from({ length: cols[0]?.[1].length ?? 0 }, (_, i) => Object.fromEntries(cols.map(([k, c]) => [k, c[i]])));
    }
    default:
      // One top-level value that is not an array is one row.
      return Array.isArray(values) ? values : [values];
  }
}

/** Where `table` differs from the fixture's expected values under `read`. */
export function fixtureMismatches(table: Table, values: unknown, read: Read): string[] {
  const rows = expectedRows(values, read);
  if (read.shape === 'tuples' && rows.some((r) => r === null)) {
    // A nil row among positional rows: every column is null there.
    const names = table.schema.fields.map((f) => f.name);
    return tableMismatches(table, rows.map((r) => r ?? Object.fromEntries(names.map((n) => [n, null]))));
  }
  return tableMismatches(table, rows, read.shape === 'value');
}

/** Where two tables differ (schema, rows, values). */
export function tableDiff(a: Table, b: Table): string[] {
  const out: string[] = [];
  if (String(a.schema.fields) !== String(b.schema.fields)) out.push(`schema ${b.schema.fields} != ${a.schema.fields}`);
  if (a.numRows !== b.numRows) out.push(`${b.numRows} rows != ${a.numRows}`);
  const j = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? [...x] : x));
  for (let c = 0; c < a.numCols && out.length < 3; c++) {
    for (let i = 0; i < Math.min(a.numRows, b.numRows); i++) {
      const [x, y] = [valueAt(a.getChildAt(c)!, i), valueAt(b.getChildAt(c)!, i)];
      if (j(x) !== j(y)) {
        out.push(`${a.schema.fields[c]!.name}[${i}]: ${j(y)} != ${j(x)}`);
        break;
      }
    }
  }
  return out;
}
