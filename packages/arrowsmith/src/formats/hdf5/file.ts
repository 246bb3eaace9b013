/** HDF5 → Arrow: open a file (memory, Blob or URL), browse groups, read datasets. */
import { Table, type RecordBatch, type Vector } from '../../arrow/lib.js';
import { DecodeError } from '../../errors.js';
import { FileCore } from '../../file/core.js';
import { FileReaderBase } from '../../file/reader.js';
import { abortable } from '../../io/abort.js';
import type { FileSource } from '../../io/source.js';
import type { FileReadOptions, ReadOptions, WasmBatchHandle } from '../../types.js';
import { instanceAsync, type Loaded } from '../../wasm/instance.js';
import { pooledOrThread } from '../read.js';
import { attrColumns, attrValues } from './attrs.js';
import { datasetBatches, type BatchFile } from './batches.js';
import { MAX_LINKED_DEPTH, window, type Hdf5Core } from './core.js';
import { ExternalStorage } from './external.js';
import { rowJobs, selectJobs } from './jobs.js';
import { resultShape, selectSpec, tableWithShape, argument } from './select.js';
import type { Hdf5BatchOptions, Hdf5DatasetInfo, Hdf5Description, Hdf5Entry, Hdf5Options, Hdf5ReadOptions } from './types.js';
import { virtualBatch } from './virtual.js';

export type { Hdf5BatchOptions, Hdf5DatasetInfo, Hdf5Description, Hdf5Entry, Hdf5Options, Hdf5ReadOptions, Hdf5Type } from './types.js';

export class Hdf5File extends FileReaderBase {
  readonly #core: Hdf5Core;
  readonly #options: Hdf5Options;
  /** What the parts of a read (`batches.ts`, `virtual.ts`, `direct.ts`) call back for. */
  readonly #reads: BatchFile;
  /** Dataset info by path (the file is read-only, so it never changes). */
  #infos = new Map<string, Promise<Hdf5DatasetInfo>>();
  /** Files opened to follow external links and virtual datasets' sources, by the name stored (`undefined`: the resolver has none). */
  #linked = new Map<string, Promise<Hdf5File | undefined>>();
  /** External links followed to reach this file. */
  #depth = 0;
  /** Files holding external storage, when there is a resolver to find them. */
  readonly #storage?: ExternalStorage;

  static async open(source: FileSource, options?: Hdf5Options): Promise<Hdf5File> {
    return Hdf5File.openWith(await instanceAsync('hdf5'), source, options);
  }

  /** Open with a given module instance (benchmarks compare the SIMD and scalar builds). @internal */
  static async openWith(wasm: Loaded<'hdf5'>, source: FileSource, options: Hdf5Options = {}): Promise<Hdf5File> {
    // An in-memory file is not copied whole: a read asks for the metadata, cells and heap
    // ranges it needs (a few coalesced copies), see readHandle.
    const core = await FileCore.open(wasm, source, (w, size) => new w.glue.Hdf5Reader(size), { who: 'openHdf5', format: 'HDF5', http: options });
    const f = new Hdf5File(core, { ...options, signal: undefined });
    await core.setUp(options, () => core.openReader((h) => h.open(), options.signal));
    return f;
  }

