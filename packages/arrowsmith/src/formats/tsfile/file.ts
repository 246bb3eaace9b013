/** Apache TsFile → Arrow: open a file (memory, Blob or URL), browse it, read queries. */
import { type Copier, outputCopy, piecesTable, Slabs, toRecordBatch } from '../../arrow/batch.js';
import { Table, type RecordBatch } from '../../arrow/lib.js';
import { DecodeError, wasmCall } from '../../errors.js';
import { FileCore } from '../../file/core.js';
import { FileReaderBase } from '../../file/reader.js';
import { abortable } from '../../io/abort.js';
import { readAll, type FileSource } from '../../io/source.js';
import type { Given } from '../../pool/protocol.js';
import type { ReadOptions, TsFileQuery, WasmBatchHandle } from '../../types.js';
import { instanceAsync, type Loaded } from '../../wasm/instance.js';
import { pooledOrThread } from '../read.js';
import { queryBatches } from './batches.js';
import { wasmQuery, type JobQuery, type TsCore, type TsReads } from './core.js';
import { queryJobs } from './jobs.js';
import { pieces } from './pieces.js';
import type { TsFileBatchQuery, TsFileDevice, TsFileOptions, TsFileSeries, TsFileTable } from './types.js';

export { tsfileBatchRows } from './sizes.js';
export type { TsFileBatchQuery, TsFileColumn, TsFileDevice, TsFileOptions, TsFileSeries, TsFileTable } from './types.js';

/** Bytes read from the end of the file at open. */
const TAIL_PREFETCH = 64 * 1024;

export class TsFile extends FileReaderBase {
  readonly #core: TsCore;
  /** What the parts of a read (`batches.ts`, `jobs.ts`, `pieces.ts`) call back for. */
  readonly #reads: TsReads;
  #version = 0;
  #mods: Uint8Array | undefined;
  #spans = new Map<string, Promise<BigInt64Array>>();
  /** While true, reads leave their fetched bytes supplied (windows of one device). */
  #hold = false;

  /** Format version byte: 3 (TsFile 1.x) or 4 (2.x). */
  get version(): number {
    return this.#version;
  }

  static async open(source: FileSource, options?: TsFileOptions): Promise<TsFile> {
    return TsFile.openWith(await instanceAsync('tsfile'), source, options);
  }

  /** Open with a given module instance (benchmarks compare the SIMD and scalar builds). @internal */
  static async openWith(wasm: Loaded<'tsfile'>, source: FileSource, options: TsFileOptions = {}): Promise<TsFile> {
    // An in-memory file is never copied into wasm whole: a read pulls the pages it decodes
    // (a Blob, URL or file gets the chunks its query plans from the index).
    const core = await FileCore.open(wasm, source, (w, size) => new w.glue.TsFileReader(size), { who: 'openTsFile', format: 'TsFile', http: options });
    const f = new TsFile(core);
    await core.setUp(options, async () => {
      // The head magic and the tail (footer, metadata, usually the index) in one go, instead
      // of discovering them one missing range at a time; kept across reads (every read plans
      // from the index).
      const size = core.reader.size;
      const tail = Math.max(4096, Math.min(TAIL_PREFETCH, Math.floor(size / 16)));
      await core.keep([0, Math.min(size, 4096), Math.max(0, size - tail), size], options.signal);
      f.#version = await core.openReader((h) => h.open(), options.signal);
      if (options.mods !== undefined) {
        const mods = await readAll(options.mods, 'openTsFile mods', options.signal);
        // Parsed once here so a broken deletion file fails the open, not the first read.
        await core.call(() => new wasm.glue.TsQuery(undefined, mods).free());
        f.#mods = mods;
      }
    });
    return f;
  }

