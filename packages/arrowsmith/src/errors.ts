/** Where a decoder found a problem: which format, which byte, and why. */
export type DecodeErrorCode =
  | 'truncated'
  | 'invalid'
  | 'out-of-bounds'
  | 'too-deep'
  | 'invalid-utf8'
  | 'type-mismatch'
  | 'unsupported'
  | 'checksum'
  | 'compression'
  | 'not-found'
  | 'too-large'
  /** The call's arguments do not fit the data (a selection out of bounds, a zero step, the wrong rank). */
  | 'argument'
  /** A URL source failed: no answer in time, a refused or reset connection, an HTTP error (see `HttpError`). */
  | 'network'
  /** A URL source changed since it was opened (another size, ETag or Last-Modified). */
  | 'changed';

/**
 * Thrown for malformed or unsupported input, for a name the file does not hold, and for a
 * URL source that fails. `offset` is the byte offset into the input/file where the problem
 * was found; a `not-found` error (an unknown device, table, column or path) and an
 * `argument` error (a selection that does not fit) have none.
 */
export class DecodeError extends Error {
  readonly format: string;
  readonly offset?: number;
  readonly code: DecodeErrorCode;
  /** For `too-large`: the bytes the read would need. */
  readonly bytesNeeded?: number;

  constructor(format: string, offset: number | undefined, code: DecodeErrorCode, message: string, bytesNeeded?: number) {
    super(headline(format, code, message, offset));
    this.name = 'DecodeError';
    this.format = format;
    if (code !== 'not-found' && code !== 'argument' && offset !== undefined) this.offset = offset;
    this.code = code;
    if (bytesNeeded) this.bytesNeeded = bytesNeeded;
  }
}

/** The message, naming the format and stating the offset once (decoders often say it already). */
function headline(format: string, code: DecodeErrorCode, message: string, offset?: number): string {
  if (code === 'not-found' || code === 'argument') return `${format}: ${message}`;
  if (offset === undefined || new RegExp(`\\bbyte ${offset}\\b`).test(message)) return `${format} decode error: ${message}`;
  return `${format} decode error at byte ${offset}: ${message}`;
}

/**
 * The readers' internal signal "fetch bytes offset..offset+length and call again" (the
 * sans-I/O loop in file/supply.ts answers it). Never reaches users.
 */
export class NeedBytes extends Error {
  constructor(
    readonly format: string,
    readonly offset: number,
    readonly length: number,
  ) {
    super(`arrowsmith: internal error: ${format} bytes ${offset}..${offset + length} were needed and not fetched`);
    this.name = 'NeedBytes';
  }
}

interface WireError {
  arrowsmith: true;
  format: string;
  offset: number;
  code: DecodeErrorCode | 'need-bytes';
  need: number;
  message: string;
}

/** Run a wasm call, turning the boundary's JSON error strings into `DecodeError`s. */
export function wasmCall<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw toDecodeError(e);
  }
}

export function toDecodeError(e: unknown): unknown {
  if (typeof e === 'string' && e.startsWith('{"arrowsmith":true')) {
    const w = JSON.parse(e) as WireError;
    if (w.code === 'need-bytes') return new NeedBytes(w.format, w.offset, w.need);
    return new DecodeError(w.format, w.offset, w.code, w.message, w.need);
  }
  if (e instanceof WebAssembly.RuntimeError) {
    // A trap is a bug in Arrowsmith, never the caller's fault: say so plainly.
    return new Error(`arrowsmith: internal error in the wasm decoder (${e.message}); please report it with the input`);
  }
  return e;
}

/**
 * The pool's answer could differ from one thread's (pieces inferred different schemas, or a
 * piece of a bad input failed): the caller redoes the work whole on the calling thread.
 */
export class SchemaMismatch extends Error {}

/** What a closed file or pool throws when it is used again. */
export function closedError(what: string): Error {
  return new Error(`arrowsmith: this ${what} is closed`);
}
