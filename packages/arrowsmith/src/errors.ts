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
  /** A URL source failed: no answer in time, a refused or reset connection, an HTTP error (see `HttpError`). */
  | 'network'
  /** A URL source changed since it was opened (another size, ETag or Last-Modified). */
  | 'changed'
  | 'need-bytes';

/** Thrown for malformed or unsupported input. `offset` is a byte offset into the input/file. */
export class DecodeError extends Error {
  readonly format: string;
  readonly offset: number;
  readonly code: DecodeErrorCode;
  /** For the internal `need-bytes` signal: how many bytes from `offset` are wanted. */
  readonly needLength?: number;

  constructor(format: string, offset: number, code: DecodeErrorCode, message: string, needLength?: number) {
    super(`${format} decode error at byte ${offset}: ${message}`);
    this.name = 'DecodeError';
    this.format = format;
    this.offset = offset;
    this.code = code;
    if (needLength) this.needLength = needLength;
  }
}

interface WireError {
  arrowsmith: true;
  format: string;
  offset: number;
  code: DecodeErrorCode;
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
    return new DecodeError(w.format, w.offset, w.code, w.message, w.need);
  }
  if (e instanceof WebAssembly.RuntimeError) {
    // A trap is a bug in Arrowsmith, never the caller's fault: say so plainly.
    return new Error(`arrowsmith: internal error in the wasm decoder (${e.message}); please report it with the input`);
  }
  return e;
}

/** The pool's pieces do not share one schema (a decoder inferred types per piece): redo the work whole. */
export class SchemaMismatch extends Error {}
