/** The public types of the HDF5 reader: entries, datatypes, descriptions, options. */
import type { OpenOptions } from '../../file/reader.js';
import type { FileSource } from '../../io/source.js';
import type { FileReadOptions, Hdf5Select } from '../../types.js';

export interface Hdf5Entry {
  name: string;
  kind: 'group' | 'dataset' | 'datatype' | 'link';
  shape: number[];
  dtype: string;
  /** The object's header address: two entries with the same address are the same object (absent for links that do not resolve). */
  addr?: number;
  /** Its creation order, when the group tracks it (netCDF-4, h5py's `track_order`): viewers list members in that order, else by name. */
  order?: number;
  /** A link that does not resolve in this file: `file:/path` of an external link, the target of a dangling soft link. */
  target?: string;
  /**
   * A dataset (or committed datatype) this reader cannot read, and why, in words (`filter
   * id 32026 (blosc2) is not supported`, `external storage (…)`); its `info` says the same
   * and reading it is an `unsupported` DecodeError. Absent when it reads.
   */
  unsupported?: string;
  /** How the group links it when not by a hard link (a soft link is listed as what it points to when that exists). */
  link?: { class: 'soft'; path: string } | { class: 'external'; file: string; path: string };
}

/** An HDF5 datatype as the file declares it (`describe`). */
export type Hdf5Type =
  /** `offset`/`precision` (bits): an N-bit integer that does not fill its bytes. */
  | { class: 'int'; size: number; signed: boolean; be: boolean; offset?: number; precision?: number }
  /** `ieee` false: a custom bit layout (decoded field by field). */
  | { class: 'float'; size: number; be: boolean; ieee: boolean }
  | { class: 'complex'; base: Hdf5Type }
  /** `size` null: variable-length. `pad`: 0 null-terminated, 1 null-padded, 2 space-padded. */
  | { class: 'string'; size: number | null; utf8: boolean; pad: number }
  | { class: 'bitfield'; size: number; be: boolean }
  | { class: 'opaque'; size: number; tag: string }
  | { class: 'time'; size: number }
  | { class: 'compound'; members: { name: string; offset: number; type: Hdf5Type }[] }
  | { class: 'reference'; region: boolean }
  | { class: 'enum'; base: Hdf5Type; members: { name: string; value: number }[] }
  | { class: 'vlen'; base: Hdf5Type }
  | { class: 'array'; dims: number[]; base: Hdf5Type };

/** Everything an object's header says (`describe`): what viewers such as h5web show. */
export interface Hdf5Description {
  kind: 'group' | 'dataset' | 'datatype';
  /** Datasets and committed datatypes (null when the datatype is one this reader does not parse). */
  type: Hdf5Type | null;
  /** A dataset's dimensions (`[]` scalar); null for the null dataspace and non-datasets. */
  dims: number[] | null;
  chunks: number[] | null;
  /** The filter pipeline with each filter's parameters as stored. */
  filters: { id: number; name: string; cdValues: number[] }[];
  /** Attributes, in creation order when the object tracks it (else as stored); `dims` null for the null dataspace. */
  attributes: { name: string; type: Hdf5Type; dims: number[] | null }[];
  /** The object tracks its attributes' creation order: viewers list them in that order, else by name. */
  attributesInCreationOrder: boolean;
  /** A virtual dataset's source per mapping, as stored (`file` `.`: this file); null for other datasets. */
  virtualSources: { file: string; path: string }[] | null;
  /** The files holding a dataset's raw data (external storage), as stored; null when it is in this file. */
  externalFiles: string[] | null;
}
export interface Hdf5DatasetInfo {
  shape: number[];
  maxshape: (number | null)[];
  dtype: string;
  elementSize: number;
  layout: string;
  layoutVersion: number;
  chunks: number[] | null;
  chunkIndex: string | null;
  filters: string[];
  /** The columns a read returns (none when the datatype is one this reader cannot decode). */
  fields: string[];
  /** What this reader cannot read in the dataset, in words; null when it reads. */
  unsupported: string | null;
}
export interface Hdf5ReadOptions extends FileReadOptions {
  /** First row (along the first dimension). Default 0. Not with `select`. */
  start?: number;
  /** Number of rows. Default: to the end. Not with `select`. */
  count?: number;
  /**
   * A hyperslab, one entry per dimension (see {@link Hdf5Select}), as h5py's
   * `ds[10:20, ::2, 5]` is `[[10, 10], [0, n / 2, 2], 5]`. Only the chunks it touches are
   * read. The table is the result's shape mapped as a dataset of that shape is: rows along
   * the first kept dimension, a FixedSizeList per later one (no dimension kept: one row),
   * and the schema's metadata `shape` holds the result's dimensions as JSON (`"[10,3]"`).
   * A selection that does not fit the dataset (wrong rank, past the end, a step of 0, a
   * negative or fractional number) is a `DecodeError` of code `argument`.
   */
  select?: readonly Hdf5Select[];
}

export interface Hdf5BatchOptions extends FileReadOptions {
  /**
   * Rows per RecordBatch. Default: whole chunks, about 16 MiB a batch (see `batchRows`);
   * with `select`, about 16 MiB a batch.
   */
  rows?: number;
  /**
   * A hyperslab as `read` takes it: the batches cut its first kept dimension into `rows`
   * long pieces, each batch's metadata `shape` being its own (no dimension kept: one batch).
   */
  select?: readonly Hdf5Select[];
  /**
   * Lend the batches decoded on a pool (where shared memory exists): each batch is a view of
   * memory the next batches are written into, **valid only until the iterator advances**
   * (the loop's next turn): copy what you keep (`column.toArray().slice()`). It spares the
   * pool a fresh allocation for every batch and its garbage collection. Default `false`:
   * every batch is yours to keep. Batches read on this thread (no pool, or values stored as
   * Arrow holds them) are always yours.
   */
  lend?: boolean;
}

/**
 * Options of `openHdf5`: `pool` (row ranges, chunk-aligned, become parallel jobs), `signal`
 * (cancels the open), for a URL how it is fetched (timeout, retries), and `resolve`.
 */
export interface Hdf5Options extends OpenOptions {
  /**
   * Follows external links: called with the file name a link stores (as written, often
   * relative: `scan_0001.h5`), it gives that file's source (anything `openHdf5` takes) or
   * `undefined` if there is none (a `not-found` error). Linked files open once, with these
   * options, and close with this file. Without it, a path through an external link is an
   * `unsupported` DecodeError naming the file and the path there. The same resolver gives
   * the files of external storage (`H5Pset_external`: a dataset's raw data in other files,
   * read by range); without it, reading such a dataset is `unsupported` naming them.
   * Virtual datasets' sources in other files come through it too (a file it has not reads as
   * the fill value, as in libhdf5; without it, such a source is `unsupported`, naming the file
   * and dataset).
   */
  resolve?: (file: string) => FileSource | undefined | Promise<FileSource | undefined>;
}
