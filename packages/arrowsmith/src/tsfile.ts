/** Apache TsFile → Arrow: open a file (memory, Blob or URL), browse it, read queries. */
import { Table, type RecordBatch } from './arrow-lib.js';
import { abortable, checkAborted } from './abort.js';
import { FileReaderBase, type ByteHost, type OpenOptions } from './filereader.js';
import { DecodeError, SchemaMismatch } from './errors.js';
import type { FileRef, Job } from './pool/protocol.js';
import { readAll, type ByteInput, type FileSource } from './source.js';
import type { ReadOptions, TimeValue, TsFileQuery, WasmBatchHandle } from './types.js';
import { instanceAsync, type Loaded } from './wasm.js';

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

/** The wasm-side reader (crates/wasm) as this module calls it. */
interface WasmTsFileReader {
  supply(offset: number, bytes: Uint8Array): void;
  clearCache(): void;
  free(): void;
  open(): number;
  tables(): string;
  devices(table?: string): string;
  timeseries(): string;
  plan(q: unknown): Float64Array;
  deviceSpan(path: string): BigInt64Array;
  read(q: unknown): WasmBatchHandle;
  readFrom(q: unknown, host: ByteHost): WasmBatchHandle;
}
type QueryArgs = [string | undefined, string[], string[], bigint | undefined, bigint | undefined, string[], number | undefined, string | undefined];

const toBig = (t: TimeValue | undefined) => (t === undefined ? undefined : t instanceof Date ? BigInt(t.getTime()) : BigInt(t));

function args(q: TsFileQuery): QueryArgs {
  if (q.limit !== undefined && !(q.limit >= 0)) throw new RangeError('limit must be a non-negative number');
  return [q.table, q.devices ?? [], q.columns ?? [], toBig(q.start), toBig(q.end), Object.entries(q.tags ?? {}).flat(), q.limit, q.timeUnit];
}

/** Bytes read from the end of the file at open. */
const TAIL_PREFETCH = 64 * 1024;

/** A pool job reading one device of a query (optionally a time slice of it). */
function deviceJob(file: FileRef, q: TsFileQuery & { mods?: Uint8Array }, device: string, start = q.start, end = q.end): Job {
  return { kind: 'tsfile', file, query: { table: q.table, columns: q.columns, tags: q.tags, devices: [device], start, end, maxReadBytes: q.maxReadBytes, timeUnit: q.timeUnit, mods: q.mods } };
}

