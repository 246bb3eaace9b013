/** Apache TsFile → Arrow: open a file (memory, Blob or URL), browse it, read queries. */
import { Table, type RecordBatch } from 'apache-arrow';
import type { WasmBatchHandle } from './arrow.js';
import { FileReaderBase } from './filereader.js';
import type { FileSource } from './source.js';
import { current, type Loaded } from './wasm.js';

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

export type TimeValue = number | bigint | Date;

export interface TsFileQuery {
  /** v4 table name (default: the only table, or the tree-model devices). */
  table?: string;
  /** Device paths to read (default: all). */
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
  /** Unit of the `time` column's Arrow type (the values are the file's). Default 'ms'. */
  timeUnit?: 's' | 'ms' | 'us' | 'ns';
}

interface Glue {
  supply(offset: number, bytes: Uint8Array): void;
  clearCache(): void;
  free(): void;
  open(): number;
  tables(): string;
  devices(table?: string): string;
  timeseries(): string;
  plan(q: unknown): Float64Array;
  read(q: unknown): WasmBatchHandle;
}
type QueryArgs = [string | undefined, string[], string[], bigint | undefined, bigint | undefined, string[], number | undefined];

const toBig = (t: TimeValue | undefined) => (t === undefined ? undefined : t instanceof Date ? BigInt(t.getTime()) : BigInt(t));

function args(q: TsFileQuery): QueryArgs {
  if (q.limit !== undefined && !(q.limit >= 0)) throw new RangeError('limit must be a non-negative number');
  return [q.table, q.devices ?? [], q.columns ?? [], toBig(q.start), toBig(q.end), Object.entries(q.tags ?? {}).flat(), q.limit];
}

/** Bytes read from the end of the file at open. */
const TAIL_PREFETCH = 64 * 1024;

export class TsFile extends FileReaderBase<Glue> {
  #version = 0;

  /** Format version byte: 3 (TsFile 1.x) or 4 (2.x). */
  get version(): number {
    return this.#version;
  }

  static open(source: FileSource): Promise<TsFile> {
    return TsFile.openWith(current(), source);
  }

  /** Open with a given module instance (benchmarks compare the SIMD and scalar builds). */
  static async openWith(wasm: Loaded, source: FileSource): Promise<TsFile> {
    // TsFile plans from its index alone, so even an in-memory file is handed over range by
    // range: a one-device query copies that device's chunks into wasm, not the whole file.
    const p = await FileReaderBase.prepare(wasm, source, (w, size) => new w.glue.TsFileReader(size) as unknown as Glue, false);
    const f = new TsFile(p.wasm, p.reader, p.handle);
    // The head magic and the tail (footer, metadata, usually the index) in one go, instead
    // of discovering them one missing range at a time.
    const size = p.reader.size;
    const tail = Math.max(4096, Math.min(TAIL_PREFETCH, Math.floor(size / 16)));
    await f.prefetch([0, Math.min(size, 4096), Math.max(0, size - tail), size]);
    f.#version = await f.call(() => p.handle.open());
    return f;
  }

  /** Table schemas (table model, v4). */
  tables(): TsFileTable[] {
    return JSON.parse(this.handle.tables());
  }

  schema(table: string): TsFileTable | undefined {
    return this.tables().find((t) => t.name === table);
  }

  devices(table?: string): TsFileDevice[] {
    return JSON.parse(this.handle.devices(table));
  }

  /** Every series: device path, measurement, type, encoding, compression, count, time range. */
  async timeseries(): Promise<TsFileSeries[]> {
    const raw = JSON.parse(await this.call(() => this.handle.timeseries())) as (Omit<TsFileSeries, 'start' | 'end'> & { start: string; end: string })[];
    return raw.map((s) => ({ ...s, start: BigInt(s.start), end: BigInt(s.end) }));
  }

  /** Read a query into one Arrow Table (`time`, tag columns, field columns). */
  async read(q: TsFileQuery = {}): Promise<Table> {
    return new Table([await this.readBatch(q)]);
  }

  /** The same rows as `read`, one RecordBatch per device. */
  async *batches(q: TsFileQuery = {}): AsyncGenerator<RecordBatch> {
    const devices = q.devices ?? this.devices(q.table).filter((d) => !q.table || d.table === q.table).map((d) => d.path);
    let left = q.limit ?? Infinity;
    for (const d of devices) {
      if (left <= 0) return;
      const b = await this.readBatch({ ...q, devices: [d], limit: Number.isFinite(left) ? left : undefined });
      left -= b.numRows;
      if (b.numRows > 0) yield b;
    }
  }

  private async readBatch(q: TsFileQuery): Promise<RecordBatch> {
    const query = new this.wasm.glue.TsQuery(...args(q));
    try {
      if (!this.inMemory) await this.prefetch(await this.call(() => this.handle.plan(query)));
      const h = await this.call(() => this.handle.read(query));
      const unit = q.timeUnit;
      return this.batch(h, unit ? (d) => d.fields.forEach((f) => f.name === 'time' && f.col.type === 'timestamp' && (f.col.unit = unit)) : undefined);
    } finally {
      query.free();
      this.release();
    }
  }
}

/** Open a TsFile from bytes, a Blob/File (read by slices), a URL (HTTP Range) or a `{ size, read }`. */
export function openTsFile(source: FileSource): Promise<TsFile> {
  return TsFile.open(source);
}
