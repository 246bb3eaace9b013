/** Apache TsFile → Arrow: open a file (memory, Blob or URL), browse it, read queries. */
import { Table, type RecordBatch } from '../../arrow/lib.js';
import { abortable, checkAborted } from '../../io/abort.js';
import { type Copier, outputCopy, piecesTable, Slabs, toRecordBatch } from '../../arrow/batch.js';
import { ReusedBuffers } from '../../file/fetch.js';
import { FileCore } from '../../file/core.js';
import { FileReaderBase, type OpenOptions } from '../../file/reader.js';
import { pooledOrThread } from '../read.js';
import { DecodeError, wasmCall } from '../../errors.js';
import { int64At } from '../../arrow/int64.js';
import type { FileRef, Given, Job } from '../../pool/protocol.js';
import { readAll, type ByteInput, type FileSource } from '../../io/source.js';
import type { ReadOptions, TimeValue, TsFileQuery, WasmBatchHandle } from '../../types.js';
import type { TsQueryOptions } from '../../../wasm/arrowsmith_tsfile.js';
import { instanceAsync, type Glues, type Loaded } from '../../wasm/instance.js';

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

/** The wasm-side reader and query (crates/wasm/src/tsfile.rs), as its generated .d.ts types them. */
type WasmTsFileReader = InstanceType<Glues['tsfile']['TsFileReader']>;

const toBig = (t: TimeValue | undefined) => (t === undefined ? undefined : t instanceof Date ? BigInt(t.getTime()) : BigInt(t));

/** The wasm query's options for `q` (Dates as bigints; the wasm side validates every field). */
const wasmTime = (t: TimeValue | undefined) => (t instanceof Date ? BigInt(t.getTime()) : t);
const wasmQuery = (q: TsFileQuery, maxReadBytes?: number): TsQueryOptions => ({ ...q, start: wasmTime(q.start), end: wasmTime(q.end), maxReadBytes });

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

/** Fetched bytes the windows of one device keep supplied for the next window, at most. */
const HOLD_BYTES = 64 * 1024 * 1024;

/** Output bytes a default batch holds, about (as HDF5's batches). */
const BATCH_BYTES = 16 * 1024 * 1024;

/** Wasm memory a whole read in pieces grows into, about (one piece's output and working bytes). @internal */
export const TSFILE_PIECE_MEMORY = BATCH_BYTES;

/** JS output memory the warm start writes for the first reads' columns (arrow.ts `reserveOutput`). @internal */
export const TSFILE_OUTPUT_RESERVE = 32 * 1024 * 1024;

/** The decoder's memory limit of a read when none is set (crates/tsfile `DEFAULT_MAX_READ_BYTES`). */
const DEFAULT_MAX_READ_BYTES = 2 ** 30;

/** Default rows per batch: about BATCH_BYTES of output, counting 8 bytes per field and the time. */
export function tsfileBatchRows(fields: number): number {
  return Math.max(1024, Math.floor(BATCH_BYTES / (8 * (1 + Math.max(1, fields)))));
}

/** Bytes of flat [start, end, ...] ranges. */
function spanBytes(flat: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i + 1 < flat.length; i += 2) n += flat[i + 1]! - flat[i]!;
  return n;
}

/**
 * The bytes of ranges `want` (flat [start, end, ...]) out of `bytes`, those of ranges `have`
 * one after another: `bytes` itself when the ranges are the same and it may be given away
 * (`last`), else a copy; undefined when a wanted range is not within one of `have`.
 */