  /** @internal */
  private constructor(core: Hdf5Core, options: Hdf5Options) {
    super(core);
    this.#core = core;
    this.#options = options;
    if (options.resolve) this.#storage = new ExternalStorage(options.resolve);
    const self = this;
    this.#reads = {
      core,
      resolve: options.resolve,
      get depth() {
        return self.#depth;
      },
      info: (path, o) => this.#info(path, o),
      readBatch: (path, start, count, o, select) => this.#readBatch(path, start, count, o, select),
      external: (info) => this.#external(info),
      linked: async (name, resolve) => {
        const f = await this.#linkedFile(name, resolve);
        return f === undefined ? undefined : f.#core;
      },
    };
  }

  /**
   * Where `path` leads when reading it here failed with `e`: the linked file and the path in
   * it, if the path goes through an external link (otherwise `e` stands).
   */
  async #across(path: string, e: unknown, signal?: AbortSignal): Promise<{ file: Hdf5File; path: string }> {
    if (!(e instanceof DecodeError && e.code === 'unsupported')) throw e;
    const core = this.#core;
    const json = await core.op(() => core.call(() => core.handle.externalLink(path), signal));
    const resolve = this.#options.resolve;
    if (!json || !resolve) throw e;
    const link = JSON.parse(json) as { file: string; path: string };
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

  /** `own()` under `signal`, or for a path through an external link `other` on the linked file. */
  async #via<T>(path: string, signal: AbortSignal | undefined, own: () => Promise<T>, other: (f: Hdf5File, path: string) => Promise<T>): Promise<T> {
    try {
      return await abortable(signal, own);
    } catch (e) {
      const to = await this.#across(path, e, signal);
      return other(to.file, to.path);
    }
  }

  /** A wasm call that answers in JSON, as one operation of the file. */
  #json<T>(f: () => string, signal?: AbortSignal): Promise<T> {
    return this.#core.op(async () => JSON.parse(await this.#core.call(f, signal)) as T);
  }

  /** Children of a group: name, kind, shape, dtype (and a link's target). */
  list(path = '/', options: ReadOptions = {}): Promise<Hdf5Entry[]> {
    return this.#via(path, options.signal, () => this.#json(() => this.#core.handle.list(path), options.signal), (f, p) => f.list(p, options));
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
        p = this.#json<Hdf5DatasetInfo>(() => this.#core.handle.info(path));
        this.#infos.set(path, p);
        p.catch(() => this.#infos.delete(path));
      }
      // A copy each time: callers may modify what they get.
      return structuredClone(await p);
    });
  }

  /** Everything the header of a group, dataset or committed datatype says: type tree, dims, chunks, filters, attributes' types. */
  describe(path: string, options: ReadOptions = {}): Promise<Hdf5Description> {
    return this.#via(path, options.signal, () => this.#json(() => this.#core.handle.describe(path), options.signal), (f, p) => f.describe(p, options));
  }

  /**
   * Attributes as Arrow vectors, by name (the values exactly as stored: 64-bit integers as
   * BigInt, compounds as Structs, arrays' later dimensions as FixedSizeLists).
   */
  attrColumns(path = '/', options: ReadOptions = {}): Promise<Map<string, Vector>> {
    return this.#via(path, options.signal, () => attrColumns(this.#core, path, options.signal), (f, p) => f.attrColumns(p, options));
  }

  /** Attributes of a group or dataset: scalars as values, arrays as arrays. */
  attrs(path = '/', options: ReadOptions = {}): Promise<Record<string, unknown>> {
    return this.#via(path, options.signal, () => attrValues(this.#core, path, options.signal), (f, p) => f.attrs(p, options));
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

  async #read(path: string, options: Hdf5ReadOptions): Promise<Table> {
    if (options.select) return this.#readSelect(path, options);
    const start = options.start ?? 0;
    if ((await this.#info(path).catch(() => undefined))?.layout === 'virtual') return new Table([await virtualBatch(this.#reads, path, start, options.count, options)]);
    const jobs = async () => {
      const info = await this.#info(path);
      return this.#external(info) ? undefined : rowJobs(this.#target(path, options), info, start, options.count);
    };
    const thread = async () => new Table([await this.#readBatch(path, start, options.count, options)]);
    return pooledOrThread(this.#core.pooled?.pool, jobs, thread, { signal: options.signal });
  }

  /** `read` of a selection: on a pool, its first kept dimension cut into jobs. */
  async #readSelect(path: string, options: Hdf5ReadOptions): Promise<Table> {
    if (options.start !== undefined || options.count !== undefined) throw argument(`${path}: start and count do not go with select`);
    const spec = selectSpec(options.select!);
    const info = await this.#info(path);
    const shape = resultShape(spec, info.shape);
    if (info.layout === 'virtual') return tableWithShape(new Table([await virtualBatch(this.#reads, path, 0, undefined, options, spec)]), shape);
    const jobs = () => (this.#external(info) ? undefined : selectJobs(this.#target(path, options), info, spec, shape));
    const thread = async () => new Table([await this.#readBatch(path, 0, undefined, options, spec)]);
    return tableWithShape(await pooledOrThread(this.#core.pooled?.pool, jobs, thread, { signal: options.signal }), shape);
  }

  /** Where a pooled read's jobs go. */
  #target(path: string, options: FileReadOptions) {
    const { pool, ref } = this.#core.pooled!;
    return { pool, ref, path, maxReadBytes: this.#core.readLimit(options.maxReadBytes) };
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
    yield* datasetBatches(this.#reads, path, info, options);
  }

  /** Whether the dataset's raw data is in other files and the resolver can reach them. */
  #external(info: Hdf5DatasetInfo): boolean {
    return this.#storage !== undefined && info.unsupported?.startsWith('external storage') === true;
  }

  /** Closes the files opened to follow external links, virtual datasets' sources and external storage too. */
  override close(): Promise<void> {
    const linked = [...this.#linked.values()];
    this.#linked.clear();
    return Promise.all([super.close(), ...linked.map((f) => f.then((l) => l?.close(), () => undefined)), this.#storage?.close()]).then(() => undefined);
  }

  #readBatch(path: string, start: number, count: number | undefined, options: FileReadOptions, select?: number[]): Promise<RecordBatch> {
    return this.#core.op(async () => this.#core.batch(await this.readHandle(path, start, count, options, select)));
  }

  /** The decoded batch still in wasm memory (pool workers write it out themselves). @internal */
  async readHandle(path: string, start: number, count: number | undefined, options: FileReadOptions = {}, select?: number[]): Promise<WasmBatchHandle> {
    if (!(start >= 0) || (count !== undefined && !(count >= 0))) throw new RangeError('start and count must be non-negative');
    const core = this.#core;
    const { signal } = options;
    const max = core.readLimit(options.maxReadBytes);
    try {
      if (this.#storage && this.#external(await this.#info(path))) return await this.#storage.read(core, path, start, count, max, signal, select);
      const host = core.byteHost;
      const r = window(start, count, max, select);
      if (host) return await core.call(() => core.handle.readFrom(path, r, host), signal);
      // A read asks for what it misses, one coalesced range at a time (all missing chunks of
      // the selection, then their heap collections), and is repeated until it decodes.
      return await core.call(() => core.handle.read(path, r), signal);
    } finally {
      core.release();
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