  /** @internal */
  private constructor(core: TsCore) {
    super(core);
    this.#core = core;
    const self = this;
    this.#reads = {
      core,
      get mods() {
        return self.#mods;
      },
      tables: () => this.tables(),
      devices: (table) => this.devices(table),
      span: (device) => this.#span(device),
      plan: (q, signal) => this.#plan(q, signal),
      readBatch: (q, given) => this.#readBatch(q, given),
      get hold() {
        return self.#hold;
      },
      set hold(on: boolean) {
        self.#hold = on;
      },
    };
  }

  /** Table schemas (table model, v4). */
  tables(): TsFileTable[] {
    return JSON.parse(this.#core.handle.tables());
  }

  schema(table: string): TsFileTable | undefined {
    return this.tables().find((t) => t.name.toLowerCase() === table.toLowerCase());
  }

  /** Devices, all or those of one table (a table the file does not hold is `not-found`). */
  devices(table?: string): TsFileDevice[] {
    const all = JSON.parse(this.#core.handle.devices(table)) as TsFileDevice[];
    if (table !== undefined && all.length === 0 && !this.schema(table)) throw new DecodeError('TsFile', undefined, 'not-found', `table ${JSON.stringify(table)} is not in the file`);
    return all;
  }

  /** Every series: device path, measurement, type, encoding, compression, count, time range. */
  async timeseries(options: ReadOptions = {}): Promise<TsFileSeries[]> {
    const core = this.#core;
    const raw = JSON.parse(await abortable(options.signal, () => core.op(() => core.call(() => core.handle.timeseries(), options.signal)))) as (Omit<TsFileSeries, 'start' | 'end'> & { start: string; end: string })[];
    return raw.map((s) => ({ ...s, start: BigInt(s.start), end: BigInt(s.end) }));
  }

  /**
   * Read a query into one Arrow Table (`time`, tag columns, field columns). Rows come device
   * after device in file order; a large read of one table's devices on the calling thread
   * is made as consecutive device groups of about 16 MiB of output, one RecordBatch each
   * (the Table's batches), so wasm memory grows by one group, not the whole output.
   */
  read(q: TsFileQuery = {}): Promise<Table> {
    return abortable(q.signal, async () => {
      const thread = async () => {
        const cut = await pieces(this.#reads, q, TsFile.pieceRows);
        if (cut) {
          const slabs = new Slabs(cut.rows, cut.groups.length);
          const batches: RecordBatch[] = [];
          for (const devices of cut.groups) batches.push(await this.#readCopied({ ...q, devices }, (h) => slabs.copier(h.numRows(), Array.from(h.buffers().filter((_, i) => i % 2 === 1)))));
          const t = piecesTable(batches);
          if (t) return t;
        }
        return new Table([await this.#readBatch(q)]);
      };
      return pooledOrThread(this.#core.pooled?.pool, () => queryJobs(this.#reads, { ...q, mods: this.#mods }), thread, { signal: q.signal });
    });
  }

  /** Rows a piece of a one-thread whole read holds at most (default: about 16 MiB of output); tests force small pieces. @internal */
  static pieceRows: number | undefined;

  /**
   * The same rows as `read`, in RecordBatches of at most `rows` rows (default: about 16 MiB
   * of output, see `tsfileBatchRows`), device after device. A device with more rows is cut
   * into time windows sized from its index (span and row count); each window is read with
   * a limit of `rows`, and a window holding more (times bunched up) goes on from the last
   * time read, so no batch exceeds `rows` whatever the times' spread.
   */
  batches(q: TsFileBatchQuery = {}): AsyncGenerator<RecordBatch> {
    return queryBatches(this.#reads, q);
  }

  /** A device's [start, end, rows], read from its index once (the file is read-only). */
  #span(device: string): Promise<BigInt64Array> {
    let p = this.#spans.get(device);
    if (!p) {
      const core = this.#core;
      p = core.op(() => core.call(() => core.handle.deviceSpan(device)).finally(() => core.release()));
      this.#spans.set(device, p);
      p.catch(() => this.#spans.delete(device));
    }
    return p;
  }

  /** The byte ranges (flat [start, end, ...]) a read plans to touch; undefined when planning fails. */
  async #plan(q: TsFileQuery, signal?: AbortSignal): Promise<number[] | undefined> {
    const core = this.#core;
    try {
      return await core.op(async () => {
        const query = wasmCall(() => new core.wasm.glue.TsQuery(wasmQuery(q)));
        try {
          return Array.from(await core.call(() => core.handle.plan(query), signal));
        } finally {
          query.free();
          core.release();
        }
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      return undefined;
    }
  }

  /** A read's batch, its buffers copied out of wasm memory by the copier made for it. */
  #readCopied(q: TsFileQuery, copier: (h: WasmBatchHandle) => Copier, given?: Given<Uint8Array>): Promise<RecordBatch> {
    return this.#core.op(async () => {
      const h = await this.readHandle(q, given);
      try {
        return toRecordBatch(this.#core.wasm, h, copier(h));
      } finally {
        h.free();
      }
    });
  }

  #readBatch(q: TsFileQuery, given?: Given<Uint8Array>): Promise<RecordBatch> {
    return this.#readCopied(q, () => outputCopy, given);
  }

  /** The decoded batch still in wasm memory (pool workers write it out themselves). @internal */
  async readHandle(q: JobQuery, given?: Given<Uint8Array>): Promise<WasmBatchHandle> {
    const core = this.#core;
    const query = wasmCall(() => new core.wasm.glue.TsQuery(wasmQuery(q, core.readLimit(q.maxReadBytes)), q.mods ?? this.#mods));
    try {
      // A file in memory, or the bytes the main thread fetched for this read (a pool job's):
      // the reader pulls page by page, so a time slice copies a slice.
      const host = core.byteHost ?? (given && core.givenHost(given.ranges, given.bytes));
      if (host) return await core.call(() => core.handle.readFrom(query, host), q.signal);
      await core.prefetch(await core.call(() => core.handle.plan(query), q.signal), q.signal);
      return await core.call(() => core.handle.read(query), q.signal);
    } finally {
      query.free();
      if (!this.#hold) core.release();
    }
  }
}

/**
 * Open a TsFile from bytes, a Blob/File (read by slices), a URL (HTTP Range), a Response,
 * in Node a path, `file:` URL or FileHandle (read by ranges), or a `{ size, read }`.
 */
export function openTsFile(source: FileSource, options?: TsFileOptions): Promise<TsFile> {
  return TsFile.open(source, options);
}
