/** The public types of the TsFile reader: schemas, devices, series, options. */
import type { OpenOptions } from '../../file/reader.js';
import type { ByteInput } from '../../io/source.js';
import type { TsFileQuery } from '../../types.js';

export interface TsFileColumn {
  name: string;
  type: string;
  category: 'TAG' | 'FIELD' | 'ATTRIBUTE' | 'TIME';
  encoding: string | null;
  compression: string | null;
}
export interface TsFileTable {
  name: string;
  columns: TsFileColumn[];
}
export interface TsFileDevice {
  table: string;
  path: string;
  segments: (string | null)[];
  tags: (string | null)[];
}
export interface TsFileSeries {
  device: string;
  measurement: string;
  type: string;
  aligned: boolean;
  encoding: string | null;
  compression: string | null;
  count: number;
  start: bigint;
  end: bigint;
  chunks: number;
}

/**
 * Options of `openTsFile`: `pool` (devices and time slices become parallel jobs), `signal`
 * (cancels the open), and for a URL how it is fetched (timeout, retries).
 */
export interface TsFileOptions extends OpenOptions {
  /**
   * IoTDB deletions kept beside the file (`<file>.mods2` of IoTDB 2.x, `<file>.mods` of 1.x):
   * their bytes or a source for them. Every read then hides the deleted points, as IoTDB's
   * queries do. Without it, reads return the file as written.
   */
  mods?: ByteInput;
}

/** Options of `TsFile.batches`: a query and the most rows a batch holds. */
export interface TsFileBatchQuery extends TsFileQuery {
  /** Most rows per RecordBatch. Default: about 16 MiB of output (see `tsfileBatchRows`). */
  rows?: number;
  /**
   * Lend the batches (a file read on a pool, where shared memory exists): each batch is a
   * view of memory the next batches are written into, **valid only until the iterator
   * advances** (the loop's next turn): copy what you keep (`column.toArray().slice()`).
   * It spares the pool a fresh allocation for every batch and its garbage collection, the
   * larger part of its cost besides decoding when a whole big file is streamed. Default
   * `false`: every batch is yours to keep. On one thread batches are always yours.
   */
  lend?: boolean;
}
