/** What the HDF5 reader's parts share: the wasm reader's type, the file core, linked files. */
import type { RecordBatch } from '../../arrow/lib.js';
import type { FileCore } from '../../file/core.js';
import type { FileReadOptions } from '../../types.js';
import type { Hdf5RowsOptions } from '../../../wasm/arrowsmith_hdf5.js';
import type { Glues } from '../../wasm/instance.js';
import type { Hdf5DatasetInfo } from './types.js';

/** The wasm-side reader (crates/wasm), as its generated types declare it. */
export type WasmHdf5Reader = InstanceType<Glues['hdf5']['Hdf5Reader']>;

/** An open HDF5 file's core (`file/core.ts`). */
export type Hdf5Core = FileCore<'hdf5', WasmHdf5Reader>;

/** What a wasm read covers (one options object): rows `start..start+count` or a selection, and its memory limit. */
export function window(start: number, count: number | undefined, maxReadBytes: number | undefined, select?: number[]): Hdf5RowsOptions {
  return { start, count, maxReadBytes, select: select && Float64Array.from(select) };
}

/** External links followed from one file to the next before giving up (a cycle of files). */
export const MAX_LINKED_DEPTH = 16;

/** What the parts of a read call back into the file for. */
export interface Hdf5Reads {
  readonly core: Hdf5Core;
  /** `info` of a dataset in this file (cached). */
  info(path: string, options?: { signal?: AbortSignal }): Promise<Hdf5DatasetInfo>;
  /** Rows `start..start+count` (or a selection) read on this thread. */
  readBatch(path: string, start: number, count: number | undefined, options: FileReadOptions, select?: number[]): Promise<RecordBatch>;
  /** Whether the dataset's raw data is in other files the resolver can reach. */
  external(info: Hdf5DatasetInfo): boolean;
}

/**
 * Output bytes of one row along the first dimension of `shape` (the dataset's by default). A
 * VL cell counts as four times its 16 bytes: its payload is unknown until read.
 */
export function rowBytes(info: Hdf5DatasetInfo, shape = info.shape): number {
  return shape.slice(1).reduce((a, b) => a * b, 1) * info.elementSize * (info.dtype.includes('vlen') ? 4 : 1);
}
