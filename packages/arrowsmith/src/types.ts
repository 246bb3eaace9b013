/**
 * Types shared by the format readers, the Arrow assembly and the pool protocol. This module
 * imports nothing, so any module may use it without an import cycle.
 */

/** A point in time as a query bound: a number or bigint in the file's unit, or a Date (ms). */
export type TimeValue = number | bigint | Date;

/** What every read accepts. */
export interface ReadOptions {
  /** Cancels the read: it rejects with `signal.reason` (on a pool, busy workers are replaced). */
  signal?: AbortSignal;
}

/** What every read of a file (TsFile, HDF5) accepts. */
export interface FileReadOptions extends ReadOptions {
  /**
   * The memory this read may take, in bytes (its output and working buffers, as the file's
   * own sizes and counts claim them). A read that needs more fails fast with a
   * `DecodeError` of code `too-large` naming the bytes it needs. Default: the file's
   * `maxReadBytes` from the open, else 1 GiB.
   */
  maxReadBytes?: number;
}

/**
 * One dimension of an HDF5 selection (`read(path, { select })`), as in h5py's
 * `ds[10:20, ::2, 5]`: an index (the result drops the dimension, like `ds[5]`),
 * `[start, count, step?]` (`count` elements from `start`, `step` apart, default 1; the
 * result keeps the dimension), or `null`/`undefined` (the whole dimension, `ds[:]`).
 */
export type Hdf5Select = number | readonly [start: number, count: number, step?: number] | null | undefined;

export interface TsFileQuery extends FileReadOptions {
  /** v4 table name (default: the only table, or the tree-model devices). */
  table?: string;
  /** Device paths to read (default: all). A path not in the file is a `not-found` DecodeError. */
  devices?: string[];
  /** Field columns to read (default: all); `time` and tag columns always come along. */
  columns?: string[];
  /** Inclusive time range, in the file's time unit (ms unless the writer chose another). */
  start?: TimeValue;
  end?: TimeValue;
  /** Equality filter per tag column. */
  tags?: Record<string, string>;
  /** At most this many rows. */
  limit?: number;
  /**
   * Unit of the `time` and TIMESTAMP columns' Arrow type (the values are the file's; the file
   * does not record a unit). Default 'ms'. A read whose values apache-arrow could not turn into
   * JS numbers in this unit (beyond ±(2^53 − 1) after its conversion) fails with a DecodeError
   * ('unsupported') naming the value; in 'ns' every int64 is readable.
   */
  timeUnit?: 's' | 'ms' | 'us' | 'ns';
}

/** Fixed-width column types (their byte width is in the pool's layout table). */
export type FixedWidthType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'date32'
  | 'timestamp';

/** Every column type the wasm side describes (`describe.rs` in the core crate). */
export type ColumnType = FixedWidthType | 'null' | 'bool' | 'utf8' | 'binary' | 'list' | 'fixedsizelist' | 'struct' | 'map' | 'dictionary';

/** One column of a decoded batch as the wasm side describes it (buffers by index). */
export interface ColumnDesc {
  type: ColumnType;
  unit?: 's' | 'ms' | 'us' | 'ns';
  size?: number;
  len: number;
  nulls: number;
  validity: number;
  buffers: number[];
  children: FieldDesc[];
}
export interface FieldDesc {
  name: string;
  nullable: boolean;
  col: ColumnDesc;
}
export interface BatchDesc {
  rows: number;
  fields: FieldDesc[];
}

/** What the wasm boundary hands out for one decoded batch. */
export interface WasmBatchHandle {
  schema(): string;
  buffers(): Uint32Array;
  numRows(): number;
  free(): void;
}
