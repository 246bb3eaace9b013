/**
 * What the readers accept as input. MessagePack takes the bytes whole; the file formats
 * (TsFile, HDF5) take a random-access source and ask for ranges, never for the whole file:
 * a `Blob` is read by slices, a URL with HTTP Range requests (http.ts), a Node file by
 * positioned reads into reused buffers. Bytes in memory are simply sliced.
 */
import { abortable, checkAborted } from './abort.js';
import { httpReader, type HttpOptions } from './http.js';

/** Bytes already in memory (read synchronously). */
export type BytesLike = Uint8Array | ArrayBuffer | SharedArrayBuffer | DataView;

/** What the readers use of a Node `fs.promises.FileHandle` (any open FileHandle fits). */
export interface FileHandleLike {
  readonly fd: number;
  stat(): Promise<{ size: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * Where bytes come from: memory, a `Blob`/`File`, a `URL` (or URL string), a `Response`;
 * in Node also a path string, a `file:` URL and a `FileHandle`.
 */
export type ByteInput = BytesLike | Blob | URL | Response | string | FileHandleLike;

/** Anything with a size and a ranged read. */
export interface RangeReader {
  readonly size: number;
  /** The `length` bytes at `offset`; `signal` cancels the read (URL sources), rejecting with its reason. */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/** What TsFile and HDF5 files are opened from: any {@link ByteInput}, or a custom {@link RangeReader}. */
export type FileSource = ByteInput | RangeReader;

/** Where a reader's bytes live, so that a pool worker can reach them itself. */
export type Origin = { kind: 'blob'; blob: Blob } | { kind: 'url'; url: string } | { kind: 'path'; path: string };

/** A RangeReader as the file readers hold it. */
export interface Source extends RangeReader {
  /** The whole file, when it is in memory. */
  readonly bytes?: Uint8Array;
  readonly origin?: Origin;
  /** Read into a reused buffer, handed to `use` only for the call's duration. */
  lend?<T>(offset: number, length: number, use: (bytes: Uint8Array) => T, signal?: AbortSignal): Promise<T>;
  /**
   * Read the file's bytes at `offset` into `dst` (a Blob: its stream's chunks copied in as
   * they come, no whole-range buffer assembled first); resolves to the bytes written (fewer
   * than `dst` holds: the file ends first).
   */
  fill?(offset: number, dst: Uint8Array, signal?: AbortSignal): Promise<number>;
  /**
   * Copy the file's bytes at `offset` into all of `dst`, synchronously (a Node file: a
   * positioned `readSync` straight into the target, wasm memory included), or throw.
   */
  readInto?(offset: number, dst: Uint8Array): void;
  /** Release what opening took (a file descriptor the reader opened). */
  close?(): Promise<void>;
}

/**
 * Set by the Node entry (node-files.ts): open a path or `file:` URL string for reading, and
 * read a file descriptor synchronously at a position (`fs.readSync`; returns the bytes read).
 */
export const fileSystem: {
  open?: (path: string) => Promise<FileHandleLike>;
  readSync?: (fd: number, dst: Uint8Array, position: number) => number;
  /** Blob streams read by their default reader (Node: BYOB reads of a file-backed Blob cost it more CPU). */
  plainBlobReads?: boolean;
} = {};

const tag = (x: unknown) => Object.prototype.toString.call(x).slice(8, -1);

/** The bytes of an in-memory input, or undefined (works across realms: iframes, vm contexts). */
export function memoryBytes(x: unknown): Uint8Array | undefined {
  if (x instanceof Uint8Array) return x;
  switch (tag(x)) {
    case 'Uint8Array':
    case 'Uint8ClampedArray':
    case 'DataView': {
      const v = x as ArrayBufferView;
      return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    }
    case 'ArrayBuffer':
    case 'SharedArrayBuffer':
      return new Uint8Array(x as ArrayBuffer);
  }
  return undefined;
}

const isBlob = (x: unknown): x is Blob => typeof Blob !== 'undefined' && (x instanceof Blob || tag(x) === 'Blob' || tag(x) === 'File');
/**
 * By its tag (a Response's prototype names itself), never by `instanceof Response`: in Node
 * the first touch of the global `Response` loads the fetch implementation and compiles its
 * HTTP parser (wasm), ~10–40 ms before a first read that never fetches (docs/decisions.md).
 */
export const isResponse = (x: unknown): x is Response => tag(x) === 'Response';
const isUrl = (x: unknown): x is URL => x instanceof URL || tag(x) === 'URL';
const isFileHandle = (x: unknown): x is FileHandleLike =>
  typeof x === 'object' && x !== null && typeof (x as FileHandleLike).fd === 'number' && typeof (x as FileHandleLike).stat === 'function' && typeof (x as FileHandleLike).read === 'function';
const isRangeReader = (x: unknown): x is RangeReader =>
  typeof x === 'object' && x !== null && typeof (x as RangeReader).read === 'function' && Number.isFinite((x as RangeReader).size);

/** What was passed, for a TypeError: "a number (42)", "a Float32Array", "an object with keys a, b". */
export function describeInput(x: unknown): string {
  if (x === null || x === undefined) return String(x);
  if (typeof x === 'string') return `the string ${JSON.stringify(x.length > 60 ? `${x.slice(0, 57)}...` : x)}`;
  if (typeof x !== 'object' && typeof x !== 'function') return `a ${typeof x} (${String(x)})`;
  const name = (Object.getPrototypeOf(x) as { constructor?: { name?: string } } | null)?.constructor?.name;
  if (name && name !== 'Object') return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`; // a Uint8Array, a URL
  const keys = Object.keys(x).slice(0, 5);
  return keys.length ? `an object with keys ${keys.join(', ')}` : 'an empty object';
}

const BYTES = 'a Uint8Array, ArrayBuffer or DataView';
const INPUTS = `${BYTES}, a Blob/File, a URL, a Response, or in Node a path, a file: URL or a FileHandle`;

/** The bytes for a synchronous decode, or a TypeError naming what was passed instead. */
export function bytesArg(x: unknown, who: string, async?: string): Uint8Array {
  const b = memoryBytes(x);
  if (b) return b;
  if (ArrayBuffer.isView(x)) throw new TypeError(`arrowsmith: ${who} takes bytes, not ${describeInput(x)}; view its bytes: new Uint8Array(x.buffer, x.byteOffset, x.byteLength)`);
  const later = async && (isBlob(x) || isResponse(x) || isUrl(x) || typeof x === 'string' || isFileHandle(x));
  throw new TypeError(`arrowsmith: ${who} takes ${BYTES} (in memory), not ${describeInput(x)}${later ? `; ${async} also reads a Blob, URL, Response or file` : ''}`);
}

/** Where a string or URL points: a URL to fetch, or (Node) a file to open. */
function place(x: string | URL): Origin & { kind: 'url' | 'path' } {
  const s = String(x);
  if (!fileSystem.open || /^(https?|data|blob):/i.test(s)) return { kind: 'url', url: s };
  if (isUrl(x) && x.protocol !== 'file:') return { kind: 'url', url: s };
  return { kind: 'path', path: s };
}

/** The bytes of a Response (the whole body: a Response is one stream). */
async function responseBytes(r: Response, what: string): Promise<Uint8Array> {
  await responseBody(r, what);
  return new Uint8Array(await r.arrayBuffer());
}

/** All of an input's bytes (MessagePack decodes whole buffers). */
export function readAll(x: ByteInput | RangeReader, who: string, signal?: AbortSignal): Promise<Uint8Array> {
  const b = memoryBytes(x);
  if (b) return abortable(signal, async () => b);
  return abortable(signal, async () => {
    if (isBlob(x)) return new Uint8Array(await x.arrayBuffer());
    if (isResponse(x)) return responseBytes(x, `the Response for ${x.url || 'a request'}`);
    const r = await toRangeReader(x, { who, format: 'MessagePack', http: { signal } });
    try {
      checkAborted(signal);
      return await r.read(0, r.size, signal);
    } finally {
      await r.close?.();
    }
  });
}

/** Chunks of a stream of bytes (a `fetch` body, a Node stream, an array of Uint8Arrays). */
export type ChunkSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Bytes per read when a file or FileHandle is streamed. */
const STREAM_CHUNK = 1024 * 1024;

/**
 * An input as a sequence of byte chunks: a stream or iterable of chunks as it comes, any
 * other input (bytes, Blob, URL, Response, file) read front to back.
 */
export async function* byteChunks(x: ChunkSource | ByteInput, who: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const whole = memoryBytes(x);
  if (whole) return yield whole;
  let stream: ReadableStream<Uint8Array> | undefined;
  if (typeof (x as ReadableStream).getReader === 'function') stream = x as ReadableStream<Uint8Array>;
  else if (isResponse(x)) stream = (await responseBody(x, `the Response for ${x.url || 'a request'}`)) ?? undefined;
  else if (isBlob(x)) stream = x.stream() as ReadableStream<Uint8Array>;
  else if ((typeof x === 'string' || isUrl(x)) && place(x).kind === 'url') stream = (await responseBody(await fetch(String(x), { signal }), `GET ${String(x)}`)) ?? undefined;
  if (stream) {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        checkAborted(signal);
        yield chunkArg(value, who);
      }
    } finally {
      if (signal?.aborted) await reader.cancel(signal.reason).catch(() => {});
      reader.releaseLock();
    }
  }
  if (typeof x === 'string' || isUrl(x) || isFileHandle(x)) {
    const r = await toRangeReader(x, { who, format: 'MessagePack', http: { signal } });
    try {
      for (let at = 0; at < r.size; at += STREAM_CHUNK) {
        checkAborted(signal);
        yield await r.read(at, STREAM_CHUNK, signal);
      }
    } finally {
      await r.close?.();
    }
    return;
  }
  if (typeof x === 'object' && x !== null && (Symbol.asyncIterator in x || Symbol.iterator in x)) {
    for await (const c of x as AsyncIterable<unknown>) {
      checkAborted(signal);
      yield chunkArg(c, who);
    }
    return;
  }
  throw new TypeError(`arrowsmith: ${who} takes a ReadableStream, an (async) iterable of Uint8Arrays, ${INPUTS}, not ${describeInput(x)}`);
}

/** One chunk of a stream: bytes, or a TypeError naming what came instead. */
function chunkArg(c: unknown, who: string): Uint8Array {
  const b = memoryBytes(c);
  if (!b) throw new TypeError(`arrowsmith: ${who}: a stream chunk must be bytes (Uint8Array, ArrayBuffer, DataView), not ${describeInput(c)}`);
  return b;
}

async function responseBody(r: Response, what: string): Promise<ReadableStream<Uint8Array> | null> {
  if (!r.ok) throw new Error(`arrowsmith: ${what} failed: HTTP ${r.status}`);
  if (r.bodyUsed) throw new TypeError(`arrowsmith: the body of the Response for ${r.url || what} was already read`);
  return r.body;
}

/** How a source is opened: `who` names the caller in a TypeError, `format` the file in network errors. */
export interface OpenSource {
  who: string;
  format: string;
  /** How a URL is fetched (and the signal that cancels the open). */
  http?: HttpOptions;
}

/** A ranged reader over any file source. */
export async function toRangeReader(x: FileSource, how: OpenSource): Promise<Source> {
  const { who, format, http } = how;
  const signal = http?.signal;
  const b = memoryBytes(x);
  if (b) return bytesReader(b);
  if (isBlob(x)) {
    const blob = x;
    return { size: blob.size, origin: { kind: 'blob', blob }, read: async (offset, length) => new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()), fill: (offset, dst, signal) => blobInto(blob, offset, dst, signal) };
  }
  if (isResponse(x)) return bytesReader(await responseBytes(x, `the Response for ${x.url || 'a request'}`));
  if (typeof x === 'string' || isUrl(x)) {
    const p = place(x);
    if (p.kind === 'url') return Object.assign(await httpReader(p.url, format, http), { origin: p });
    const fh = await fileSystem.open!(p.path);
    try {
      checkAborted(signal);
      return handleReader(fh, (await fh.stat()).size, true, p, true);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }
  // Node's own FileHandle (not a look-alike, whose fd may not be what its read() reads).
  if (isFileHandle(x)) return handleReader(x, (await x.stat()).size, false, undefined, x.constructor?.name === 'FileHandle');
  if (isRangeReader(x)) return x;
  if (ArrayBuffer.isView(x)) throw new TypeError(`arrowsmith: ${who} takes bytes, not ${describeInput(x)}; view its bytes: new Uint8Array(x.buffer, x.byteOffset, x.byteLength)`);
  throw new TypeError(`arrowsmith: ${who} takes ${INPUTS} or a { size, read(offset, length) } reader, not ${describeInput(x)}`);
}

/**
 * Blob streams being read. Chromium collects a Blob's byte stream that nothing else holds
 * while a BYOB read of it is pending, and that read then never settles.
 */
const reading = new Set<ReadableStream<Uint8Array>>();
/** Buffers for BYOB reads, reused (each read hands its buffer back, moved into a new ArrayBuffer). */
const byobSpare: ArrayBuffer[] = [];
const BYOB_BYTES = 1 << 20;
const BYOB_KEEP = 4;

/**
 * A Blob's bytes at `offset` into `dst`, by its stream: each chunk is copied into place as it
 * comes (Node's `arrayBuffer()` gathers the same chunks and copies them into one buffer
 * first, a second copy of every byte on the calling thread). Where the stream takes a BYOB
 * reader (browsers), it reads into a few reused buffers instead of a fresh chunk each time:
 * a third less CPU and a third of the memory in Chromium (bench/results/big.md). Resolves to
 * the bytes written.
 */
async function blobInto(blob: Blob, offset: number, dst: Uint8Array, signal?: AbortSignal): Promise<number> {
  checkAborted(signal);
  const stream = blob.slice(offset, offset + dst.length).stream() as ReadableStream<Uint8Array>;
  const byob = fileSystem.plainBlobReads ? undefined : byobReader(stream);
  const plain = byob ? undefined : stream.getReader();
  const reader = byob ?? plain!;
  let buf = byob && (byobSpare.pop() ?? new ArrayBuffer(BYOB_BYTES));
  reading.add(stream);
  let at = 0;
  try {
    for (;;) {
      const { done, value } = byob ? await byob.read(new Uint8Array(buf!)) : await plain!.read();
      if (byob && value) buf = value.buffer as ArrayBuffer;
      if (done) return at;
      checkAborted(signal);
      dst.set(value, at); // (a RangeError should a Blob give more than its slice holds)
      at += value.length;
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
    reading.delete(stream);
    // (A buffer moved into a read that failed is detached: byteLength 0.)
    if (buf && buf.byteLength > 0 && byobSpare.length < BYOB_KEEP) byobSpare.push(buf);
  }
}

/** The stream's BYOB reader, where it is a byte stream that has one. */
function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
}

function bytesReader(b: Uint8Array): Source {
  return { size: b.length, bytes: b, read: async (offset, length) => b.subarray(offset, offset + length) };
}

/** The whole file when the source already holds it in memory (no range round trips). */
export function wholeBytes(r: RangeReader): Uint8Array | undefined {
  return (r as Source).bytes;
}

/** Read a range into a reused buffer when the reader has one, else into a fresh one. */
export function lendRange<T>(r: RangeReader, offset: number, length: number, signal: AbortSignal | undefined, use: (bytes: Uint8Array) => T): Promise<T> {
  const s = r as Source;
  return s.lend ? s.lend(offset, length, use, signal) : r.read(offset, length, signal).then(use);
}

/** Scratch buffers a file reader keeps for reuse (larger reads get a buffer of their own). */
const SCRATCH_KEEP = 4 * 1024 * 1024;
const SCRATCH_COUNT = 4;

/**
 * A file read with positioned reads, never whole: a Node FileHandle (`native`) also
 * synchronously straight into a target (`readInto`: wasm memory); otherwise
 * `FileHandle.read`, where ranges copied on at once (into wasm memory) go through a few
 * reused scratch buffers.
 */
function handleReader(fh: FileHandleLike, size: number, owned: boolean, origin?: Origin, native = false): Source {
  const spare: Uint8Array[] = [];
  const fill = async (dst: Uint8Array, offset: number) => {
    for (let got = 0; got < dst.length; ) {
      const { bytesRead } = await fh.read(dst, got, dst.length - got, offset + got);
      if (bytesRead === 0) throw ends(offset + got);
      got += bytesRead;
    }
    return dst;
  };
  const span = (offset: number, length: number) => Math.max(0, Math.min(length, size - offset));
  const ends = (at: number) => new Error(`arrowsmith: the file ends at byte ${at}, before the ${size} bytes it had when opened`);
  const readSync = native ? fileSystem.readSync : undefined;
  let closed: Promise<void> | undefined;
  return {
    size,
    origin,
    // Synchronous positioned reads: a decode pulls the bytes it reaches straight into wasm
    // memory (no staging buffer, no plan and restart), as it does from bytes in memory.
    readInto: readSync
      ? (offset, dst) => {
          if (closed) throw new Error('arrowsmith: the file was closed');
          for (let got = 0; got < dst.length; ) {
            const n = readSync(fh.fd, dst.subarray(got), offset + got);
            if (n === 0) throw ends(offset + got);
            got += n;
          }
        }
      : undefined,
    read: (offset, length, signal) => {
      checkAborted(signal);
      return fill(new Uint8Array(span(offset, length)), offset);
    },
    async lend(offset, length, use, signal) {
      checkAborted(signal);
      const n = span(offset, length);
      const i = spare.findIndex((b) => b.length >= n);
      const buf = i >= 0 ? spare.splice(i, 1)[0]! : new Uint8Array(Math.max(n, 64 * 1024));
      try {
        return use(await fill(buf.subarray(0, n), offset));
      } finally {
        if (buf.length <= SCRATCH_KEEP && spare.length < SCRATCH_COUNT) spare.push(buf);
      }
    },
    close: owned ? () => (closed ??= fh.close()) : undefined,
  };
}
