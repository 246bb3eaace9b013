/** MessagePack → Arrow: whole buffers and streams of chunks. */
import type { RecordBatch, Table } from 'apache-arrow';
import { abortable, checkAborted } from '../../io/abort.js';
import { toRecordBatch, toTable } from '../../arrow/batch.js';
import { toDecodeError, wasmCall } from '../../errors.js';
import type { Pool } from '../../pool/pool.js';
import { pooledOrThread, pooledTable } from '../read.js';
import { guessCuts, isNumberArray } from './cuts.js';
import { decodeOptions, withConfig, type MsgpackDecodeOptions } from '../../wasm/msgpack-options.js';
import { isShared, type Decoded, type Job } from '../../pool/protocol.js';
import { byteChunks, bytesArg, readAll, type ByteInput, type BytesLike, type ChunkSource } from '../../io/source.js';
import type { ReadOptions, WasmBatchHandle } from '../../types.js';
import { instance, instanceAsync, type Loaded } from '../../wasm/instance.js';

export interface MsgpackOptions extends MsgpackDecodeOptions {
  /**
   * Default true: the table owns its memory. `false` returns views into wasm memory that
   * stay valid only until the next Arrowsmith call (they are then freed and may move).
   */
  copy?: boolean;
}

export interface MsgpackAsyncOptions extends Omit<MsgpackOptions, 'copy'>, ReadOptions {
  /**
   * Decode on this worker pool: the input is cut at row boundaries by a structural scan.
   * Undefined: on the calling thread.
   */
  pool?: Pool;
}

export interface MsgpackStreamOptions extends Omit<MsgpackOptions, 'copy'>, ReadOptions {
  /** Rows per emitted RecordBatch. Default 65536. */
  batchRows?: number;
}

/** The one batch whose buffers are lent out as views (copy: false) until the next call. */
let lent: WasmBatchHandle | undefined;

/** @internal */
export function releaseLent(): void {
  lent?.free();
  lent = undefined;
}

/** Decode with a given module instance (benchmarks compare builds). @internal */
export function decodeWith(w: Loaded<'msgpack'>, bytes: Uint8Array, options: MsgpackOptions = {}): Table {
  releaseLent();
  const h = withConfig(w.glue, options, (c) => wasmCall(() => w.glue.decodeMsgpack(bytes, c))) as WasmBatchHandle;
  const copy = options.copy ?? true;
  try {
    return toTable([toRecordBatch(w, h, copy)]);
  } finally {
    if (copy) h.free();
    else lent = h;
  }
}

/**
 * Decode a whole MessagePack buffer (in memory) into an Arrow Table, synchronously. For a
 * Blob, URL, Response or file, a worker pool or an AbortSignal: {@link decodeMsgpackAsync}.
 */
export function decodeMsgpack(bytes: BytesLike, options?: MsgpackOptions): Table {
  if ((options as { pool?: unknown } | undefined)?.pool !== undefined) throw new TypeError('arrowsmith: decodeMsgpack is synchronous and takes no pool; use decodeMsgpackAsync(bytes, { pool })');
  return decodeWith(instance('msgpack'), bytesArg(bytes, 'decodeMsgpack', 'decodeMsgpackAsync'), options);
}

/**
 * Decode MessagePack from any input (bytes, Blob/File, URL, Response; in Node a path,
 * `file:` URL or FileHandle) into an Arrow Table. With `pool`, the decode runs in parallel
 * on the workers; without, on this thread. `signal` rejects the Promise with its reason.
 */
export function decodeMsgpackAsync(input: ByteInput, options: MsgpackAsyncOptions = {}): Promise<Table> {
  const { pool, signal, ...rest } = options;
  return abortable(signal, async () => {
    const bytes = await readAll(input, 'decodeMsgpackAsync', signal);
    checkAborted(signal);
    const w = await instanceAsync('msgpack');
    return pool ? decodePooled(w, bytes, pool, rest, signal) : decodeWith(w, bytes, rest);
  });
}

/**
 * Pieces of whole rows, one job each. When the pieces infer different column types
 * (say one piece holds only ints and the next a float), one thread decodes it all, so
 * the result is always what a single decode gives.
 */
