/**
 * The MessagePack decode options and their mapping onto the wasm side's `MsgpackConfig`
 * (used on the calling thread and in pool workers, so both decode alike).
 * docs/msgpack.md states the rule behind each option.
 */
import type { Glues } from './wasm.js';

/** A built-in reading of an ext type (see `MsgpackOptions.extensions`). */
export type ExtReading = 'timestamp-ms' | 'timestamp-ns' | 'binary' | 'struct' | 'undefined' | 'eventtime';

/** What decides the table's shape; travels to pool workers as it is. */
export interface MsgpackDecodeOptions {
  /**
   * How top-level values map to rows. `auto` (default): one top-level array → its
   * elements are the rows; anything else → each top-level value is a row.
   */
  layout?: 'auto' | 'array' | 'stream';
  /** Nesting limit; deeper input is a DecodeError. Default 256. */
  maxDepth?: number;
  /** Set false to switch the SIMD/bulk fast paths off (for benchmarking). Default true. */
  fastPath?: boolean;
  /**
   * Rows that are arrays (tuples). `auto` (default): one List column (FixedSizeList when
   * every row has the same length) when one item type holds every element, else one
   * column per position. `columns`: always one column per position. `list`: always one
   * List/FixedSizeList column.
   */
  tuples?: 'auto' | 'columns' | 'list';
  /** Names of the positional columns, by position (implies `tuples: 'columns'`). */
  columns?: string[];
  /**
   * Default true: an input that is one map whose values are arrays of one length is a
   * table with one column per key. `false`: one row, as any other map.
   */
  columnar?: boolean;
  /**
   * `records` (default): maps become records, one column per key (int and bin keys by
   * their text). `map`: every map is an Arrow Map column and keys keep their type.
   */
  maps?: 'records' | 'map';
  /**
   * Readings of ext types by type code (0..127, or -128..-2), e.g. `{ 0: 'timestamp-ms' }`
   * for notepack.io Dates, `{ 13: 'timestamp-ms' }` for msgpack-lite Dates, `{ 0: 'eventtime' }`
   * for Fluentd's EventTime, `{ 0: 'undefined' }` for JavaScript `undefined` (fixext1 0/0 → null,
   * on by itself only in input with msgpackr records). Unlisted types are `struct`
   * ({type, data}); 114 is msgpackr's record extension unless listed.
   */
  extensions?: Record<number, ExtReading>;
  /** Distinct keys a records column may have before it becomes one Map column. Default 1024. */
  maxKeys?: number;
  /** Past `maxKeys`: `map` (default) one Map<Utf8, value> column; `error` a DecodeError. */
  manyKeys?: 'map' | 'error';
}

type Config = InstanceType<Glues['msgpack']['MsgpackConfig']>;

const LAYOUT = { auto: 0, array: 1, stream: 2 } as const;
const TUPLES = { auto: 0, columns: 1, list: 2 } as const;
const MAPS = { records: 0, map: 1 } as const;
const MANY_KEYS = { map: 0, error: 1 } as const;
const READINGS = { struct: 0, binary: 1, 'timestamp-ms': 2, 'timestamp-ns': 3, undefined: 4, eventtime: 5 } as const;

/** One of `table`'s keys, or a RangeError naming the option. */
function pick<T extends Record<string, number>>(table: T, value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Object.hasOwn(table, value)) throw new RangeError(`arrowsmith: ${name} must be one of ${Object.keys(table).map((k) => `'${k}'`).join(', ')}, not ${JSON.stringify(value)}`);
  return table[value as keyof T];
}

function count(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) throw new RangeError(`arrowsmith: ${name} must be a whole number from 0 to 2^32-1, not ${value}`);
  return value;
}

/** Only the options that shape the decode (what a pool job carries). */
export function decodeOptions(o: MsgpackDecodeOptions = {}): MsgpackDecodeOptions {
  const { layout, maxDepth, fastPath, tuples, columns, columnar, maps, extensions, maxKeys, manyKeys } = o;
  return { layout, maxDepth, fastPath, tuples, columns, columnar, maps, extensions, maxKeys, manyKeys };
}

/** The wasm config for `o` (the caller frees it). Invalid values are RangeErrors. @internal */
export function msgpackConfig(glue: Glues['msgpack'], o: MsgpackDecodeOptions = {}): Config {
  const layout = pick(LAYOUT, o.layout, 'layout');
  const tuples = pick(TUPLES, o.tuples, 'tuples');
  const maps = pick(MAPS, o.maps, 'maps');
  const manyKeys = pick(MANY_KEYS, o.manyKeys, 'manyKeys');
  const maxDepth = count(o.maxDepth, 'maxDepth');
  const maxKeys = count(o.maxKeys, 'maxKeys');
  const extensions = Object.entries(o.extensions ?? {}).map(([code, reading]) => {
    const c = Number(code);
    if (!Number.isInteger(c) || c < -128 || c > 127 || c === -1) throw new RangeError(`arrowsmith: extensions: ${code} is not an ext type (-128..127; -1, the timestamp, is built in)`);
    return [c, pick(READINGS, reading, `extensions[${code}]`)!] as const;
  });
  if (o.columns !== undefined && !(Array.isArray(o.columns) && o.columns.every((c) => typeof c === 'string'))) throw new TypeError('arrowsmith: columns must be an array of strings');
  const c = new glue.MsgpackConfig();
  if (layout !== undefined) c.layout(layout);
  if (o.fastPath !== undefined) c.fastPath(o.fastPath);
  if (maxDepth !== undefined) c.maxDepth(maxDepth);
  if (tuples !== undefined) c.tuples(tuples);
  for (const name of o.columns ?? []) c.column(name);
  if (o.columnar !== undefined) c.columnar(o.columnar);
  if (maps !== undefined) c.maps(maps);
  for (const [code, reading] of extensions) c.extension(code, reading);
  if (maxKeys !== undefined) c.maxKeys(maxKeys);
  if (manyKeys !== undefined) c.manyKeys(manyKeys);
  return c;
}

/** Run `f` with the wasm config of `o`, freed after. @internal */
export function withConfig<T>(glue: Glues['msgpack'], o: MsgpackDecodeOptions | undefined, f: (c: Config) => T): T {
  const c = msgpackConfig(glue, o);
  try {
    return f(c);
  } finally {
    c.free();
  }
}
