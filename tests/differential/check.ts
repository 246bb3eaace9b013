/**
 * The differential checker: every generated file read by Arrowsmith (the built package, in one
 * Node process) and compared value by value with what the writer's own reader returned (the
 * generators' JSON, tests/differential/xjson.py). Bundled by run.mjs with esbuild.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataType, DateUnit, type Dictionary, type Field, type FixedSizeList, type Float, type Int, type RecordBatch, type Table, type TimeUnit, type Timestamp, Type } from 'apache-arrow';
import { decodeMsgpack, openHdf5, openTsFile } from 'arrowsmith';
import { valueAt } from '../../packages/arrowsmith/test/compare.js';

// biome-ignore lint/suspicious/noExplicitAny: the generators' JSON
type Json = any;

export interface Outcome {
  format: string;
  file: string;
  /** Passed; or refused with code unsupported for a feature docs/<format>.md lists as not supported. */
  ok: boolean;
  problems: string[];
  refused: string[];
  /** Observations that are no disagreement (e.g. batches of one read with different columns). */
  notes: string[];
  /** Values compared (cells, nested values counted once per row). */
  values: number;
  /** The writer could not make the file (a crash); neither pass nor failure. */
  skipped?: string;
  params: Json;
}

/** Arrow types as the generators spell them: int32, float16, utf8, list<int8>, fsl3<float32>, struct<a:bool>, dict<int32,utf8>, timestamp[ns]. */
export function typeName(t: DataType): string {
  switch (t.typeId) {
    case Type.Int: return `${(t as Int).isSigned ? 'int' : 'uint'}${(t as Int).bitWidth}`;
    case Type.Float: return ['float16', 'float32', 'float64'][(t as Float).precision]!;
    case Type.Bool: return 'bool';
    case Type.Utf8: return 'utf8';
    case Type.LargeUtf8: return 'largeutf8';
    case Type.Binary: return 'binary';
    case Type.Null: return 'null';
    case Type.Date: return (t as unknown as { unit: DateUnit }).unit === DateUnit.DAY ? 'date32' : 'date64';
    case Type.Timestamp: return `timestamp[${['s', 'ms', 'us', 'ns'][(t as Timestamp).unit as TimeUnit]}]`;
    case Type.List: return `list<${typeName(t.children[0]!.type)}>`;
    case Type.FixedSizeList: return `fsl${(t as FixedSizeList).listSize}<${typeName(t.children[0]!.type)}>`;
    case Type.Struct: return `struct<${t.children.map((f: Field) => `${f.name}:${typeName(f.type)}`).join(',')}>`;
    case Type.Dictionary: return `dict<${typeName((t as Dictionary).indices)},${typeName((t as Dictionary).dictionary)}>`;
    case Type.Map: return `map<${typeName(t.children[0]!.type.children[0].type)},${typeName(t.children[0]!.type.children[1].type)}>`;
    default: return String(t);
  }
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const show = (x: unknown): string =>
  typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `bytes(${hex(x)})` : typeof x === 'number' ? (Object.is(x, -0) ? '-0' : String(x)) : (JSON.stringify(x, (_, v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ?? String(x));

/** A float64 from the big-endian bits xjson.py wrote. */
function f64(bits: string): number {
  return Buffer.from(bits, 'hex').readDoubleBE(0);
}

/**
 * Where `got` (valueAt's plain value) differs from the tagged `want`, or null. Floats bit-exact
 * (NaN equals NaN, −0 is not 0); ints exact.
 */
export function diff(got: unknown, want: Json, at: string, textOrBytes = false): string | null {
  const bad = (w: string) => `${at}: writer's reader ${w}, ours ${show(got)}`;
  if (want === null) return got === null ? null : bad('null');
  if (typeof want === 'boolean' || typeof want === 'string') return got === want ? null : bad(show(want));
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return bad(`a list of ${want.length}`);
    if (got.length !== want.length) return bad(`a list of ${want.length}: ${show(want).slice(0, 200)}`);
    for (let i = 0; i < want.length; i++) {
      const d = diff(got[i], want[i], `${at}[${i}]`, textOrBytes);
      if (d) return d;
    }
    return null;
  }
  if ('i' in want) {
    const w = BigInt(want.i);
    if (typeof got === 'bigint') return got === w ? null : bad(want.i);
    return typeof got === 'number' && Number.isInteger(got) && BigInt(got) === w ? null : bad(want.i);
  }
  if ('f' in want) {
    const w = f64(want.f);
    if (typeof got !== 'number') return bad(`float ${w}`);
    return (Number.isNaN(w) && Number.isNaN(got)) || Object.is(got, w) ? null : bad(`float ${Object.is(w, -0) ? '-0' : w} (bits ${want.f})`);
  }
  if ('b' in want) {
    if (textOrBytes && typeof got === 'string') return Buffer.from(got).toString('hex') === want.b ? null : bad(`bytes(${want.b})`);
    return got instanceof Uint8Array && hex(got) === want.b ? null : bad(`bytes(${want.b})`);
  }
  if ('t' in want) return got === BigInt(want.t) ? null : bad(`timestamp ${want.t} ns`);
  if ('s' in want) {
    if (typeof got !== 'object' || got === null || Array.isArray(got) || got instanceof Uint8Array) return bad('a struct');
    const g = got as Record<string, unknown>;
    const members = want.s as [string, Json][];
    for (const [k, w] of members) {
      if (!(k in g)) return bad(`a struct with member ${k}`);
      const d = diff(g[k], w, `${at}.${k}`, textOrBytes);
      if (d) return d;
    }
    const names = new Set(members.map(([k]) => k));
    for (const k of Object.keys(g)) if (!names.has(k) && g[k] !== null) return `${at}.${k}: not in the writer's value, ours ${show(g[k])}`;
    return null;
  }
  return `${at}: unknown expected value ${show(want)}`;
}

/** Paragraphs of docs/<format>.md that say "not supported", lower-cased. */
const notSupported = new Map<string, string>();
function documentedUnsupported(format: string, feature: string, root: string): boolean {
  if (!notSupported.has(format)) {
    const text = readFileSync(join(root, 'docs', `${format}.md`), 'utf8');
    // Sections headed "Not supported…", and paragraphs saying "not supported".
    const sections = text.split(/\n(?=## )/).filter((s) => /^## not supported/i.test(s));
    const paragraphs = text.split(/\n\s*\n/).filter((p) => /not supported/i.test(p));
    // Rows of an errors table whose code is `Unsupported`.
    const rows = text.split('\n').filter((l) => /^\|\s*`Unsupported`/.test(l));
    notSupported.set(format, [...sections, ...paragraphs, ...rows].join('\n').toLowerCase());
  }
  return notSupported.get(format)!.includes(feature.toLowerCase());
}

/**
 * A read of a feature the docs list as not supported: `null` when it fails `unsupported`
 * naming the feature, else the problem; `rows` when it read (then the values are compared).
 */
async function expectRefusal<T>(format: string, refuse: string | { doc: string; message: string }, root: string, read: () => Promise<T>): Promise<string | null | { rows: T }> {
  const feature = typeof refuse === 'string' ? refuse : refuse.message;
  const documented = typeof refuse === 'string' ? refuse : refuse.doc;
  try {
    return { rows: await read() };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code !== 'unsupported') return `${feature}: expected code unsupported, got ${err.code}: ${err.message}`;
    if (!err.message?.toLowerCase().includes(feature.toLowerCase())) return `${feature}: the unsupported error does not name it: ${err.message}`;
    if (!documentedUnsupported(format, documented, root)) return `${feature}: refused, but docs/${format}.md does not list ${documented} as not supported`;
    return null;
  }
}

const errText = (e: unknown) => {
  const err = e as { code?: string; message?: string };
  return err.code ? `${err.code}: ${err.message}` : String(err.message ?? e);
};

let compared = 0;

/** One column against the writer's values and the documented Arrow type. */
function columnProblems(col: Column | null, want: { type: string; values: Json[] }, at: string, rows: number, part = false): string[] {
  if (!col) return [`${at}: no such column`];
  compared += rows;
  const out: string[] = [];
  // Part of an HDF5 dataset (a window, a batch): Utf8 or Binary follows the strings read
  // ("validated once per column", docs/hdf5.md), so a part of a Binary column may be Utf8.
  const text = (t: string) => (part ? t.replaceAll('binary', 'utf8') : t);
  const got = typeName(col.type);
  if (text(got) !== text(want.type)) out.push(`${at}: type ${got}, the documented mapping is ${want.type}`);
  if (col.length !== rows) return [...out, `${at}: ${col.length} rows, the writer's reader ${rows}`];
  for (let i = 0; i < rows; i++) {
    const d = diff(col.at(i), want.values[i], `${at}[${i}]`, part);
    if (d) {
      out.push(d);
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- HDF5

async function checkHdf5(dir: string, j: Json, root: string, out: Outcome): Promise<void> {
  const bytes = new Uint8Array(readFileSync(join(dir, j.file)));
  let f: Awaited<ReturnType<typeof openHdf5>>;
  try {
    f = await openHdf5(bytes);
  } catch (e) {
    out.problems.push(`open: ${errText(e)}`);
    return;
  }
  try {
    for (const ds of j.datasets as Json[]) {
      let t: Table;
      if (ds.refuse) {
        const p = await expectRefusal('hdf5', ds.refuse, root, () => f.read(ds.path));
        if (p === null) {
          out.refused.push(`${ds.path}: ${typeof ds.refuse === 'string' ? ds.refuse : ds.refuse.doc}`);
          continue;
        }
        if (typeof p === 'string') {
          out.problems.push(`${ds.path}: ${p}`);
          continue;
        }
        t = p.rows;
      } else {
        try {
          t = await f.read(ds.path);
        } catch (e) {
          out.problems.push(`${ds.path}: ${errText(e)}`);
          continue;
        }
      }
      out.problems.push(...datasetProblems(tableRows(t), ds, ds.path, 0, ds.rows));
      // A window of rows, and the whole dataset in batches of a few rows.
      if (ds.rows >= 2) {
        const start = Math.floor(ds.rows / 3);
        const count = Math.max(1, Math.floor(ds.rows / 2));
        const how = `${ds.path} rows ${start}..${start + count}`;
        try {
          out.problems.push(...datasetProblems(tableRows(await f.read(ds.path, { start, count })), ds, how, start, count, true));
        } catch (e) {
          out.problems.push(`${how}: ${errText(e)}`);
        }
        const size = 1 + (ds.rows % 7);
        const inBatches = `${ds.path} in batches of ${size} rows`;
        try {
          const batches: RecordBatch[] = [];
          for await (const b of f.batches(ds.path, { rows: size })) batches.push(b);
          out.problems.push(...datasetProblems(batchRows(batches, out.notes, inBatches), ds, inBatches, 0, ds.rows, true));
        } catch (e) {
          out.problems.push(`${inBatches}: ${errText(e)}`);
        }
      }
      await attrProblems(f, ds.path, ds.attrs, out);
    }
    await attrProblems(f, '/', j.attrs['/'], out);
  } finally {
    f.close();
  }
}

/** Rows [start, start + count) of a dataset against h5py's. */
function datasetProblems(t: Rows, ds: Json, at: string, start: number, count: number, part = false): string[] {
  if (t.numRows !== count) return [`${at}: ${t.numRows} rows, h5py ${count}`];
  const slice = (v: Json[]) => v.slice(start, start + count);
  if (ds.columns) {
    const names = Object.keys(ds.columns);
    const out = t.names.join(',') === names.join(',') ? [] : [`${at}: columns ${t.names}, the compound's members ${names}`];
    for (const m of names) out.push(...columnProblems(t.getChild(m), { type: ds.columns[m].type, values: slice(ds.columns[m].values) }, `${at}.${m}`, count, part));
    return out;
  }
  const out = t.names.length === 1 ? [] : [`${at}: ${t.names.length} columns, expected 1`];
  out.push(...columnProblems(t.names.length ? t.getChild(t.names[0]!) : null, { type: ds.type, values: slice(ds.values) }, at, count, part));
  return out;
}

async function attrProblems(f: { attrs(p: string): Promise<Record<string, unknown>> }, path: string, want: Record<string, Json>, out: Outcome): Promise<void> {
  if (!want || Object.keys(want).length === 0) return;
  let got: Record<string, unknown>;
  try {
    got = await f.attrs(path);
  } catch (e) {
    out.problems.push(`${path} attrs: ${errText(e)}`);
    return;
  }
  for (const [k, w] of Object.entries(want)) {
    if (!(k in got)) {
      out.problems.push(`${path}@${k}: missing`);
      continue;
    }
    // A one-element attribute reads as its value.
    const d = diff(got[k], Array.isArray(w) && !Array.isArray(got[k]) && w.length === 1 ? w[0] : w, `${path}@${k}`);
    if (d) out.problems.push(d);
  }
}

// ---------------------------------------------------------------- TsFile

const TSFILE_TYPES: Record<string, string> = {
  BOOLEAN: 'bool', INT32: 'int32', INT64: 'int64', FLOAT: 'float32', DOUBLE: 'float64', TEXT: 'utf8', STRING: 'utf8', BLOB: 'binary', DATE: 'date32', TIMESTAMP: 'timestamp[ms]',
};

async function checkTsFile(dir: string, j: Json, _root: string, out: Outcome): Promise<void> {
  const bytes = new Uint8Array(readFileSync(join(dir, j.file)));
  let f: Awaited<ReturnType<typeof openTsFile>>;
  try {
    f = await openTsFile(bytes);
  } catch (e) {
    out.problems.push(`open: ${errText(e)}`);
    return;
  }
  try {
    for (const part of j.reads as Json[]) {
      let t: Rows;
      const how = `${part.batch_rows ? `batches of ${part.batch_rows} rows` : 'read'} ${JSON.stringify(part.query)}`;
      const want = timeRange(part);
      try {
        if (part.batch_rows) {
          const batches: RecordBatch[] = [];
          for await (const b of f.batches({ ...part.query, rows: part.batch_rows })) batches.push(b);
          if (batches.length === 0) {
            if (want.some((d: Json) => d.time.length > 0)) out.problems.push(`${how}: no batches, the official reader has rows`);
            continue;
          }
          // Not `new Table(batches)`: each batch's tag dictionaries have their own id, which
          // apache-arrow's Table refuses as different schemas (reported); rows are compared
          // across the batches instead.
          t = batchRows(batches, out.notes, how);
        } else {
          t = tableRows(await f.read(part.query));
        }
      } catch (e) {
        out.problems.push(`${how}: ${errText(e)}`);
        continue;
      }
      const problems = tsfileProblems(t, part, want);
      out.problems.push(...problems.map((p) => `${how}: ${p}`));
    }
  } finally {
    f.close();
  }
}

/** The official reader's devices, cut to the query's inclusive time range. */
function timeRange(part: Json): Json[] {
  const { start, end } = part.query;
  if (start === undefined && end === undefined) return part.devices;
  const inside = (t: Json) => (start === undefined || BigInt(t.i) >= BigInt(start)) && (end === undefined || BigInt(t.i) <= BigInt(end));
  return (part.devices as Json[])
    .map((d) => {
      const keep = (d.time as Json[]).map(inside);
      return { tags: d.tags, time: d.time.filter((_: Json, k: number) => keep[k]), columns: Object.fromEntries(Object.entries(d.columns as Record<string, Json[]>).map(([n, v]) => [n, v.filter((_, k) => keep[k])])) };
    })
    .filter((d) => d.time.length > 0);
}

/** A column of a table or of a read's batches: its type, length and plain values. */
interface Column {
  type: DataType;
  length: number;
  at(i: number): unknown;
}

/** Rows of a table or of a read's batches: columns by name. */
interface Rows {
  numRows: number;
  names: string[];
  getChild(name: string): Column | null;
}

function tableRows(t: Table): Rows {
  return {
    numRows: t.numRows,
    names: t.schema.fields.map((x) => x.name),
    getChild: (name) => {
      const v = t.getChild(name);
      return v && { type: v.type, length: v.length, at: (i: number) => valueAt(v, i) };
    },
  };
}

/**
 * The batches of one read as one run of rows. Batches whose columns differ (names or types) are
 * a note, not a disagreement: the values are still compared, row by row, batch by batch.
 */
function batchRows(batches: RecordBatch[], problems: string[], how: string): Rows {
  const starts: number[] = [];
  let n = 0;
  for (const b of batches) {
    starts.push(n);
    n += b.numRows;
  }
  const first = batches[0]!;
  for (const b of batches) {
    const a = first.schema.fields.map((x) => `${x.name}:${typeName(x.type)}`).join(',');
    const c = b.schema.fields.map((x) => `${x.name}:${typeName(x.type)}`).join(',');
    if (a !== c) {
      problems.push(`${how}: batch columns ${c} differ from the first batch's ${a}`);
      break;
    }
  }
  return {
    numRows: n,
    names: first.schema.fields.map((x) => x.name),
    getChild: (name) => {
      // Tree-model batches carry their device's measurements: a batch without the column is nulls there.
      const has = batches.find((b) => b.getChild(name));
      if (!has) return null;
      return {
        type: has.getChild(name)!.type,
        length: n,
        at: (i: number) => {
          let k = starts.length - 1;
          while (starts[k]! > i) k--;
          const c = batches[k]!.getChild(name);
          return c ? valueAt(c, i - starts[k]!) : null;
        },
      };
    },
  };
}

/** A device's expected rows sorted by time. */
function sortedByTime(dev: Json): Json {
  const order = (dev.time as Json[]).map((t, k) => [BigInt(t.i), k] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, k]) => k);
  return { tags: dev.tags, time: order.map((k) => dev.time[k]), columns: Object.fromEntries(Object.entries(dev.columns as Record<string, Json[]>).map(([n, v]) => [n, order.map((k) => v[k])])) };
}

/** Our values of one repeated time against the reader's, in any order (each matched once). */
function multisetDiff(got: unknown[], want: Json[], path: string): string | null {
  const left = [...want];
  for (const g of got) {
    const k = left.findIndex((w) => diff(g, w, path) === null);
    if (k < 0) return `${path}: ${String(g)} is none of the reader's values ${JSON.stringify(left)} of that time`;
    left.splice(k, 1);
  }
  return null;
}

/** One TsFile read against the official reader's devices (grouped by tags, time-ordered). */
function tsfileProblems(t: Rows, part: Json, devices: Json[]): string[] {
  const out = { problems: [] as string[] };
      const tagCols = (part.tags as string[]).map((n) => t.getChild(n));
      if (tagCols.some((c) => !c)) {
        out.problems.push(`no tag column among ${t.names}`);
        return out.problems;
      }
      const byDevice = new Map<string, number[]>();
      for (let i = 0; i < t.numRows; i++) {
        const key = JSON.stringify(tagCols.map((c) => c!.at(i)));
        byDevice.set(key, [...(byDevice.get(key) ?? []), i]);
      }
      const time = t.getChild('time');
      if (!time) {
        out.problems.push('no time column');
        return out.problems;
      }
      if (typeName(time.type) !== 'timestamp[ms]') out.problems.push(`time: type ${typeName(time.type)}, documented timestamp[ms]`);
      for (const [name, ty] of part.fields as [string, string][]) {
        const c = t.getChild(name);
        if (!c) out.problems.push(`${name}: no column`);
        else if (typeName(c.type) !== TSFILE_TYPES[ty]) out.problems.push(`${name}: type ${typeName(c.type)}, the documented mapping of ${ty} is ${TSFILE_TYPES[ty]}`);
      }
      let total = 0;
      for (let dev of devices) {
        const key = JSON.stringify(dev.tags);
        // Compared in time order on both sides: a device's chunk groups may go back in time,
        // and the official reader returns them in file order (the sort is stable: a repeated time keeps
        // the reader's order; tree reads with repeats compare that time's values as multisets).
        const rows = (byDevice.get(key) ?? []).map((r) => [r, time.at(r) as bigint] as const).sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)).map(([r]) => r);
        dev = sortedByTime(dev);
        byDevice.delete(key);
        total += rows.length;
        if (rows.length !== dev.time.length) out.problems.push(`device ${key}: ${rows.length} rows, the official reader ${dev.time.length}`);
        const n = Math.min(rows.length, dev.time.length);
        const dt = (() => {
          for (let k = 0; k < n; k++) {
            const d = diff(time.at(rows[k]!), dev.time[k], `device ${key} time row ${k}`);
            if (d) return d;
          }
          return null;
        })();
        if (dt) out.problems.push(dt);
        for (const [name] of part.fields as [string, string][]) {
          const c = t.getChild(name);
          if (!c) continue;
          for (let k = 0; k < n; k++) {
            compared++;
            let d: string | null;
            if (part.repeats === 'multiset' && ((k + 1 < n && dev.time[k + 1].i === dev.time[k].i) || (k > 0 && dev.time[k - 1].i === dev.time[k].i))) {
              // A repeated time of a tree read: the Java tree reader pairs the series' points of
              // one time in file order, this reader in chunk start order (docs/tsfile.md,
              // "Out-of-order chunk groups"): each column's values of that time as a multiset.
              let e = k;
              while (e + 1 < n && dev.time[e + 1].i === dev.time[k].i) e++;
              d = multisetDiff(Array.from({ length: e - k + 1 }, (_, j) => c.at(rows[k + j]!)), dev.columns[name].slice(k, e + 1), `device ${key} ${name} rows ${k}..${e} (time ${dev.time[k].i}, repeated)`);
              compared += e - k;
              k = e;
            } else {
              d = diff(c.at(rows[k]!), dev.columns[name][k], `device ${key} ${name} row ${k} (time ${dev.time[k].i})`);
            }
            if (d) {
              out.problems.push(d);
              break;
            }
          }
        }
      }
      for (const [key, rows] of byDevice) out.problems.push(`device ${key}: ${rows.length} rows the official reader does not return`);
      if (total !== t.numRows) out.problems.push(`${t.numRows} rows, devices hold ${total}`);
  return out.problems;
}

// ---------------------------------------------------------------- MessagePack

/** An expected Arrow type: its name as typeName spells it, and how writer's values become its values. */
interface TypeNode {
  name: string;
  item?: TypeNode;
  fields?: [string, TypeNode][];
}

const member = (v: Json, key: string): Json => (v.s as [string, Json][]).find(([k]) => k === key)?.[1] ?? null;

/** docs/msgpack.md's type mapping over a column's values (tagged). */
export function inferType(values: Json[], float32: boolean): TypeNode {
  const present = values.filter((v) => v !== null);
  if (present.length === 0) return { name: 'null' };
  const kinds = new Set(present.map((v) => (typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'str' : Array.isArray(v) ? 'list' : Object.keys(v)[0])));
  if ([...kinds].every((k) => k === 'i' || k === 'f')) {
    // Float32 only when every float is one (the document's flag, or each value's width w: 32).
    if (kinds.has('f')) return { name: !kinds.has('i') && present.every((v) => float32 || v.w === 32) ? 'float32' : 'float64' };
    const ints = present.map((v) => BigInt(v.i));
    if (ints.every((x) => x >= -(2n ** 31n) && x < 2n ** 31n)) return { name: 'int32' };
    if (ints.some((x) => x >= 2n ** 63n)) return { name: ints.some((x) => x < 0n) ? 'type-mismatch' : 'uint64' };
    return { name: 'int64' };
  }
  if (kinds.size !== 1) return { name: `type-mismatch(${[...kinds]})` };
  switch ([...kinds][0]!) {
    case 'bool': return { name: 'bool' };
    case 'str': return { name: 'utf8' };
    case 'b': return { name: 'binary' };
    case 't': return { name: 'timestamp[ns]' };
    case 'list': {
      const item = inferType(present.flat(), float32);
      return { name: `list<${item.name}>`, item };
    }
    case 's': {
      const keys = [...new Set(present.flatMap((v) => (v.s as [string, Json][]).map(([k]) => k)))];
      const fields = keys.map((key) => [key, inferType(present.map((v) => member(v, key)), float32)] as [string, TypeNode]);
      return { name: `struct<${fields.map(([k, t]) => `${k}:${t.name}`).join(',')}>`, fields };
    }
    default: return { name: `unknown(${[...kinds][0]})` };
  }
}

/** A writer's value as the column of type `t` holds it: ints in a Float64 column converted `as f64`. */
function coerce(v: Json, t: TypeNode): Json {
  if (v === null) return null;
  if (t.name === 'float64' && typeof v === 'object' && 'i' in v) {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(Number(BigInt(v.i)));
    return { f: b.toString('hex') };
  }
  if (t.item && Array.isArray(v)) return v.map((x) => coerce(x, t.item!));
  if (t.fields && typeof v === 'object' && 's' in v) return { s: t.fields.filter(([k]) => (v.s as [string, Json][]).some(([n]) => n === k)).map(([k, ft]) => [k, coerce(member(v, k), ft)]) };
  return v;
}

/** The table docs/msgpack.md says the reference rows decode to: column name → type and values. */
function expectedColumns(rows: Json[], float32: boolean): { name: string; type: string; values: Json[] }[] {
  const isRecord = (r: Json) => r !== null && typeof r === 'object' && !Array.isArray(r) && 's' in r;
  const column = (name: string, values: Json[], t: TypeNode) => ({ name, type: t.name, values: values.map((v) => coerce(v, t)) });
  if (rows.length > 0 && rows.every((r) => r === null || isRecord(r)) && rows.some(isRecord)) {
    const keys = [...new Set(rows.flatMap((r) => (r ? (r.s as [string, Json][]).map(([k]) => k) : [])))];
    return keys.map((k) => {
      const values = rows.map((r) => (r ? member(r, k) : null));
      return column(k, values, inferType(values, float32));
    });
  }
  const t: TypeNode = rows.length === 0 ? { name: 'null' } : inferType(rows, float32);
  // Rows that are arrays of one item type, all present and of one length n ≥ 1: FixedSizeList.
  if (rows.length > 0 && t.item && rows.every((r) => Array.isArray(r))) {
    const n = (rows[0] as Json[]).length;
    if (n >= 1 && rows.every((r: Json[]) => r.length === n)) return [column('value', rows, { ...t, name: `fsl${n}<${t.item!.name}>` })];
  }
  return [column('value', rows, t)];
}

/** Whether a column of type `t` would hold an int that Float64 cannot hold exactly (docs/msgpack.md: a typed error, never a rounding). */
function inexact(values: Json[], t: TypeNode): boolean {
  const present = values.filter((v) => v !== null && typeof v === 'object');
  if (t.name === 'float64') return present.some((v) => 'i' in v && BigInt(Number(BigInt(v.i))) !== BigInt(v.i));
  if (t.item) return inexact(present.filter((v) => Array.isArray(v)).flat(), t.item);
  if (t.fields) return t.fields.some(([k, ft]) => inexact(present.filter((v) => 's' in v).map((v) => member(v, k)), ft));
  return false;
}

/** Whether the reference rows mix floats with ints past 2^53 in one Float64 column (records per key). */
function needsExactRefusal(rows: Json[], float32: boolean): boolean {
  const isRecord = (r: Json) => r !== null && typeof r === 'object' && !Array.isArray(r) && 's' in r;
  if (rows.length > 0 && rows.every((r) => r === null || isRecord(r)) && rows.some(isRecord)) {
    const keys = [...new Set(rows.flatMap((r) => (r ? (r.s as [string, Json][]).map(([k]) => k) : [])))];
    return keys.some((k) => {
      const values = rows.map((r) => (r ? member(r, k) : null));
      return inexact(values, inferType(values, float32));
    });
  }
  return rows.length > 0 && inexact(rows, inferType(rows, float32));
}

async function checkMsgpack(dir: string, j: Json, root: string, out: Outcome): Promise<void> {
  const bytes = new Uint8Array(readFileSync(join(dir, j.file)));
  let t: Table;
  const exact = needsExactRefusal(j.rows, !!j.float32);
  if (j.refuse) {
    // Two documented refusals in one document: either may come first.
    if (exact) {
      try {
        decodeMsgpack(bytes);
      } catch (e) {
        if ((e as { code?: string }).code === 'type-mismatch' && /exactly/.test((e as Error).message)) {
          out.refused.push(`${j.file}: ints Float64 cannot hold exactly among floats`);
          return;
        }
      }
    }
    const p = await expectRefusal('msgpack', j.refuse, root, async () => decodeMsgpack(bytes));
    if (p === null) {
      out.refused.push(`${j.file}: ${j.refuse.doc}`);
      return;
    }
    if (typeof p === 'string') {
      out.problems.push(p);
      return;
    }
    t = p.rows;
  } else {
    try {
      t = decodeMsgpack(bytes);
    } catch (e) {
      // Ints past 2^53 among floats: docs/msgpack.md's typed error, the only right answer.
      if (exact && (e as { code?: string }).code === 'type-mismatch' && /exactly/.test((e as Error).message)) {
        out.refused.push(`${j.file}: ints Float64 cannot hold exactly among floats`);
        return;
      }
      out.problems.push(`decode: ${errText(e)}`);
      return;
    }
    if (exact) {
      // Arrays whose items no one column holds exactly read as tuples (docs/msgpack.md: a column
      // per position, a shorter array's last fields null), each position's column by the same rules.
      const n = Math.max(0, ...j.rows.map((r: Json) => (Array.isArray(r) ? r.length : 0)));
      const positional = n > 0 && j.rows.every((r: Json) => Array.isArray(r)) && t.schema.fields.map((x) => x.name).join(',') === [...Array(n).keys()].join(',');
      if (!positional) {
        out.problems.push('decoded a column mixing floats with ints Float64 cannot hold exactly (docs/msgpack.md: a type-mismatch error)');
        return;
      }
      const rows = tableRows(t);
      for (let k = 0; k < n; k++) {
        const values = j.rows.map((r: Json[]) => r[k] ?? null);
        const ty = inferType(values, !!j.float32);
        out.problems.push(...columnProblems(rows.getChild(String(k)), { type: ty.name, values: values.map((v: Json) => coerce(v, ty)) }, String(k), j.rows.length));
      }
      return;
    }
  }
  const cols = expectedColumns(j.rows, !!j.float32);
  if (t.numRows !== j.rows.length) out.problems.push(`${t.numRows} rows, the decoder's ${j.rows.length}`);
  const ours = t.schema.fields.map((x) => x.name);
  if (ours.join(',') !== cols.map((c) => c.name).join(',')) out.problems.push(`columns [${ours}], expected [${cols.map((c) => c.name)}]`);
  const rows = tableRows(t);
  for (const c of cols) out.problems.push(...columnProblems(rows.getChild(c.name), c, c.name, j.rows.length));
}

// ---------------------------------------------------------------- driver

const CHECKS: Record<string, (dir: string, j: Json, root: string, out: Outcome) => Promise<void>> = { hdf5: checkHdf5, tsfile: checkTsFile, msgpack: checkMsgpack };

/** Every `*.json` in `dir` checked; `tamper` changes one expected value first (the harness's own test). */
export async function checkDir(dir: string, root: string, tamper = false): Promise<Outcome[]> {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const out: Outcome[] = [];
  for (const n of names) {
    const j = JSON.parse(readFileSync(join(dir, n), 'utf8'));
    const o: Outcome = { format: j.format, file: n, ok: false, problems: [], refused: [], notes: [], values: 0, params: j.params };
    if (j.writer_crash) {
      o.skipped = `writer crashed (${j.writer_crash}) on ${JSON.stringify(j.datasets_tried ?? j.params)}`;
      out.push(o);
      continue;
    }
    if (tamper) flipOne(j);
    compared = 0;
    try {
      await CHECKS[j.format]!(dir, j, root, o);
    } catch (e) {
      o.problems.push(`checker: ${(e as Error).stack}`);
    }
    o.values = compared;
    o.ok = o.problems.length === 0;
    out.push(o);
  }
  return out;
}

/** Flip the lowest bit of the first int or float expected in the file (a deliberate wrong value). */
function flipOne(j: Json): boolean {
  const walk = (v: Json): boolean => {
    if (v === null || typeof v !== 'object') return false;
    if (!Array.isArray(v) && typeof v.i === 'string') {
      v.i = String(BigInt(v.i) ^ 1n);
      return true;
    }
    if (!Array.isArray(v) && typeof v.f === 'string') {
      const b = Buffer.from(v.f, 'hex');
      b[7]! ^= 1;
      v.f = b.toString('hex');
      return true;
    }
    return (Array.isArray(v) ? v : Object.values(v)).some(walk);
  };
  const values = j.format === 'hdf5' ? j.datasets.map((d: Json) => d.values ?? d.columns ?? null) : j.format === 'tsfile' ? j.reads.map((r: Json) => r.devices) : j.rows;
  return walk(values);
}
