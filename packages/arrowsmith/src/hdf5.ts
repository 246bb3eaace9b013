/** HDF5 → Arrow: open a file (memory, Blob or URL), browse groups, read datasets. */
import { RecordBatch, Schema, Table, type Vector } from './arrow-lib.js';
import { abortable } from './abort.js';
import { assemble } from './arrow.js';
import { FileReaderBase, type ByteHost, type OpenOptions } from './filereader.js';
import { DecodeError, SchemaMismatch } from './errors.js';
import type { Job } from './pool/protocol.js';
import { toRangeReader, wholeBytes, type FileSource, type Source } from './source.js';
import type { BatchDesc, ColumnDesc, FileReadOptions, Hdf5Select, ReadOptions, WasmBatchHandle } from './types.js';
import { instanceAsync, type Loaded } from './wasm.js';

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

/** Bytes a default batch holds: whole chunks (at least one) up to about this. */
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Default rows per batch: a multiple of the chunk's rows along the first dimension (so every
 * chunk is decoded by one batch), about BATCH_BYTES of output. A VL cell counts as four
 * times its size (its payload is unknown until read).
 */
export function batchRows(info: Hdf5DatasetInfo): number {
  const rowBytes = info.shape.slice(1).reduce((a, b) => a * b, 1) * info.elementSize * (info.dtype.includes('vlen') ? 4 : 1);
  const grid = info.layout === 'chunked' && info.chunks?.length ? info.chunks[0]! : 1;
  return grid * Math.max(1, Math.floor(BATCH_BYTES / Math.max(1, grid * rowBytes)));
}

/** Batches of a stored-as-is dataset fetched ahead of the consumer: at most this many... */
const AHEAD_BATCHES = 4;
/** ...and about this many bytes (at least one batch). */
const AHEAD_BYTES = 48 * 1024 * 1024;

const NUMBERS = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64']);

/** A column of numbers without nulls (in FixedSizeLists without nulls): one buffer, the values. */
function plainColumn(c: ColumnDesc): boolean {
  if (c.validity >= 0) return false;
  if (c.type === 'fixedsizelist') return c.children.length === 1 && plainColumn(c.children[0]!.col);
  return NUMBERS.has(c.type) && c.buffers.length === 1 && c.buffers[0] === 0;
}

/** A column description for `rows` rows (a FixedSizeList's child: `size` values a row). */
function sized(c: ColumnDesc, rows: number): ColumnDesc {
  if (c.type !== 'fixedsizelist') return { ...c, len: rows };
  const child = c.children[0]!;
  return { ...c, len: rows, children: [{ ...child, col: sized(child.col, rows * c.size!) }] };
}

/** An `argument` DecodeError: the call's selection does not fit. */
const argument = (message: string) => new DecodeError('HDF5', undefined, 'argument', message);

/**
 * A selection as the wasm reader takes it: `[start, count, step]` per dimension, where a
 * count of -1 is the index `start` and -2 the whole dimension. Numbers are checked here
 * (non-negative integers); ranks, bounds and steps of 0 by the reader.
 */
export function selectSpec(select: readonly Hdf5Select[]): number[] {
  if (!Array.isArray(select)) throw argument('select must be an array with one entry per dimension');
  const out: number[] = [];
  const num = (v: unknown, k: number, what: string) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw argument(`select[${k}]: the ${what} ${String(v)} is not a non-negative integer`);
    return v;
  };
  for (let k = 0; k < select.length; k++) {
    const e = select[k];
    if (e === null || e === undefined) out.push(0, -2, 0);
    else if (typeof e === 'number') out.push(num(e, k, 'index'), -1, 0);
    else if (Array.isArray(e) && (e.length === 2 || e.length === 3)) out.push(num(e[0], k, 'start'), num(e[1], k, 'count'), num(e[2] ?? 1, k, 'step'));
    else throw argument(`select[${k}]: expected an index, [start, count, step?] or null`);
  }
  return out;
}

/** The result shape of a selection the reader has accepted, on a dataset of `dims`. */
function resultShape(spec: number[], dims: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; 3 * k < spec.length; k++) {
    const c = spec[3 * k + 1]!;
    if (c === -2) out.push(dims[k]!);
    else if (c >= 0) out.push(c);
  }
  return out;
}

/** The first dimension a selection keeps and its count there, or undefined (all indexes). */
function firstKept(spec: number[], dims: number[]): { k: number; n: number } | undefined {
  for (let k = 0; 3 * k < spec.length; k++) {
    const c = spec[3 * k + 1]!;
    if (c !== -1) return { k, n: c === -2 ? dims[k]! : c };
  }
  return undefined;
}

