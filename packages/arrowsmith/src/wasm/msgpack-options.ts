/**
 * The MessagePack decode options, passed whole to the wasm side's `MsgpackConfig` (on the
 * calling thread and in pool workers, so both decode alike; its `MsgpackConfigOptions` is
 * the boundary's type, which these options must satisfy).
 * docs/msgpack.md states the rule behind each option.
 */
import { wasmCall } from '../errors.js';
import type { Glues } from './instance.js';

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

/** Only the options that shape the decode (what a pool job carries). */
export function decodeOptions(o: MsgpackDecodeOptions = {}): MsgpackDecodeOptions {
  const { layout, maxDepth, fastPath, tuples, columns, columnar, maps, extensions, maxKeys, manyKeys } = o;
  return { layout, maxDepth, fastPath, tuples, columns, columnar, maps, extensions, maxKeys, manyKeys };
}

/**
 * The wasm config for `o` (the caller frees it): one object crosses, and the wasm side
 * validates it (a bad value is an `invalid` DecodeError naming the option). @internal
 */
export function msgpackConfig(glue: Glues['msgpack'], o: MsgpackDecodeOptions = {}): Config {
  return wasmCall(() => new glue.MsgpackConfig(o));
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