function cut(have: number[], bytes: Uint8Array, want: number[], last: boolean): Uint8Array | undefined {
  if (last && want.length === have.length && want.every((x, i) => x === have[i])) return bytes;
  const out = new Uint8Array(spanBytes(want));
  let at = 0;
  for (let i = 0; i + 1 < want.length; i += 2) {
    const [s, e] = [want[i]!, want[i + 1]!];
    let from = 0;
    let k = 0;
    for (; k + 1 < have.length; k += 2) {
      if (have[k]! <= s && e <= have[k + 1]!) break;
      from += have[k + 1]! - have[k]!;
    }
    if (k + 1 >= have.length) return undefined;
    out.set(bytes.subarray(from + s - have[k]!, from + e - have[k]!), at);
    at += e - s;
  }
  return out;
}

/**
 * The time of a batch's last row (rows of one device come in time order) and how many of its
 * rows have that time. @internal
 */
export function lastTimes(b: RecordBatch): [bigint, number] {
  const time = b.getChild('time')!;
  let last: bigint | undefined;
  let n = 0;
  for (let k = time.data.length - 1; k >= 0; k--) {
    const data = time.data[k]!;
    for (let i = data.length - 1; i >= 0; i--) {
      const t = int64At(data, i);
      if (last !== undefined && t !== last) return [last, n];
      last = t;
      n++;
    }
  }
  return [last!, n];
}

/** Bytes read from the end of the file at open. */
const TAIL_PREFETCH = 64 * 1024;

/** A pool job reading one device of a query (optionally a time slice of it). */
function deviceJob(file: FileRef, q: TsFileQuery & { mods?: Uint8Array }, device: string, start = q.start, end = q.end, given?: Given<Uint8Array>): Job {
  const { signal: _, limit: __, ...query } = q;
  return { kind: 'tsfile', file, query: { ...query, devices: [device], start, end }, given };
}