/** The selection narrowed to positions `from..from+n` of its kept dimension `k`. */
function narrowed(spec: number[], k: number, from: number, n: number): number[] {
  const out = spec.slice();
  const all = out[3 * k + 1] === -2;
  const start = all ? 0 : out[3 * k]!;
  const step = all ? 1 : out[3 * k + 2]!;
  out[3 * k] = start + from * step;
  out[3 * k + 1] = n;
  out[3 * k + 2] = step;
  return out;
}

/** `schema` with the metadata `shape` (JSON of the result's dimensions). */
function shaped(schema: Schema, shape: number[]): Schema {
  const meta = new Map(schema.metadata);
  meta.set('shape', JSON.stringify(shape));
  return new Schema(schema.fields, meta);
}

/** `b` with the schema metadata `shape`. */
function withShape(b: RecordBatch, shape: number[]): RecordBatch {
  return new RecordBatch(shaped(b.schema, shape), b.data);
}

/** `t` with the schema metadata `shape`. */
function tableWithShape(t: Table, shape: number[]): Table {
  const schema = shaped(t.schema, shape);
  return new Table(schema, t.batches.map((b) => new RecordBatch(schema, b.data)));
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

/** External links followed from one file to the next before giving up (a cycle of files). */
const MAX_LINKED_DEPTH = 16;

/** The wasm-side reader (crates/wasm) as this module calls it. */
interface WasmHdf5Reader {
  supply(offset: number, bytes: Uint8Array): void;
  clearCache(): void;
  free(): void;
  open(): void;
  list(path: string): string;
  info(path: string): string;
  describe(path: string): string;
  attrs(path: string): WasmBatchHandle[];
  externalRanges(path: string, start: number, count: number | undefined, select?: Float64Array): string;
  readExternal(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined, raw: Uint8Array, select?: Float64Array): WasmBatchHandle;
  plan(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined, select?: Float64Array): Float64Array;
  read(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined, select?: Float64Array): WasmBatchHandle;
  readFrom(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined, host: ByteHost, select?: Float64Array): WasmBatchHandle;
  externalLink(path: string): string;
  directRanges(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined): Float64Array;
  readVirtual(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined, host: ByteHost | undefined, select?: Float64Array): WasmBatchHandle | undefined;
  virtualNeeds(): string;
  supplySourceInfo(file: string, dataset: string, dims: Float64Array | undefined, dtype: string, elementSize: number): void;
  supplySourceRows(file: string, dataset: string, start: number, count: number, bytes: Uint8Array): void;
  clearSources(): void;
  sourceInfo(path: string): string;
  readRawRows(path: string, start: number, count: number, maxReadBytes: number | undefined, host: ByteHost | undefined): Uint8Array;
}

/** What a virtual dataset's read asks of a source in another file: its shape and type, or rows of it. */
interface SourceNeed {
  file: string;
  dataset: string;
  start?: number;
  count?: number;
}

/** Rounds of a virtual read: shapes and types, then rows, then the read (one spare). */
const VIRTUAL_ROUNDS = 4;

/**
 * Arrow cell values as plain JS: lists → arrays, structs → objects, at every depth. (Struct
 * rows are proxies whose `in` sees only field names, so methods are looked up by access.)
 */
function plain(v: unknown): unknown {
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
    const o = v as { toArray?: unknown; toJSON?: unknown };
    if (typeof o.toArray === 'function' && Symbol.iterator in v) return [...(v as Iterable<unknown>)].map(plain);
    if (typeof o.toJSON === 'function') return Object.fromEntries(Object.entries((o.toJSON as () => object).call(v)).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

export class Hdf5File extends FileReaderBase {
  /** @internal */
  protected override readonly format = 'HDF5';
  /** @internal */
  protected override get handle(): WasmHdf5Reader {
    return super.handle as WasmHdf5Reader;
  }
  /** Dataset info by path (the file is read-only, so it never changes). */
  #infos = new Map<string, Promise<Hdf5DatasetInfo>>();
  #options: Hdf5Options = {};
  /** Files opened to follow external links and virtual datasets' sources, by the name stored (`undefined`: the resolver has none). */
  #linked = new Map<string, Promise<Hdf5File | undefined>>();
  /** External links followed to reach this file. */
  #depth = 0;
  /** Files holding external storage (raw data of datasets), by the name the file stores. */
  #extFiles = new Map<string, Promise<Source>>();

  static async open(source: FileSource, options?: Hdf5Options): Promise<Hdf5File> {
    return Hdf5File.openWith(await instanceAsync('hdf5'), source, options);
  }

  /** Open with a given module instance (benchmarks compare the SIMD and scalar builds). @internal */
  static async openWith(wasm: Loaded<'hdf5'>, source: FileSource, options: Hdf5Options = {}): Promise<Hdf5File> {
    // An in-memory file is not copied whole: a read asks for the metadata, cells and heap
    // ranges it needs (a few coalesced copies), see readBatch.
    const make = (w: Loaded<'hdf5'>, size: number) => new w.glue.Hdf5Reader(size) as unknown as WasmHdf5Reader;
    const p = await FileReaderBase.prepare(wasm, source, make, { who: 'openHdf5', format: 'HDF5', http: options });
    const f = new Hdf5File(p);
    f.#options = { ...options, signal: undefined };
    return f.setUp(options, () => f.openReader((h: WasmHdf5Reader) => h.open(), options.signal));
  }

  /**
   * Where `path` leads when reading it here failed with `e`: the linked file and the path in
   * it, if the path goes through an external link (otherwise `e` stands).
   */
  async #across(path: string, e: unknown, signal?: AbortSignal): Promise<{ file: Hdf5File; path: string }> {
    if (!(e instanceof DecodeError && e.code === 'unsupported')) throw e;
    const json = await this.op(() => this.call(() => this.handle.externalLink(path), signal));
    if (!json) throw e;
    const link = JSON.parse(json) as { file: string; path: string };
    const resolve = this.#options.resolve;
    if (!resolve) throw e;
    if (this.#depth >= MAX_LINKED_DEPTH) throw new DecodeError('HDF5', undefined, 'too-deep', `${path}: more than ${MAX_LINKED_DEPTH} external links in a row`);
    const file = await abortable(signal, () => this.#linkedFile(link.file, resolve));
    if (!file) throw new DecodeError('HDF5', undefined, 'not-found', `${path}: external link to ${link.file}:${link.path}, which the resolver does not have`);
    return { file, path: link.path };
  }

  /** The file `name` (as a link or mapping stores it), opened once through `resolve`; `undefined` if the resolver has none. */
  #linkedFile(name: string, resolve: NonNullable<Hdf5Options['resolve']>): Promise<Hdf5File | undefined> {
    let file = this.#linked.get(name);
    if (!file) {
      file = (async () => {
        const source = await resolve(name);
        if (source === undefined || source === null) return undefined;
        const f = await Hdf5File.open(source, this.#options);
        f.#depth = this.#depth + 1;
        return f;
      })();
      this.#linked.set(name, file);
      file.catch(() => this.#linked.delete(name));
    }
    return file;
  }

  /** `own()`, or for a path through an external link `other` on the linked file. */
  async #via<T>(path: string, signal: AbortSignal | undefined, own: () => Promise<T>, other: (f: Hdf5File, path: string) => Promise<T>): Promise<T> {
    try {
      return await own();
    } catch (e) {
      const to = await this.#across(path, e, signal);
      return other(to.file, to.path);
    }
  }

  /** Children of a group: name, kind, shape, dtype (and a link's target). */
  list(path = '/', options: ReadOptions = {}): Promise<Hdf5Entry[]> {
    return this.#via(
      path,
      options.signal,
      () => abortable(options.signal, () => this.op(async () => JSON.parse(await this.call(() => this.handle.list(path), options.signal)))),
      (f, p) => f.list(p, options),
    );
  }

  /** A dataset's shape, dtype, layout, chunking and filters. */
  info(path: string, options: ReadOptions = {}): Promise<Hdf5DatasetInfo> {
    return this.#via(path, options.signal, () => this.#info(path, options), (f, p) => f.info(p, options));
  }

  /** `info` of a dataset in this file. */
  #info(path: string, options: ReadOptions = {}): Promise<Hdf5DatasetInfo> {
    return abortable(options.signal, async () => {
      let p = this.#infos.get(path);
      if (!p) {
        p = this.op(() => this.call(() => this.handle.info(path))).then((s) => JSON.parse(s) as Hdf5DatasetInfo);
        this.#infos.set(path, p);
        p.catch(() => this.#infos.delete(path));
      }
      // A copy each time: callers may modify what they get.
      return structuredClone(await p);
    });
  }

  /** Everything the header of a group, dataset or committed datatype says: type tree, dims, chunks, filters, attributes' types. */
  describe(path: string, options: ReadOptions = {}): Promise<Hdf5Description> {
    return this.#via(
      path,
      options.signal,
      () => abortable(options.signal, () => this.op(async () => JSON.parse(await this.call(() => this.handle.describe(path), options.signal)) as Hdf5Description)),
      (f, p) => f.describe(p, options),
    );
  }

  /**
   * Attributes as Arrow vectors, by name (the values exactly as stored: 64-bit integers as
   * BigInt, compounds as Structs, arrays' later dimensions as FixedSizeLists).
   */
  attrColumns(path = '/', options: ReadOptions = {}): Promise<Map<string, Vector>> {
    return this.#via(
      path,
      options.signal,
      () => abortable(options.signal, () => this.op(async () => {
        const handles = await this.call(() => this.handle.attrs(path), options.signal);
        const out = new Map<string, Vector>();
        for (const h of handles) {
          const b = this.batch(h);
          out.set(b.schema.fields[0]!.name, b.getChildAt(0)!);
        }
        return out;
      })),
      (f, p) => f.attrColumns(p, options),
    );
  }

  /** Attributes of a group or dataset: scalars as values, arrays as arrays. */
  attrs(path = '/', options: ReadOptions = {}): Promise<Record<string, unknown>> {
    return this.#via(path, options.signal, () => this.#attrs(path, options), (f, p) => f.attrs(p, options));
  }

  #attrs(path: string, options: ReadOptions): Promise<Record<string, unknown>> {
    return abortable(options.signal, () => this.op(async () => {
      const handles = await this.call(() => this.handle.attrs(path), options.signal);
      const out: Record<string, unknown> = {};
      for (const h of handles) {
        const b = this.batch(h);
        const field = b.schema.fields[0]!;
        const col = b.getChildAt(0)!;
        out[field.name] = col.length === 1 ? plain(col.get(0)) : [...col].map(plain);
      }
      return out;
    }));
  }

  /**
   * Rows of a dataset as an Arrow Table: a compound → one column per member; any other
   * type → one column named after the dataset; trailing dimensions → FixedSizeList. With
   * `select`, an N-D hyperslab mapped the same way by the result's shape (schema metadata
   * `shape`; see `Hdf5ReadOptions.select`).
   */
  read(path: string, options: Hdf5ReadOptions = {}): Promise<Table> {
    return this.#via(path, options.signal, () => this.#read(path, options), (f, p) => f.read(p, options));
  }

  #read(path: string, options: Hdf5ReadOptions): Promise<Table> {
    return abortable(options.signal, async () => {
      if (options.select) return this.#readSelect(path, options);
      if (await this.#isVirtual(path)) return new Table([await this.#virtualBatch(path, options.start ?? 0, options.count, options)]);
      if (this.pooled && !(this.#options.resolve && this.#external(await this.#info(path)))) {
        const jobs = await this.#jobs(path, options.start ?? 0, options.count, this.readLimit(options.maxReadBytes));
        if (jobs) {
          try {
            return await this.pooled.pool.table(jobs, { signal: options.signal });
          } catch (e) {
            if (!(e instanceof SchemaMismatch)) throw e;
          }
        }
      }
      return new Table([await this.readBatch(path, options.start ?? 0, options.count, options)]);
    });
  }

  /** `read` of a selection: on a pool, its first kept dimension cut into jobs. */
  async #readSelect(path: string, options: Hdf5ReadOptions): Promise<Table> {
    if (options.start !== undefined || options.count !== undefined) throw argument(`${path}: start and count do not go with select`);
    const spec = selectSpec(options.select!);
    const info = await this.#info(path);
    const shape = () => resultShape(spec, info.shape);
    if (info.layout === 'virtual') return tableWithShape(new Table([await this.#virtualBatch(path, 0, undefined, options, spec)]), shape());
    if (this.pooled && !this.#external(info)) {
      const jobs = this.#selectJobs(path, info, spec, this.readLimit(options.maxReadBytes));
      if (jobs) {
        try {
          return tableWithShape(await this.pooled.pool.table(jobs, { signal: options.signal }), shape());
        } catch (e) {
          if (!(e instanceof SchemaMismatch)) throw e;
        }
      }
    }
    return tableWithShape(new Table([await this.readBatch(path, 0, undefined, options, spec)]), shape());
  }

  /**
   * Parallel jobs of a selection: its first kept dimension cut into pieces starting at
   * chunk boundaries where the step allows (so a chunk is rarely inflated twice).
   * Undefined when one thread should read it (nothing kept, a small read, or a selection
   * of the wrong rank: the single-thread path gives the answer or error).
   */
  #selectJobs(path: string, info: Hdf5DatasetInfo, spec: number[], maxReadBytes: number | undefined): Job[] | undefined {
    const { pool, ref } = this.pooled!;
    const kept = spec.length === 3 * info.shape.length ? firstKept(spec, info.shape) : undefined;
    if (!kept) return undefined;
    const { k, n } = kept;
    const rowBytes = resultShape(spec, info.shape).slice(1).reduce((a, b) => a * b, 1) * info.elementSize * (info.dtype.includes('vlen') ? 4 : 1);
    const pieces = Math.min(pool.pieces(n * rowBytes, pool.size), n);
    if (pieces < 2) return undefined;
    const all = spec[3 * k + 1] === -2;
    const start = all ? 0 : spec[3 * k]!;
    const step = all ? 1 : spec[3 * k + 2]!;
    const grid = (info.layout === 'chunked' && info.chunks?.[k]) || 1;
    const cuts = [0];
    for (let i = 1; i < pieces; i++) {
      const at = Math.floor((start + Math.floor((n * i) / pieces) * step) / grid) * grid;
      const p = Math.ceil((at - start) / step);
      if (p > cuts[cuts.length - 1]! && p < n) cuts.push(p);
    }
    cuts.push(n);
    return cuts.slice(1).map((b, i) => ({ kind: 'hdf5', file: ref, path, start: 0, count: 0, select: narrowed(spec, k, cuts[i]!, b - cuts[i]!), maxReadBytes }));
  }

  /**
   * Parallel jobs: the rows cut into ranges aligned to the dataset's chunks (so no chunk
   * is inflated twice). Undefined when one thread should read it (scalar, less than two of the
   * pool's `minJobBytes` jobs, or a selection outside the dataset: the single-thread
   * path gives the answer or error).
   */
  async #jobs(path: string, start: number, count: number | undefined, maxReadBytes: number | undefined): Promise<Job[] | undefined> {
    const { pool, ref } = this.pooled!;
    const info = await this.#info(path);
    const total = info.shape[0];
    if (total === undefined || !(start >= 0) || start > total || (count !== undefined && !(count >= 0 && start + count <= total))) return undefined;
    const end = count === undefined ? total : start + count;
    // Row ranges of one dataset cost about the same, so one per worker balances; a small
    // read stays on one thread. A VL cell's payload is unknown until read: count it as
    // four times its 16-byte cell (a typical short string or sequence).
    const rowBytes = info.shape.slice(1).reduce((a, b) => a * b, 1) * info.elementSize * (info.dtype.includes('vlen') ? 4 : 1);
    const pieces = Math.min(pool.pieces((end - start) * rowBytes, pool.size), end - start);
    if (pieces < 2) return undefined;
    const grid = info.chunks?.[0] ?? 1;
    const cuts = [start];
    for (let i = 1; i < pieces; i++) {
      const c = Math.floor((start + ((end - start) * i) / pieces) / grid) * grid;
      if (c > cuts[cuts.length - 1]! && c < end) cuts.push(c);
    }
    cuts.push(end);
    return cuts.slice(1).map((b, i) => ({ kind: 'hdf5', file: ref, path, start: cuts[i]!, count: b - cuts[i]!, maxReadBytes }));
  }

  /**
   * The dataset in RecordBatches of `rows` rows (by default whole chunks, about 16 MiB a
   * batch), in order; with `select`, the selection's first kept dimension in pieces of
   * `rows`. Each batch's bytes are fetched while the one before decodes; values
   * stored as Arrow holds them (uncompressed little-endian numbers) are not decoded at all:
   * from a file or Blob, a few batches are read ahead and the bytes read become the column,
   * on this thread even with a pool (there is nothing to decode: workers would only copy).
   * On a pool, the other batches decode a few ahead on the workers.
   */
  async *batches(path: string, options: Hdf5BatchOptions = {}): AsyncGenerator<RecordBatch> {
    let info: Hdf5DatasetInfo;
    try {
      info = await this.#info(path, options);
    } catch (e) {
      const to = await this.#across(path, e, options.signal);
      yield* to.file.batches(to.path, options);
      return;
    }
    if (options.select) {
      yield* this.#selectBatches(path, info, options);
      return;
    }
    const external = this.#external(info);
    const rows = options.rows ?? batchRows(info);
    if (!(rows >= 1)) throw new RangeError('rows must be at least 1');
    const total = info.shape.length === 0 ? 1 : info.shape[0]!;
    const ranges: [number, number][] = [];
    for (let start = 0; start < total; start += rows) ranges.push([start, Math.min(rows, total - start)]);
    if (info.layout === 'virtual') {
      for (const [start, count] of ranges) yield await abortable(options.signal, () => this.#virtualBatch(path, start, count, options));
      return;
    }
    const max = this.readLimit(options.maxReadBytes);
    // Bytes stored as they read (a file or Blob, not bytes in memory): fetched, not decoded.
    const rowBytes = info.shape.slice(1).reduce((a, b) => a * b, 1) * info.elementSize;
    // External storage, and a dataset with a feature we do not decode: each batch as read()
    // reads its rows (a refused filter fails where a chunk needs it; unwritten chunks are the
    // fill value, as libhdf5 reads them), never the direct or pooled paths.
    if (external || info.unsupported !== null) {
      for (const [start, count] of ranges) yield await abortable(options.signal, () => this.readBatch(path, start, count, options));
      return;
    }
    const plan = ranges.length === 0 || wholeBytes(this.reader) ? undefined : await this.#directPlan(path, ranges[0]!, max, options.signal);
    if (plan) {
      const depth = Math.max(1, Math.min(AHEAD_BATCHES, Math.floor(AHEAD_BYTES / Math.max(1, rows * rowBytes))));
      yield* this.#directBatches(path, ranges, plan, depth, max, options.signal);
      return;
    }
    if (this.pooled && ranges.length > 1) {
      const { pool, ref } = this.pooled;
      yield* pool.batches(ranges.map(([start, count]) => ({ kind: 'hdf5', file: ref, path, start, count, maxReadBytes: max })), { signal: options.signal, lend: options.lend });
      return;
    }
    if (this.byteHost) {
      // Bytes in memory or a Node file: each read pulls what it decodes, synchronously.
      for (const [start, count] of ranges) yield await abortable(options.signal, () => this.readBatch(path, start, count, options));
      return;
    }
    for await (const h of this.sequence(ranges.length, (i) => this.handle.read(path, ranges[i]![0], ranges[i]![1], max), options.signal)) yield this.batch(h);
  }

  /** `batches` of a selection: its first kept dimension in pieces of `rows`. */
  async *#selectBatches(path: string, info: Hdf5DatasetInfo, options: Hdf5BatchOptions): AsyncGenerator<RecordBatch> {
    const spec = selectSpec(options.select!);
    const kept = spec.length === 3 * info.shape.length ? firstKept(spec, info.shape) : undefined;
    const rowBytes = resultShape(spec, info.shape).slice(1).reduce((a, b) => a * b, 1) * info.elementSize * (info.dtype.includes('vlen') ? 4 : 1);
    const rows = options.rows ?? Math.max(1, Math.floor(BATCH_BYTES / Math.max(1, rowBytes)));
    if (!(rows >= 1)) throw new RangeError('rows must be at least 1');
    // Nothing kept, nothing selected or a selection that does not fit: one read (its
    // answer or its error).
    const pieces: number[][] = [];
    if (!kept || kept.n === 0) pieces.push(spec);
    else for (let p = 0; p < kept.n; p += rows) pieces.push(narrowed(spec, kept.k, p, Math.min(rows, kept.n - p)));
    const shape = (sp: number[]) => resultShape(sp, info.shape);
    const virtual = info.layout === 'virtual';
    if (this.pooled && pieces.length > 1 && !virtual && !this.#external(info) && info.unsupported === null) {
      const { pool, ref } = this.pooled;
      const max = this.readLimit(options.maxReadBytes);
      const jobs = pieces.map((select): Job => ({ kind: 'hdf5', file: ref, path, start: 0, count: 0, select, maxReadBytes: max }));
      let i = 0;
      for await (const b of pool.batches(jobs, { signal: options.signal, lend: options.lend })) yield withShape(b, shape(pieces[i++]!));
      return;
    }
    for (const sp of pieces) {
      const b = await abortable(options.signal, () => (virtual ? this.#virtualBatch(path, 0, undefined, options, sp) : this.readBatch(path, 0, undefined, options, sp)));
      yield withShape(b, shape(sp));
    }
  }

  /** The file ranges [start, end, ...] holding rows `start..start+count` as Arrow values (empty: they need decoding). */
  #directRanges(path: string, start: number, count: number, max: number | undefined, signal?: AbortSignal): Promise<Float64Array> {
    return this.op(() => this.call(() => this.handle.directRanges(path, start, count, max), signal).finally(() => this.release()));
  }

  /**
   * Whether the batches' values are the file's bytes as stored (uncompressed little-endian
   * numbers in whole rows; see `Hdf5File::direct_ranges` in crates/hdf5): then the first
   * batch's ranges and the column's description (from a read of no rows), else undefined.
   */
  async #directPlan(path: string, [start, count]: [number, number], max: number | undefined, signal?: AbortSignal): Promise<{ first: Float64Array; desc: BatchDesc } | undefined> {
    const first = await this.#directRanges(path, start, count, max, signal);
    if (first.length === 0) return undefined;
    const h = await this.op(() => this.call(() => this.handle.read(path, 0, 0, max), signal));
    let desc: BatchDesc;
    try {
      desc = JSON.parse(h.schema()) as BatchDesc;
    } finally {
      h.free();
    }
    return desc.fields.length === 1 && plainColumn(desc.fields[0]!.col) ? { first, desc } : undefined;
  }

  /**
   * Batches of a dataset stored as Arrow holds it (`#directPlan`): each batch's ranges are
   * fetched into a buffer of its own that becomes the column (a Blob's or path's read is
   * used as it is), with `depth` batches fetched ahead of the consumer, so reading never
   * waits on decoding and the bytes never pass through wasm memory. A batch that is not
   * stored so (an unwritten chunk: fill values) is decoded as usual.
   */
  async *#directBatches(path: string, ranges: [number, number][], plan: { first: Float64Array; desc: BatchDesc }, depth: number, max: number | undefined, signal?: AbortSignal): AsyncGenerator<RecordBatch> {
    const field = plan.desc.fields[0]!;
    const queue: { start: number; count: number; bytes?: Promise<Uint8Array> }[] = [];
    let next = 0;
    while (next < ranges.length || queue.length) {
      signal?.throwIfAborted();
      while (next < ranges.length && queue.length <= depth) {
        const [start, count] = ranges[next]!;
        const flat = next === 0 ? plan.first : await this.#directRanges(path, start, count, max, signal);
        next++;
        const bytes = flat.length ? this.fetchOwned(flat, signal) : undefined;
        bytes?.catch(() => {}); // awaited in turn, or dropped with the stream
        queue.push({ start, count, bytes });
      }
      const p = queue.shift()!;
      if (!p.bytes) {
        yield await abortable(signal, () => this.readBatch(path, p.start, p.count, { signal, maxReadBytes: max }));
        continue;
      }
      const bytes = await p.bytes;
      signal?.throwIfAborted();
      yield assemble({ rows: p.count, fields: [{ ...field, col: sized(field.col, p.count) }] }, () => bytes);
    }
  }

  /** Whether the dataset's raw data is in other files and the resolver can reach them. */
  #external(info: Hdf5DatasetInfo): boolean {
    return this.#options.resolve !== undefined && info.unsupported?.startsWith('external storage') === true;
  }

  /**
   * Rows of a dataset with external storage (`H5Pset_external`): the pieces of the other
   * files that hold them, each file given by `resolve` (once per name) and read by range
   * (zeros past a file's end, as libhdf5 reads), then decoded here.
   */
  async #externalHandle(path: string, start: number, count: number | undefined, max: number | undefined, signal?: AbortSignal, select?: number[]): Promise<WasmBatchHandle> {
    const sel = select && Float64Array.from(select);
    const json = await this.call(() => this.handle.externalRanges(path, start, count, sel), signal);
    const pieces = JSON.parse(json) as { file: string; offset: number; length: number }[];
    const raw = new Uint8Array(pieces.reduce((a, p) => a + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      const r = await this.#externalFile(path, p.file);
      const n = Math.max(0, Math.min(p.length, r.size - p.offset));
      if (n > 0) raw.set(await r.read(p.offset, n, signal), at);
      at += p.length;
    }
    return this.call(() => this.handle.readExternal(path, start, count, max, raw, sel), signal);
  }

  #externalFile(path: string, name: string): Promise<Source> {
    let r = this.#extFiles.get(name);
    if (!r) {
      r = (async () => {
        const source = await this.#options.resolve!(name);
        if (source === undefined || source === null) throw new DecodeError('HDF5', undefined, 'not-found', `${path}: external storage in ${name}, which the resolver does not have`);
        return toRangeReader(source, { who: 'openHdf5', format: 'HDF5' });
      })();
      this.#extFiles.set(name, r);
      r.catch(() => this.#extFiles.delete(name));
    }
    return r;
  }

  /** Whether `path` is a virtual dataset of this file (anything else, or an error: the ordinary read decides). */
  async #isVirtual(path: string): Promise<boolean> {
    return (await this.#info(path).catch(() => undefined))?.layout === 'virtual';
  }

  /**
   * Rows of a virtual dataset, on this thread (also with a pool): the wasm read assembles
   * them from the mapped sources, this file's own directly; for sources in other files it
   * says what it misses (shapes and types, then rows), which are read from those files
   * (opened through `resolve`; one the resolver does not have reads as the fill value, as
   * in libhdf5) and supplied, and the read runs again.
   */
  #virtualBatch(path: string, start: number, count: number | undefined, options: FileReadOptions, select?: number[]): Promise<RecordBatch> {
    if (!(start >= 0) || (count !== undefined && !(count >= 0))) throw new RangeError('start and count must be non-negative');
    const { signal } = options;
    const max = this.readLimit(options.maxReadBytes);
    return this.op(async () => {
      try {
        for (let round = 0; round < VIRTUAL_ROUNDS; round++) {
          const host = this.byteHost;
          const h = await this.call(() => this.handle.readVirtual(path, start, count, max, host, select && Float64Array.from(select)), signal);
          if (h) return this.batch(h);
          const needs = JSON.parse(this.handle.virtualNeeds()) as SourceNeed[];
          for (const n of needs) await this.#supplySource(path, n, max, signal);
        }
        throw new DecodeError('HDF5', undefined, 'invalid', `${path}: virtual dataset sources asked for again after they were supplied`);
      } finally {
        this.handle.clearSources();
        this.release();
      }
    });
  }

  /** Read what a virtual read of `path` misses of another file and hand it to this file's reader. */
  async #supplySource(path: string, n: SourceNeed, max: number | undefined, signal?: AbortSignal): Promise<void> {
    const resolve = this.#options.resolve;
    const where = `${n.file}:${n.dataset}`;
    if (!resolve) throw new DecodeError('HDF5', undefined, 'unsupported', `${path}: virtual dataset source in another file (${where}); open the file with resolve to read it`);
    if (this.#depth >= MAX_LINKED_DEPTH) throw new DecodeError('HDF5', undefined, 'too-deep', `${path}: more than ${MAX_LINKED_DEPTH} files in a row`);
    const file = await abortable(signal, () => this.#linkedFile(n.file, resolve));
    if (n.start === undefined || n.count === undefined) {
      const json = file && (await file.op(() => file.call(() => file.handle.sourceInfo(n.dataset), signal)).catch((e: unknown) => {
        if (e instanceof DecodeError && e.code === 'not-found') return undefined;
        throw e;
      }));
      // No such file or dataset: the fill value, as libhdf5 reads it.
      if (!json) return this.handle.supplySourceInfo(n.file, n.dataset, undefined, '', 0);
      const info = JSON.parse(json) as { dims: number[]; dtype: string; elementSize: number };
      return this.handle.supplySourceInfo(n.file, n.dataset, Float64Array.from(info.dims), info.dtype, info.elementSize);
    }
    if (!file) throw new DecodeError('HDF5', undefined, 'not-found', `${path}: rows of ${where}, which the resolver does not have`);
    const { start, count } = n;
    const bytes = await file.op(async () => {
      try {
        const host = file.byteHost;
        return await file.call(() => file.handle.readRawRows(n.dataset, start, count, max, host), signal);
      } finally {
        file.release();
      }
    });
    this.handle.supplySourceRows(n.file, n.dataset, start, count, bytes);
  }

  /** Closes the files opened to follow external links, virtual datasets' sources and external storage too. */
  override close(): Promise<void> {
    const linked = [...this.#linked.values()];
    this.#linked.clear();
    const ext = [...this.#extFiles.values()];
    this.#extFiles.clear();
    return Promise.all([
      super.close(),
      ...linked.map((f) => f.then((l) => l?.close(), () => undefined)),
      ...ext.map((s) => s.then((r) => r.close?.(), () => undefined)),
    ]).then(() => undefined);
  }

  /** @internal */
  private async readBatch(path: string, start: number, count: number | undefined, options: FileReadOptions, select?: number[]): Promise<RecordBatch> {
    return this.op(async () => this.batch(await this.readHandle(path, start, count, options, select)));
  }

  /** The decoded batch still in wasm memory (pool workers write it out themselves). @internal */
  async readHandle(path: string, start: number, count: number | undefined, options: FileReadOptions = {}, select?: number[]): Promise<WasmBatchHandle> {
    if (!(start >= 0) || (count !== undefined && !(count >= 0))) throw new RangeError('start and count must be non-negative');
    const { signal } = options;
    const max = this.readLimit(options.maxReadBytes);
    try {
      if (this.#options.resolve && this.#external(await this.#info(path))) return await this.#externalHandle(path, start, count, max, signal, select);
      const host = this.byteHost;
      const sel = select && Float64Array.from(select);
      if (host) return await this.call(() => this.handle.readFrom(path, start, count, max, host, sel), signal);
      // A read asks for what it misses, one coalesced range at a time (all missing chunks of
      // the selection, then their heap collections), and is repeated until it decodes.
      return await this.call(() => this.handle.read(path, start, count, max, sel), signal);
    } finally {
      this.release();
    }
  }
}

/**
 * Open an HDF5 file from bytes, a Blob/File (read by slices), a URL (HTTP Range), a
 * Response, in Node a path, `file:` URL or FileHandle (read by ranges), or a `{ size, read }`.
 */
export function openHdf5(source: FileSource, options?: Hdf5Options): Promise<Hdf5File> {
  return Hdf5File.open(source, options);
}