export class TsFile extends FileReaderBase {
  /** @internal */
  protected override readonly format = 'TsFile';
  /** @internal */
  protected override get handle(): WasmTsFileReader {
    return super.handle as WasmTsFileReader;
  }
  /** @internal */
  protected override get wasm(): Loaded<'tsfile'> {
    return super.wasm as Loaded<'tsfile'>;
  }
  #version = 0;
  #mods: Uint8Array | undefined;
  #spans = new Map<string, Promise<BigInt64Array>>();

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
    const make = (w: Loaded<'tsfile'>, size: number) => new w.glue.TsFileReader(size) as unknown as WasmTsFileReader;
    const p = await FileReaderBase.prepare(wasm, source, make, { who: 'openTsFile', format: 'TsFile', http: options });
    const f = new TsFile(p);
    return f.setUp(options, async () => {
      // The head magic and the tail (footer, metadata, usually the index) in one go, instead
      // of discovering them one missing range at a time; kept across reads (every read plans
      // from the index).
      const size = p.reader.size;
      const tail = Math.max(4096, Math.min(TAIL_PREFETCH, Math.floor(size / 16)));
      await f.keep([0, Math.min(size, 4096), Math.max(0, size - tail), size], options.signal);
      f.#version = await f.openReader((h: WasmTsFileReader) => h.open(), options.signal);
      if (options.mods !== undefined) {
        const mods = await readAll(options.mods, 'openTsFile mods', options.signal);
        // Parsed once here so a broken deletion file fails the open, not the first read.
        const q = new wasm.glue.TsQuery(...args({}));
        try {
          await f.call(() => q.setMods(mods));
        } finally {
          q.free();
        }
        f.#mods = mods;
      }
    });
  }

  /** Table schemas (table model, v4). */
  tables(): TsFileTable[] {
    return JSON.parse(this.handle.tables());
  }

  schema(table: string): TsFileTable | undefined {
    return this.tables().find((t) => t.name.toLowerCase() === table.toLowerCase());
  }

  /** Devices, all or those of one table (a table the file does not hold is `not-found`). */
  devices(table?: string): TsFileDevice[] {
    const all = JSON.parse(this.handle.devices(table)) as TsFileDevice[];
    if (table !== undefined && all.length === 0 && !this.schema(table)) throw new DecodeError('TsFile', undefined, 'not-found', `table ${JSON.stringify(table)} is not in the file`);
    return all;
  }

  /** Every series: device path, measurement, type, encoding, compression, count, time range. */
  async timeseries(options: ReadOptions = {}): Promise<TsFileSeries[]> {
    const raw = JSON.parse(await abortable(options.signal, () => this.op(() => this.call(() => this.handle.timeseries(), options.signal)))) as (Omit<TsFileSeries, 'start' | 'end'> & { start: string; end: string })[];
    return raw.map((s) => ({ ...s, start: BigInt(s.start), end: BigInt(s.end) }));
  }

  /** Read a query into one Arrow Table (`time`, tag columns, field columns). */
  read(q: TsFileQuery = {}): Promise<Table> {
    return abortable(q.signal, async () => {
      if (this.pooled) {
        const jobs = await this.#jobs({ ...q, mods: this.#mods });
        if (jobs) {
          try {
            return await this.pooled.pool.table(jobs, { signal: q.signal });
          } catch (e) {
            if (!(e instanceof SchemaMismatch)) throw e;
          }
        }
      }
      return new Table([await this.readBatch(q)]);
    });
  }

  /**
   * Parallel jobs for a query: one per device, or time slices of the devices when they
   * are fewer than twice the workers. Undefined when one thread should read it (a limit,
   * an ambiguous table, an unknown tag or device: the single-thread path gives the answer
   * or error).
   */
  async #jobs(q: TsFileQuery & { mods?: Uint8Array }): Promise<Job[] | undefined> {
    q = { ...q, maxReadBytes: this.readLimit(q.maxReadBytes) };
    const { pool, ref } = this.pooled!;
    if (q.limit !== undefined) return undefined;
    const tables = this.tables();
    const table = q.table !== undefined ? tables.find((t) => t.name.toLowerCase() === q.table!.toLowerCase()) : tables.length === 1 ? tables[0] : undefined;
    if ((q.table !== undefined || tables.length > 1) && !table) return undefined;
    const tagNames = table?.columns.filter((c) => c.category === 'TAG').map((c) => c.name.toLowerCase()) ?? [];
    const tags = Object.entries(q.tags ?? {}).map(([k, v]) => [tagNames.indexOf(k.toLowerCase()), v] as const);
    if (tags.some(([k]) => k < 0)) return undefined;
    const all = this.devices();
    if (q.devices?.some((p) => !all.some((d) => d.path === p))) return undefined;
    const devices = all
      .filter((d) => !table || d.table.toLowerCase() === table.name.toLowerCase())
      .filter((d) => !q.devices || q.devices.includes(d.path))
      .filter((d) => tags.every(([k, v]) => d.segments[k + 1] === v))
      .map((d) => d.path);
    if (devices.length === 0) return undefined;
    const perDevice = Math.ceil((2 * pool.size) / devices.length);
    const jobs: Job[] = [];
    const qs = toBig(q.start);
    const qe = toBig(q.end);
    for (const d of devices) {
      checkAborted(q.signal);
      const span = perDevice > 1 ? await this.#span(d) : undefined;
      const start = span?.length ? (qs !== undefined && qs > span[0]! ? qs : span[0]!) : 0n;
      const end = span?.length ? (qe !== undefined && qe < span[1]! ? qe : span[1]!) : -1n;
      if (!span?.length || end - start < BigInt(perDevice)) {
        jobs.push(deviceJob(ref, q, d));
        continue;
      }
      // Equal time slices (inclusive bounds, no gaps: times are integers).
      const width = (end - start + 1n) / BigInt(perDevice);
      for (let i = 0; i < perDevice; i++) {
        const a = i === 0 ? q.start : start + BigInt(i) * width;
        const b = i === perDevice - 1 ? q.end : start + BigInt(i + 1) * width - 1n;
        jobs.push(deviceJob(ref, q, d, a, b));
      }
    }
    return jobs;
  }

  /** A device's [start, end, rows], read from its index once (the file is read-only). */
  #span(device: string): Promise<BigInt64Array> {
    let p = this.#spans.get(device);
    if (!p) {
      p = this.op(() => this.call(() => this.handle.deviceSpan(device)).finally(() => this.release()));
      this.#spans.set(device, p);
      p.catch(() => this.#spans.delete(device));
    }
    return p;
  }

  /** The same rows as `read`, one RecordBatch per device. */
  async *batches(q: TsFileQuery = {}): AsyncGenerator<RecordBatch> {
    checkAborted(q.signal);
    const devices = q.devices ?? this.devices(q.table).filter((d) => !q.table || d.table === q.table).map((d) => d.path);
    if (this.pooled && q.limit === undefined && devices.length > 1) {
      // One job per device on the pool, a few ahead of the consumer, yielded in order.
      const { pool, ref } = this.pooled;
      const limited = { ...q, maxReadBytes: this.readLimit(q.maxReadBytes), mods: this.#mods };
      const jobs = devices.map((d) => deviceJob(ref, limited, d));
      for await (const b of pool.batches(jobs, { signal: q.signal })) if (b.numRows > 0) yield b;
      return;
    }
    let left = q.limit ?? Infinity;
    for (const d of devices) {
      if (left <= 0) return;
      const b = await abortable(q.signal, () => this.readBatch({ ...q, devices: [d], limit: Number.isFinite(left) ? left : undefined }));
      left -= b.numRows;
      if (b.numRows > 0) yield b;
    }
  }

  /** @internal */
  private async readBatch(q: TsFileQuery): Promise<RecordBatch> {
    return this.op(async () => this.batch(await this.readHandle(q)));
  }

  /** The decoded batch still in wasm memory (pool workers write it out themselves). @internal */
  async readHandle(q: TsFileQuery & { mods?: Uint8Array }): Promise<WasmBatchHandle> {
    const query = new this.wasm.glue.TsQuery(...args(q));
    const max = this.readLimit(q.maxReadBytes);
    if (max !== undefined) query.setMaxReadBytes(max);
    try {
      const mods = q.mods ?? this.#mods;
      if (mods) query.setMods(mods);
      // A file in memory: the reader pulls page by page, so a time slice copies a slice.
      const host = this.byteHost;
      if (host) return await this.call(() => this.handle.readFrom(query, host), q.signal);
      await this.prefetch(await this.call(() => this.handle.plan(query), q.signal), q.signal);
      return await this.call(() => this.handle.read(query), q.signal);
    } finally {
      query.free();
      this.release();
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
