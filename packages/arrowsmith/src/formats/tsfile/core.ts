/** What the TsFile reader's parts share: the wasm reader's type, the file core, sizes, query conversion. */
import type { RecordBatch } from '../../arrow/lib.js';
import type { FileCore } from '../../file/core.js';
import type { Given } from '../../pool/protocol.js';
import type { TimeValue, TsFileQuery } from '../../types.js';
import type { TsQueryOptions } from '../../../wasm/arrowsmith_tsfile.js';
import type { Glues } from '../../wasm/instance.js';
import type { TsFileDevice, TsFileTable } from './types.js';

/** The wasm-side reader (crates/wasm/src/tsfile.rs), as its generated .d.ts types it. */
export type WasmTsFileReader = InstanceType<Glues['tsfile']['TsFileReader']>;

/** An open TsFile's core (`file/core.ts`). */
export type TsCore = FileCore<'tsfile', WasmTsFileReader>;

/** A query as pool jobs carry it: with the file's deletions. */
export type JobQuery = TsFileQuery & { mods?: Uint8Array };

/** What the parts of a read call back into the file for. */
export interface TsReads {
  readonly core: TsCore;
  /** The file's IoTDB deletions, when opened with them. */
  readonly mods: Uint8Array | undefined;
  tables(): TsFileTable[];
  devices(table?: string): TsFileDevice[];
  /** A device's [start, end, rows], from its index (read once). */
  span(device: string): Promise<BigInt64Array>;
  /** The byte ranges (flat [start, end, ...]) a read plans to touch; undefined when planning fails. */
  plan(q: TsFileQuery, signal?: AbortSignal): Promise<number[] | undefined>;
  /** One read on this thread (from `given` bytes when there are). */
  readBatch(q: TsFileQuery, given?: Given<Uint8Array>): Promise<RecordBatch>;
  /** While true, reads leave their fetched bytes supplied (windows of one device). */
  hold: boolean;
}

export const toBig = (t: TimeValue | undefined) => (t === undefined ? undefined : t instanceof Date ? BigInt(t.getTime()) : BigInt(t));

/** The wasm query's options for `q` (Dates as bigints; the wasm side validates every field). */
const wasmTime = (t: TimeValue | undefined) => (t instanceof Date ? BigInt(t.getTime()) : t);
export const wasmQuery = (q: TsFileQuery, maxReadBytes?: number): TsQueryOptions => ({ ...q, start: wasmTime(q.start), end: wasmTime(q.end), maxReadBytes });

/** Bytes of flat [start, end, ...] ranges. */
export function spanBytes(flat: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i + 1 < flat.length; i += 2) n += flat[i + 1]! - flat[i]!;
  return n;
}