async function decodePooled(w: Loaded<'msgpack'>, bytes: Uint8Array, pool: Pool, rest: Omit<MsgpackOptions, 'copy'>, signal?: AbortSignal): Promise<Table> {
  const opts = decodeOptions(rest);
  const shared = isShared(bytes.buffer);
  const piece = (a: number, b: number, inArray: boolean): Job => ({ kind: 'msgpack', bytes: shared ? bytes.subarray(a, b) : bytes.slice(a, b), base: a, inArray, options: opts });
  // Input too small to share: the round trips would cost more than the decode.
  const most = pool.pieces(bytes.length, 2 * pool.size);
  if (most < 2 || (rest.layout !== 'stream' && isNumberArray(bytes))) return decodeWith(w, bytes, rest);
  // Records: cut at guessed row starts and let the decodes prove the guess (cuts.ts).
  const guess = guessCuts(bytes, rest.layout ?? 'auto', most);
  if (guess) {
    const jobs = guess.cuts.slice(1).map((b, i) => piece(guess.cuts[i]!, b, guess.inArray));
    const addsUp = (rs: Decoded[]) => guess.rows === undefined || rs.reduce((n, r) => n + r.desc.rows, 0) === guess.rows;
    const t = await pooledTable(pool, jobs, { signal, speculative: addsUp });
    if (t) return t;
  }
  let split: Float64Array;
  try {
    split = withConfig(w.glue, opts, (c) => wasmCall(() => w.glue.msgpackSplit(bytes, most, c))) as Float64Array;
  } catch {
    // Bad input: the scan's error may not be the decode's; one decode gives the answer.
    return decodeWith(w, bytes, rest);
  }
  const inArray = split[0] === 1;
  const jobs: Job[] = [];
  for (let i = 1; i + 2 < split.length; i += 3) jobs.push(piece(split[i]!, split[i + 1]!, inArray));
  return (await pooledOrThread(jobs.length > 1 ? pool : undefined, () => jobs, async () => decodeWith(w, bytes, rest), { signal }));
}

/**
 * Decode MessagePack as its bytes arrive (e.g. a `fetch` body) with a given module instance:
 * a RecordBatch is yielded as soon as `batchRows` complete rows have arrived; the rest comes
 * at the end.
 * @internal
 */
export async function* decodeMsgpackStreamWith(
  w: Loaded<'msgpack'>,
  source: ChunkSource | ByteInput,
  options: MsgpackStreamOptions = {},
): AsyncGenerator<RecordBatch> {
  const rows = options.batchRows ?? 65536;
  if (!(rows >= 1)) throw new RangeError('batchRows must be at least 1');
  const s = withConfig(w.glue, decodeOptions(options), (c) => new w.glue.MsgpackStream(c));
  const take = (h: WasmBatchHandle | undefined): RecordBatch | undefined => {
    if (!h) return undefined;
    try {
      return toRecordBatch(w, h, true);
    } finally {
      h.free();
    }
  };
  try {
    for await (const chunk of byteChunks(source, 'decodeMsgpackStream', options.signal)) {
      wasmCall(() => s.push(chunk));
      // A batch leaves once more than `rows` rows are ready, so that a first top-level
      // array of exactly `rows` elements is never taken before the next byte shows
      // whether another array follows (concatenated arrays: each one is a row, as
      // decodeMsgpack reads them; docs/msgpack.md).
      while (s.readyRows() > rows) {
        const b = take(wasmCall(() => s.takeBatch(rows)) as WasmBatchHandle | undefined);
        if (b) yield b;
      }
    }
    // End of input: the complete rows in batches of `rows`, then whatever finish() adds
    // (an incomplete last value is an error there).
    while (s.readyRows() > 0) {
      const b = take(wasmCall(() => s.takeBatch(rows)) as WasmBatchHandle | undefined);
      if (!b) break;
      yield b;
    }
    const last = take(wasmCall(() => s.finish()) as WasmBatchHandle | undefined);
    if (last && last.numRows > 0) yield last;
  } catch (e) {
    throw toDecodeError(e);
  } finally {
    s.free();
  }
}

/**
 * Decode MessagePack as its bytes arrive: from a ReadableStream (a `fetch` body), an
 * (async) iterable of chunks, or any input (Blob, URL, Response, file) read front to back.
 */
export function decodeMsgpackStream(source: ChunkSource | ByteInput, options?: MsgpackStreamOptions): AsyncGenerator<RecordBatch> {
  return decodeMsgpackStreamWith(instance('msgpack'), source, options);
}