export class TsFile extends FileReaderBase {
  readonly #core: FileCore<'tsfile', WasmTsFileReader>;
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
    const core = await FileCore.open(wasm, source, (w, size) => new w.glue.TsFileReader(size), { who: 'openTsFile', format: 'TsFile', http: options });
    const f = new TsFile(core);
    await core.setUp(options, async () => {
      // The head magic and the tail (footer, metadata, usually the index) in one go, instead
      // of discovering them one missing range at a time; kept across reads (every read plans
      // from the index).
      const size = core.reader.size;
      const tail = Math.max(4096, Math.min(TAIL_PREFETCH, Math.floor(size / 16)));
      await f.#core.keep([0, Math.min(size, 4096), Math.max(0, size - tail), size], options.signal);
      f.#version = await core.openReader((h) => h.open(), options.signal);
      if (options.mods !== undefined) {
        const mods = await readAll(options.mods, 'openTsFile mods', options.signal);
        // Parsed once here so a broken deletion file fails the open, not the first read.
        await f.#core.call(() => new wasm.glue.TsQuery(undefined, mods).free());
        f.#mods = mods;
      }
    });
    return f;
  }

  /** @internal */
  private constructor(core: FileCore<'tsfile', WasmTsFileReader>) {
    super(core);
    this.#core = core;
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
    const raw = JSON.parse(await abortable(options.signal, () => this.#core.op(() => this.#core.call(() => this.#core.handle.timeseries(), options.signal)))) as (Omit<TsFileSeries, 'start' | 'end'> & { start: string; end: string })[];
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
        const pieces = await this.#pieces(q);
        if (pieces) {
          const slabs = new Slabs(pieces.rows, pieces.groups.length);
          const batches: RecordBatch[] = [];
          for (const devices of pieces.groups) batches.push(await this.#readPiece({ ...q, devices }, slabs));
          const t = piecesTable(batches);
          if (t) return t;
        }
        return new Table([await this.readBatch(q)]);
      };
      return pooledOrThread(this.#core.pooled?.pool, () => this.#jobs({ ...q, mods: this.#mods }), thread, { signal: q.signal });
    });
  }

  /**
   * Parallel jobs for a query: one per device, or time slices of the devices when they
   * are fewer than twice the workers. Undefined when one thread should read it (a limit,
   * an ambiguous table, an unknown tag or device: the single-thread path gives the answer
   * or error).
   */
  async #jobs(q: TsFileQuery & { mods?: Uint8Array }): Promise<Job[] | undefined> {
    q = { ...q, maxReadBytes: this.#core.readLimit(q.maxReadBytes) };
    const { pool, ref } = this.#core.pooled!;
    if (q.limit !== undefined) return undefined;
    const devices = this.#selection(q)?.devices;
    if (!devices) return undefined;
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

  /**
   * The devices a query reads, in the order a read returns them, and whether they are one
   * table's (one schema). Undefined when one read should give the answer or error (an
   * ambiguous table, an unknown tag or device, no device).
   */
  #selection(q: TsFileQuery): { devices: string[]; table: boolean } | undefined {
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
    return devices.length ? { devices, table: table !== undefined } : undefined;
  }

  /**
   * A one-thread read of many rows in pieces: consecutive devices grouped up to about
   * BATCH_BYTES of output each (from their index row counts), for the devices of one table
   * (one schema). Each piece's output leaves wasm memory before the next is decoded, so a
   * whole read grows wasm memory by one piece instead of the whole output (fewer first-touch
   * page faults on a first read, less memory kept). Undefined: read in one go.
   */
  async #pieces(q: TsFileQuery): Promise<{ groups: string[][]; rows: number } | undefined> {
    // A time range reads fewer rows than the index counts: the output buffers (Slabs),
    // sized from those counts, would be too large.
    if (q.limit !== undefined || q.start !== undefined || q.end !== undefined) return undefined;
    const sel = this.#selection(q);
    // Pieces name their devices by path: two devices of one path (a tag "null" beside a
    // null tag) would each be read twice.
    if (!sel?.table || sel.devices.length < 2 || new Set(sel.devices).size < sel.devices.length) return undefined;
    const fields = this.#fieldCount(q);
    const target = TsFile.pieceRows ?? tsfileBatchRows(fields);
    const groups: string[][] = [[]];
    let rows = 0;
    let total = 0;
    for (const d of sel.devices) {
      const span = await this.#span(d);
      const n = span.length >= 3 ? Number(span[2]) : 0;
      if (rows > 0 && rows + n > target) {
        groups.push([]);
        rows = 0;
      }
      groups[groups.length - 1]!.push(d);
      rows += n;
      total += n;
    }
    // The memory limit holds for the whole read: one over it is read in one go, which
    // fails with `too-large` as it would without pieces.
    if (total * 8 * (1 + fields) > (this.#core.readLimit(q.maxReadBytes) ?? DEFAULT_MAX_READ_BYTES)) return undefined;
    return groups.length > 1 ? { groups, rows: total } : undefined;
  }

  /** One piece of a read in pieces, its buffers copied out into the read's slabs. */
  #readPiece(q: TsFileQuery, slabs: Slabs): Promise<RecordBatch> {
    return this.#readCopied(q, (h) => slabs.copier(h.numRows(), Array.from(h.buffers().filter((_, i) => i % 2 === 1))));
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

  /** Rows a piece of a one-thread whole read holds at most (default: about 16 MiB of output); tests force small pieces. @internal */
  static pieceRows: number | undefined;

  /** A device's [start, end, rows], read from its index once (the file is read-only). */
  #span(device: string): Promise<BigInt64Array> {
    let p = this.#spans.get(device);
    if (!p) {
      p = this.#core.op(() => this.#core.call(() => this.#core.handle.deviceSpan(device)).finally(() => this.#core.release()));
      this.#spans.set(device, p);
      p.catch(() => this.#spans.delete(device));
    }
    return p;
  }

  /**
   * The same rows as `read`, in RecordBatches of at most `rows` rows (default: about 16 MiB
   * of output, see `tsfileBatchRows`), device after device. A device with more rows is cut
   * into time windows sized from its index (span and row count); each window is read with
   * a limit of `rows`, and a window holding more (times bunched up) goes on from the last
   * time read, so no batch exceeds `rows` whatever the times' spread.
   */
  async *batches(q: TsFileBatchQuery = {}): AsyncGenerator<RecordBatch> {
    checkAborted(q.signal);
    if (q.rows !== undefined && !(q.rows >= 1)) throw new RangeError('rows must be at least 1');
    const devices = q.devices ?? this.devices(q.table).filter((d) => !q.table || d.table === q.table).map((d) => d.path);
    const rows = Math.floor(q.rows ?? tsfileBatchRows(this.#fieldCount(q)));
    const { rows: _, lend, ...query } = q;
    // On a pool when there are two windows or more (one device of many rows included).
    if (this.#core.pooled && q.limit === undefined && (devices.length > 1 || (devices.length === 1 && (await this.#windows(devices[0]!, q, rows)).length > 1))) {
      // One job per device window on the pool, made as the pool takes them (a few ahead of
      // the consumer), yielded in order.
      const { pool } = this.#core.pooled;
      const limited = { ...query, maxReadBytes: this.#core.readLimit(q.maxReadBytes), mods: this.#mods };
      // A window holding more rows than `rows` (times bunched up) is cut (zero-copy slices).
      // (Jobs come back in order: `done` counts those whose bytes no worker reads any more.)
      const done = { jobs: 0 };
      for await (const b of pool.batches(this.#windowJobs(devices, q, rows, limited, done), { signal: q.signal, lend })) {
        done.jobs++;
        for (let i = 0; i < b.numRows; i += rows) yield i === 0 && b.numRows <= rows ? b : b.slice(i, i + rows);
      }
      return;
    }
    let left = q.limit ?? Infinity;
    // A Blob: each device's planned bytes read at once by its stream into a reused buffer,
    // the next device's read going out while this one decodes; each window copies the pages
    // it decodes from them.
    const buffers = !this.#core.byteHost && this.#core.reader.fill ? new ReusedBuffers(false, 2) : undefined;
    const device = buffers && this.#deviceBytes(devices, { ...query, maxReadBytes: this.#core.readLimit(q.maxReadBytes) }, buffers, q.signal);
    try {
      for (let k = 0; k < devices.length; k++) {
        const d = devices[k]!;
        const given = device && (await device(k)).given;
        // Windows of one device share chunks: the bytes fetched for one window stay supplied
        // for the next (a Blob or URL source), up to HOLD_BYTES, instead of being fetched again.
        this.#hold = !this.#core.byteHost && !given;
        for (const [a, b] of await this.#windows(d, q, rows)) {
          // A window goes on from the last time read, skipping the rows of that time already
          // yielded (`skip`): out-of-order chunk groups can hold a time more than once.
          let from = a;
          let skip = 0;
          for (;;) {
            if (left <= 0) return;
            const want = Math.min(rows, left);
            if (this.#core.suppliedBytes > HOLD_BYTES) this.#core.release();
            const read = await abortable(q.signal, () => this.readBatch({ ...query, devices: [d], start: from, end: b, limit: want + skip }, given));
            const batch = skip > 0 ? read.slice(Math.min(skip, read.numRows)) : read;
            left -= batch.numRows;
            if (batch.numRows > 0) yield batch;
            // Fewer rows than asked: the window is done; else go on from the last time read.
            if (read.numRows < want + skip || left <= 0) break;
            [from, skip] = lastTimes(read);
          }
        }
        this.#hold = false;
        this.#core.release();
        if (given) buffers!.give(given.bytes);
      }
    } finally {
      this.#hold = false;
      this.#core.release();
    }
  }

  /** While true, reads leave their fetched bytes supplied (windows of one device). */
  #hold = false;

  /**
   * The pool jobs of `batches()`, one per device window, made as the pool takes them. A
   * worker reads a path (or bytes in memory) itself, page by page straight into its own
   * wasm memory. A Blob or URL is read here instead, each device's chunks once (a worker
   * reading for itself fetches whole chunks, so the windows of one chunk would each fetch it
   * again), into shared memory that every window of the device reads the pages it decodes
   * from; without shared memory each window gets the ranges it plans to read, by transfer.
   */
  async *#windowJobs(devices: string[], q: TsFileBatchQuery, rows: number, limited: TsFileQuery & { mods?: Uint8Array }, done: { jobs: number }): AsyncGenerator<Job> {
    const { pool, ref } = this.#core.pooled!;
    // (A Blob workers cannot be sent, Node's file-backed ones, is read here all the same.)
    const fetchHere = ref.kind === 'blob' || ref.kind === 'url' || this.#core.reader.origin?.kind === 'blob';
    if (!fetchHere) {
      for (const d of devices) for (const [a, b] of await this.#windows(d, q, rows)) yield deviceJob(ref, limited, d, a, b);
      return;
    }
    // Each device's planned ranges, fetched at once when they fit the hold budget: with
    // shared memory into one SharedArrayBuffer that all its windows read (each copies the
    // pages it decodes), the next device's read going out while this one's windows decode;
    // the buffers go back for reuse once the jobs that read them are done.
    const buffers = pool.sharesInput ? new ReusedBuffers(true) : undefined;
    const reading: { last: number; bytes: Uint8Array }[] = [];
    let made = 0;
    const device = this.#deviceBytes(devices, limited, buffers, q.signal, () => {
      while (reading.length && reading[0]!.last < done.jobs) buffers!.give(reading.shift()!.bytes);
    });
    for (let k = 0; k < devices.length; k++) {
      const d = devices[k]!;
      const { all, given: shared } = await device(k);
      if (shared) {
        for (const [a, b] of await this.#windows(d, q, rows)) {
          made++;
          yield deviceJob(ref, limited, d, a, b, shared);
        }
        reading.push({ last: made - 1, bytes: shared.bytes });
        continue;
      }
      // Without shared memory: each window gets the ranges it plans to read, by transfer.
      const windows = await this.#windows(d, q, rows);
      const held = all && spanBytes(all) <= HOLD_BYTES ? await this.#core.fetchOwned(all, q.signal) : undefined;
      for (let i = 0; i < windows.length; i++) {
        const [a, b] = windows[i]!;
        const mine = windows.length === 1 ? all : await this.#plan({ ...limited, devices: [d], start: a, end: b }, q.signal);
        // A plan that fails is left to the worker's read, which reports it as this thread would.
        if (!mine) {
          made++;
          yield deviceJob(ref, limited, d, a, b);
          continue;
        }
        const last = i === windows.length - 1;
        const bytes = (held && cut(all!, held, mine, last)) ?? (await this.#core.fetchOwned(mine, q.signal));
        made++;
        yield deviceJob(ref, limited, d, a, b, { ranges: mine, bytes });
      }
    }
  }

  /**
   * Each device's planned ranges (`all`; undefined when planning fails) and, when `buffers`
   * are given and the ranges fit HOLD_BYTES, their bytes in one of them (`given`), device
   * after device: asking for device k also sends device k+1's read out, so it arrives while
   * device k decodes. `recycle` runs before each read (to give buffers back).
   */
  #deviceBytes(devices: string[], q: TsFileQuery, buffers: ReusedBuffers | undefined, signal: AbortSignal | undefined, recycle = () => {}) {
    type Got = { all?: number[]; given?: Given<Uint8Array> };
    const fetch = async (d: string): Promise<Got> => {
      const all = await this.#plan({ ...q, devices: [d] }, signal);
      if (!buffers || !all || spanBytes(all) > HOLD_BYTES) return { all };
      recycle();
      return { all, given: await this.#core.fetchGiven(all, buffers, signal) };
    };
    const started = new Map<number, Promise<Got>>();
    const start = (k: number) => {
      if (k >= devices.length || started.has(k)) return;
      const p = fetch(devices[k]!);
      p.catch(() => {}); // awaited at its turn (or dropped with the caller)
      started.set(k, p);
    };
    return (k: number): Promise<Got> => {
      start(k);
      start(k + 1);
      const p = started.get(k)!;
      started.delete(k);
      return p;
    };
  }

  /** The byte ranges (flat [start, end, ...]) a read plans to touch; undefined when planning fails. */
  async #plan(q: TsFileQuery, signal?: AbortSignal): Promise<number[] | undefined> {
    try {
      return await this.#core.op(async () => {
        const query = wasmCall(() => new this.#core.wasm.glue.TsQuery(wasmQuery(q)));
        try {
          return Array.from(await this.#core.call(() => this.#core.handle.plan(query), signal));
        } finally {
          query.free();
          this.#core.release();
        }
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      return undefined;
    }
  }

  /** Field columns a batch of the query holds (for the default rows per batch). */
  #fieldCount(q: TsFileQuery): number {
    if (q.columns?.length) return q.columns.length;
    const tables = this.tables();
    const table = q.table !== undefined ? this.schema(q.table) : tables.length === 1 ? tables[0] : undefined;
    return table ? table.columns.filter((c) => c.category === 'FIELD').length : 8;
  }

  /**
   * A device's time windows of about `rows` rows each, from its index span (inclusive
   * bounds within the query's start/end; `undefined` = open). One window (the query's own
   * range) when the span is unknown or small.
   */
  async #windows(device: string, q: TsFileQuery, rows: number): Promise<[TimeValue | undefined, TimeValue | undefined][]> {
    const whole: [TimeValue | undefined, TimeValue | undefined][] = [[q.start, q.end]];
    let span: BigInt64Array;
    try {
      span = await this.#span(device);
    } catch {
      return whole; // an unknown device: the read names it
    }
    if (span.length < 3 || span[2]! <= BigInt(rows)) return whole;
    const qs = toBig(q.start);
    const qe = toBig(q.end);
    const start = qs !== undefined && qs > span[0]! ? qs : span[0]!;
    const end = qe !== undefined && qe < span[1]! ? qe : span[1]!;
    if (end < start) return whole;
    const n = (span[2]! + BigInt(rows) - 1n) / BigInt(rows);
    const width = (end - start + 1n + n - 1n) / n;
    const out: [TimeValue | undefined, TimeValue | undefined][] = [];
    for (let a = start; a <= end; a += width) {
      const b = a + width - 1n < end ? a + width - 1n : end;
      out.push([a === start ? q.start : a, b === end ? q.end : b]);
    }
    return out;
  }

  /** @internal */
  private async readBatch(q: TsFileQuery, given?: Given<Uint8Array>): Promise<RecordBatch> {
    return this.#readCopied(q, () => outputCopy, given);
  }

  /** The decoded batch still in wasm memory (pool workers write it out themselves). @internal */
  async readHandle(q: TsFileQuery & { mods?: Uint8Array }, given?: Given<Uint8Array>): Promise<WasmBatchHandle> {
    const query = wasmCall(() => new this.#core.wasm.glue.TsQuery(wasmQuery(q, this.#core.readLimit(q.maxReadBytes)), q.mods ?? this.#mods));
    try {
      // A file in memory, or the bytes the main thread fetched for this read (a pool job's):
      // the reader pulls page by page, so a time slice copies a slice.
      const host = this.#core.byteHost ?? (given && this.#core.givenHost(given.ranges, given.bytes));
      if (host) return await this.#core.call(() => this.#core.handle.readFrom(query, host), q.signal);
      await this.#core.prefetch(await this.#core.call(() => this.#core.handle.plan(query), q.signal), q.signal);
      return await this.#core.call(() => this.#core.handle.read(query), q.signal);
    } finally {
      query.free();
      if (!this.#hold) this.#core.release();
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
