/**
 * An HDF5 file compared value by value with the expected JSON its writer's own reader
 * produced (scripts/fixtures/hdf5/fxjson.py). No test-runner imports: the browser suite
 * bundles this file too.
 */
import type { Table } from 'apache-arrow';
import { valueAt } from './compare.js';

/** What is compared of an open file (the source build's Hdf5File or the bundled package's). */
interface Hdf5Like {
  read(path: string): Promise<Table>;
  attrs(path: string): Promise<Record<string, unknown>>;
}

const utf8 = new TextEncoder();
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const isEmptyHex = (w: unknown) => typeof w === 'object' && w !== null && (w as { hex?: string }).hex === '';

/**
 * Where `got` (an Arrow value) differs from the writer's JSON value, or null. `nullable`: the
 * row is a null VL string reference (h5py reads it as b''; we keep it null, docs/hdf5.md).
 * Sequences are never null: an empty one is stored as a null reference and read as [].
 */
export function diff(got: unknown, want: unknown, at: string, nullable = false): string | null {
  if (want === null) return got === null ? null : `${at}: expected null, got ${String(got)}`;
  if (got === null) return nullable && isEmptyHex(want) ? null : `${at}: null, expected ${JSON.stringify(want)}`;
  if (nullable) return `${at}: expected a null string reference, got ${String(got)}`;
  if (typeof want === 'object' && 'hex' in want) {
    const bytes = typeof got === 'string' ? utf8.encode(got) : got instanceof Uint8Array ? got : undefined;
    return bytes && hex(bytes) === (want as { hex: string }).hex ? null : `${at}: expected bytes ${(want as { hex: string }).hex}, got ${String(got)}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${at}: expected a list of ${want.length}, got ${String(got)}`;
    if (got.length !== want.length) return `${at}: list length ${got.length} != ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(got[i], want[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof want === 'object') {
    if (!got || typeof got !== 'object') return `${at}: expected a struct, got ${String(got)}`;
    for (const [k, w] of Object.entries(want)) {
      const d = diff((got as Record<string, unknown>)[k], w, `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (typeof got === 'boolean') return Number(got) === Number(want) ? null : `${at}: ${got} vs ${want}`;
  if (typeof got === 'bigint') return got === BigInt(want as number | string) ? null : `${at}: ${got} vs ${want}`;
  if (want === 'nan' || want === 'NaN') return Number.isNaN(got) ? null : `${at}: expected NaN, got ${got}`;
  // fxjson.py writes infinities as "inf" / "-inf".
  if (want === 'inf' || want === '-inf') return got === (want === 'inf' ? Infinity : -Infinity) ? null : `${at}: expected ${want}, got ${got}`;
  return Object.is(got, want) || (typeof want === 'string' && Object.is(got, Number(want))) ? null : `${at}: expected ${want}, got ${String(got)}`;
}

interface Expected {
  datasets: Record<string, { rows: unknown[] | unknown; shape: number[]; nulls?: number[] }>;
  attrs?: Record<string, Record<string, unknown>>;
  /** Datasets refused by design: an `unsupported` DecodeError naming this feature. */
  errors?: Record<string, string>;
}

/** Every dataset and attribute of `json` read from `f` and compared; the problems found. */
export async function fileProblems(f: Hdf5Like, json: Expected): Promise<string[]> {
  const problems: string[] = [];
  for (const [path, ds] of Object.entries(json.datasets)) {
    let t: Table;
    try {
      t = await f.read(path);
    } catch (e) {
      problems.push(`${path}: ${(e as Error).message}`);
      continue;
    }
    const rows = Array.isArray(ds.rows) ? ds.rows : [ds.rows];
    if (t.numRows !== rows.length) {
      problems.push(`${path}: ${t.numRows} rows, the writer has ${rows.length}`);
      continue;
    }
    const compound = t.numCols > 1 || (rows.length > 0 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r) && !('hex' in r) && !('ref' in r)));
    // Object references are dumped as opaque markers; only their count is comparable.
    if (rows.some((r) => r && typeof r === 'object' && ('ref' in r || Object.values(r).some((v) => v && typeof v === 'object' && 'ref' in v)))) continue;
    for (let i = 0; i < rows.length; i++) {
      const got = compound ? Object.fromEntries(t.schema.fields.map((fl, c) => [fl.name, valueAt(t.getChildAt(c)!, i)])) : valueAt(t.getChildAt(0)!, i);
      const d = diff(got, rows[i], `${path}[${i}]`, ds.nulls?.includes(i));
      if (d) {
        problems.push(d);
        break;
      }
    }
  }
  for (const [path, needle] of Object.entries(json.errors ?? {})) {
    const got = await f.read(path).then(
      () => 'no error',
      (e: { code?: string; message?: string }) => (e.code === 'unsupported' && e.message?.includes(needle) ? null : `${e.code}: ${e.message}`),
    );
    if (got) problems.push(`${path}: expected an unsupported error naming ${needle}, got ${got}`);
  }
  for (const [path, want] of Object.entries(json.attrs ?? {})) {
    let got: Record<string, unknown>;
    try {
      got = await f.attrs(path);
    } catch (e) {
      problems.push(`${path}: attrs: ${(e as Error).message}`);
      continue;
    }
    for (const [k, w] of Object.entries(want)) {
      if (!(k in got)) {
        problems.push(`${path}@${k}: missing`);
        continue;
      }
      // A one-element attribute reads as its value; the writer may dump it as a list of one.
      const g = got[k];
      const whole = diff(g, w, `${path}@${k}`);
      const d = whole && Array.isArray(w) && w.length === 1 ? diff(g, w[0], `${path}@${k}`) : whole;
      if (d) problems.push(d);
    }
  }
  return problems;
}
