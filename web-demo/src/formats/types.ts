// One adapter per format behind one small interface: open → structure tree → read a
// selection → an Arrow Table. Adapters run inside the worker.
import type { RecordBatch, Table } from 'apache-arrow';
import type { FormatName } from '../sniff.js';

/** A node of the structure tree shown in the browser panel (plain data: crosses postMessage). */
export interface TreeNode {
  label: string;
  kind: 'group' | 'dataset' | 'attribute' | 'attributes' | 'table' | 'device' | 'measurement' | 'field' | 'info';
  /** Shape, dtype, Arrow type, attribute value... */
  detail?: string;
  /** Clicking the node makes it the thing to read (HDF5 dataset path, TsFile table). */
  path?: string;
  /** A column that can be ticked (MessagePack field, TsFile measurement). */
  column?: string;
  /** A TsFile device that can be ticked. */
  device?: string;
  children?: TreeNode[];
  /** Show the children folded (e.g. a long attribute list). */
  collapsed?: boolean;
}

/** What to read. Times are milliseconds since the epoch (the time filter of the chart). */
export interface Selection {
  path?: string;
  columns?: string[];
  devices?: string[];
  start?: number;
  end?: number;
  limit?: number;
  /** HDF5 hyperslab along the first dimension. */
  offset?: number;
}

export interface Opened {
  format: FormatName;
  tree: TreeNode[];
  /** What is read right after opening. */
  initial: Selection;
  /** The column the time-series chart uses as x (TsFile: "time"). */
  timeColumn?: string;
  /** Columns naming a series (TsFile tags): the chart draws one panel per combination. */
  seriesColumns?: string[];
  /** True when start/end are pushed into the reader (TsFile); else filtered after reading. */
  timeFilterPushed?: boolean;
  read(sel: Selection): Promise<Table>;
  /** A few lines about what the selection points at (HDF5 layout/chunks/filters, TsFile series). */
  describe?(sel: Selection): Promise<string | undefined>;
  close?(): void;
  /** One numeric series of the selection, streamed by batches (big files: never read whole). */
  series?(sel: Selection): Promise<Series>;
  /**
   * The whole selection (its row window, offset and limit, aside) batch by batch: what the SQL
   * panel streams into DuckDB. `total` is its row count where the metadata tells it.
   */
  batches?(sel: Selection, options: { signal: AbortSignal; rows?: number }): Promise<Batches>;
}

export interface Batches {
  total?: number;
  batches: AsyncIterable<RecordBatch>;
}

/**
 * A numeric series streamed batch by batch: x is the row number (HDF5) or the time (TsFile),
 * from x0 to x1 inclusive; `total` rows in all (for the progress bar).
 */
export interface Series {
  label: string;
  xKind: 'row' | 'time';
  x0: number;
  x1: number;
  total: number;
  /** Batches in order; `xs` undefined means rows numbered on from the previous batch. */
  batches(signal: AbortSignal): AsyncIterable<SeriesBatch>;
}

export interface SeriesBatch {
  rows: number;
  xs?: ArrayLike<number | bigint>;
  ys: ArrayLike<number>;
  /** Absent: every value is valid. */
  valid?: (i: number) => boolean;
}

export type Progress = (done: number, total: number) => void;

/** The file to open: TsFile and HDF5 readers take the Blob (ranged reads, no full copy); MessagePack reads all bytes. */
export interface FileInput {
  blob: Blob;
  bytes(): Promise<Uint8Array>;
}

export interface FormatAdapter {
  format: FormatName;
  open(file: FileInput, progress: Progress): Promise<Opened>;
}

/** A format the package build does not support yet: shown as a readable message. */
export class UnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedError';
  }
}
