/**
 * Files over HTTP(S), read by Range requests. A network is not a disk: every request has a
 * deadline, failures that may pass (429, 5xx, a reset or early close) are retried with
 * backoff, and the file's identity (size, ETag, Last-Modified) recorded at open is checked
 * on every response, so a file replaced between two reads is an error (`changed`), never a
 * table mixing both versions. Every failure is an {@link HttpError} (a `DecodeError`).
 */
import { DecodeError, type DecodeErrorCode } from '../errors.js';
import { ByteCache } from './byte-cache.js';
import { describe, readBody, retryAfter, sleep } from './http-body.js';

/** How URL sources are fetched (options of `openHdf5`/`openTsFile` for a URL). */
export interface HttpOptions {
  /**
   * Milliseconds one request may take, from sending it to the last byte of its body; a
   * range over 1 MiB gets one more second per MiB. Default 30 000. A request that runs out
   * of time fails with code `network` (not retried: the limit is the caller's patience).
   */
  timeout?: number;
  /** Retries of a request that failed with HTTP 429 or 5xx, a reset or an early close. Default 3. */
  retries?: number;
  /**
   * Delay before the first retry in ms, doubled for each next one (with jitter; at most
   * 10 s; a server's `Retry-After` is honoured up to that). Default 250.
   */
  retryDelay?: number;
  /** Cancels the open (its requests are aborted), rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/** What identifies one version of a remote file (recorded at open). */
export interface FileIdentity {
  size: number;
  etag?: string;
  lastModified?: string;
}

/** Options a pool worker needs to read the same file the same way (no signal: not cloneable). */
export type HttpPolicy = Required<Omit<HttpOptions, 'signal'>>;

export const HTTP_DEFAULTS: HttpPolicy = { timeout: 30_000, retries: 3, retryDelay: 250 };

/** The longest wait between two attempts of a request. */
const MAX_RETRY_DELAY = 10_000;

/** Bytes a URL reader keeps for repeated reads of the same ranges. */
export const URL_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * A failure reading a file over HTTP: code `network` (no answer in time, a refused or
 * reset connection, an unexpected status, a response that does not answer the request),
 * `changed` (the file is not the one opened) or `truncated` (the file ends before the
 * bytes it announced). `url` is the file's URL, `status` the HTTP status when there was a
 * response, `cause` the underlying error when there was one.
 */
export class HttpError extends DecodeError {
  readonly url: string;
  readonly status?: number;
  constructor(format: string, url: string, offset: number, code: DecodeErrorCode, message: string, extra: { status?: number; cause?: unknown } = {}) {
    super(format, offset, code, message);
    this.name = 'HttpError';
    this.url = url;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.cause !== undefined) Object.defineProperty(this, 'cause', { value: extra.cause, configurable: true, writable: true });
  }
}

/** Open a URL for ranged reads: learn its size and identity (HEAD, else a one-byte GET). */
export async function httpReader(url: string, format: string, options: HttpOptions = {}, known?: FileIdentity): Promise<HttpReader> {
  const net = new Http(url, format, httpPolicy(options));
  if (known) return net.reader(known);
  const signal = options.signal;
  // HEAD answered with an error status (405, 403, ...) is not fatal: the GET below says more.
  const head = await net.request({ method: 'HEAD', at: 0, signal, allow: (s) => s < 500 && !RETRY_STATUS.has(s) }, async (a) => a);
  const length = head.headers.get('content-length');
  if (head.status === 200 && length !== null && /^\d+$/.test(length.trim()) && head.headers.get('accept-ranges') !== 'none') {
    return net.reader(identityOf(head.headers, Number(length)));
  }
  // No usable size: ask for the first byte; the Content-Range tells the size.
  const first = await net.request({ method: 'GET', range: [0, 0], at: 0, signal, allow: (s) => s === 206 || s === 200 }, async (a) => {
    if (a.status === 206 && encoded(a.headers)) return undefined;
    const total = a.status === 206 ? parseContentRange(a.headers.get('content-range'))?.total : undefined;
    if (total !== undefined) return net.reader(identityOf(a.headers, total));
    // The server ignores Range: one download of the whole file, served from memory from now on.
    const length = a.headers.get('content-length');
    const whole = await a.body(length !== null && /^\d+$/.test(length.trim()) ? Number(length) : undefined);
    warnWhole(url, whole.length);
    return net.reader(identityOf(a.headers, whole.length), whole);
  });
  if (first) return first;
  const whole = await net.wholeFile(signal);
  return net.reader(identityOf(whole.headers, whole.bytes.length), whole.bytes);
}

/**
 * A 206 whose body is content-coded (gzip, br...): the range is over the compressed bytes
 * (Vite's preview server does this), which the browser then decodes, so its bytes are not
 * the file's. Such a server's ranges cannot be used.
 */
function encoded(h: Headers): boolean {
  const e = h.get('content-encoding');
  return e !== null && e.trim().toLowerCase() !== 'identity';
}

/** A URL's reader (a `RangeReader`), with what a pool worker needs to open the same file the same way. */
export interface HttpReader {
  readonly size: number;
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  readonly identity: FileIdentity;
  readonly policy: HttpPolicy;
}

export function isHttp(r: object): r is HttpReader {
  return 'identity' in r && 'policy' in r;
}

export function httpPolicy(options: HttpOptions = {}): HttpPolicy {
  const num = (v: number | undefined, d: number, name: string) => {
    if (v === undefined) return d;
    if (!(v >= 0)) throw new RangeError(`arrowsmith: ${name} must be a non-negative number`);
    return v;
  };
  return {
    timeout: num(options.timeout, HTTP_DEFAULTS.timeout, 'timeout'),
    retries: Math.floor(num(options.retries, HTTP_DEFAULTS.retries, 'retries')),
    retryDelay: num(options.retryDelay, HTTP_DEFAULTS.retryDelay, 'retryDelay'),
  };
}

/** The identity of a file as a response tells it. */
function identityOf(h: Headers, size: number): FileIdentity {
  const id: FileIdentity = { size };
  const etag = h.get('etag');
  const lm = h.get('last-modified');
  if (etag) id.etag = etag;
  if (lm) id.lastModified = lm;
  return id;
}

/** Weak comparison (RFC 9110 8.8.3.2): a `W/` prefix does not make two tags differ. */
const bareTag = (t: string) => t.replace(/^W\//, '');

const warnedWhole = new Set<string>();
function warnWhole(url: string, size: number): void {
  if (warnedWhole.has(url)) return;
  warnedWhole.add(url);
  console.warn(`arrowsmith: ${url} ignores HTTP Range requests (or answers them compressed); the whole file (${size} bytes) was downloaded`);
}

/** `bytes a-b/total` (total `*` = unknown). */
export function parseContentRange(h: string | null): { start: number; end: number; total?: number } | undefined {
  const m = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(h ?? '');
  if (!m) return undefined;
  const r: { start: number; end: number; total?: number } = { start: Number(m[1]), end: Number(m[2]) };
  if (m[3] !== '*') r.total = Number(m[3]);
  return r.end >= r.start ? r : undefined;
}

/** A response whose body is read under the same deadline as its headers. */
interface Answer {
  status: number;
  headers: Headers;
  /** The body: exactly `expect` bytes when given (short → `truncated`; more → `network`). */
  body(expect: number | undefined): Promise<Uint8Array>;
}

interface Request {
  method: 'HEAD' | 'GET';
  /** Inclusive byte range. */
  range?: [number, number];
  /** The file offset errors name. */
  at: number;
  signal?: AbortSignal;
  /** Statuses handed to the caller (others fail; 408/429/5xx are retried first). */
  allow: (status: number) => boolean;
}

const RETRY_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Failures worth another attempt (a 429/5xx, a refused or reset connection, a body cut off), with the server's Retry-After. */
const retryable = new WeakMap<HttpError, number | undefined>();

/** The reason our own deadline aborts a request with. */
class Timeout {}

class Http {
  constructor(
    readonly url: string,
    readonly format: string,
    readonly policy: HttpPolicy,
  ) {}

  error(at: number, code: DecodeErrorCode, message: string, extra?: { status?: number; cause?: unknown }): HttpError {
    return new HttpError(this.format, this.url, at, code, `${this.url}: ${message}`, extra);
  }

  /** What the request was, for messages. */
  what(r: Request): string {
    return r.range ? `${r.method} bytes=${r.range[0]}-${r.range[1]}` : r.method;
  }

  /**
   * One request and what `use` makes of its response, attempted again (with backoff) when
   * either fails in a way that may pass. The user's signal rejects with its reason.
   */
  async request<T>(r: Request, use: (a: Answer) => Promise<T>): Promise<T> {
    const { retries, retryDelay } = this.policy;
    for (let attempt = 0; ; attempt++) {
      r.signal?.throwIfAborted();
      let failure: HttpError;
      try {
        return await this.once(r, use);
      } catch (e) {
        if (r.signal?.aborted) throw r.signal.reason;
        if (!(e instanceof HttpError)) throw e;
        failure = e;
      }
      if (!retryable.has(failure)) throw failure;
      if (attempt >= retries) {
        if (attempt > 0) failure.message += ` (gave up after ${attempt + 1} attempts)`;
        throw failure;
      }
      const backoff = retryDelay * 2 ** attempt * (0.5 + Math.random() / 2);
      await sleep(Math.min(MAX_RETRY_DELAY, Math.max(retryable.get(failure) ?? 0, backoff)), r.signal);
    }
  }

  /** One attempt under one deadline (headers and body). */
  async once<T>(r: Request, use: (a: Answer) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    const bytes = r.range ? r.range[1] - r.range[0] + 1 : 0;
    const ms = this.policy.timeout + Math.floor(bytes / (1 << 20)) * 1000;
    const timer = setTimeout(() => ctl.abort(new Timeout()), ms);
    const onAbort = () => ctl.abort(r.signal!.reason);
    r.signal?.addEventListener('abort', onAbort, { once: true });
    // Why a fetch or a body read failed: our deadline (final), else the connection (retried).
    const failed = (e: unknown, what: string): unknown => {
      if (r.signal?.aborted) return r.signal.reason;
      if (ctl.signal.reason instanceof Timeout) return this.error(r.at, 'network', `${this.what(r)}: no complete response within ${ms} ms`, { cause: e });
      const err = this.error(r.at, 'network', `${this.what(r)}: ${what}: ${describe(e)}`, { cause: e });
      retryable.set(err, undefined);
      return err;
    };
    let res: Response | undefined;
    try {
      try {
        const headers: Record<string, string> = r.range ? { Range: `bytes=${r.range[0]}-${r.range[1]}` } : {};
        res = await fetch(this.url, { method: r.method, headers, signal: ctl.signal });
      } catch (e) {
        throw failed(e, 'the request failed');
      }
      if (!r.allow(res.status)) throw this.statusError(r, res);
      const answer = res;
      return await use({
        status: answer.status,
        headers: answer.headers,
        body: (expect) =>
          readBody(answer, expect, (got) =>
            this.error(r.at + got, 'truncated', `${this.what(r)}: the response ended after ${got} of ${expect} bytes`, { status: answer.status }),
          ).catch((e) => {
            throw e instanceof HttpError ? e : failed(e, 'the response body failed');
          }),
      });
    } finally {
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', onAbort);
      // Whatever body was not read (an error, a HEAD, a 206 only looked at) is let go.
      if (res?.body && !res.bodyUsed) await res.body.cancel().catch(() => {});
    }
  }

  statusError(r: Request, res: Response): HttpError {
    if (res.status === 416) {
      // The range starts past the end: the file is shorter than its announced size.
      const total = parseInt(/\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1] ?? '', 10);
      const at = Number.isFinite(total) ? Math.min(total, r.at) : r.at;
      return this.error(at, 'truncated', `${this.what(r)}: HTTP 416, the file ends ${Number.isFinite(total) ? `at byte ${total}` : 'before the range'}`, { status: 416 });
    }
    const e = this.error(r.at, 'network', `${this.what(r)}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, { status: res.status });
    if (RETRY_STATUS.has(res.status)) retryable.set(e, retryAfter(res.headers.get('retry-after')));
    return e;
  }

  /** The whole file in one GET without Range (a server whose ranges cannot be used). */
  wholeFile(signal?: AbortSignal): Promise<{ bytes: Uint8Array; headers: Headers }> {
    return this.request({ method: 'GET', at: 0, signal, allow: (s) => s === 200 }, async (a) => {
      const bytes = await a.body(undefined);
      warnWhole(this.url, bytes.length);
      return { bytes, headers: a.headers };
    });
  }

  /** The reader over a file whose identity is known (whole: a server that ignores Range). */
  reader(id: FileIdentity, whole?: Uint8Array): HttpReader {
    const cache = new ByteCache(URL_CACHE_BYTES);
    const self = this;
    return {
      size: id.size,
      identity: id,
      policy: this.policy,
      async read(offset, length, signal) {
        if (whole) return whole.subarray(offset, offset + length);
        const hit = cache.get(offset, length);
        if (hit) return hit;
        const end = Math.min(id.size, offset + length) - 1;
        if (end < offset) return new Uint8Array(0);
        const got = await self.range(id, offset, end, signal);
        if (got.whole) {
          whole = got.whole;
          return whole.subarray(offset, offset + length);
        }
        cache.put(offset, got.bytes);
        return got.bytes;
      },
    };
  }

  /** GET one range and check that the response answers it, from the file opened. */
  range(id: FileIdentity, start: number, end: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; whole?: Uint8Array }> {
    const r: Request = { method: 'GET', range: [start, end], at: start, signal, allow: (s) => s === 200 || s === 206 };
    return this.request(r, async (a) => {
      this.sameFile(id, a.headers, start, a.status);
      if (a.status === 200) {
        // The server ignored Range (and the validators say it is the same file): keep it all.
        const length = a.headers.get('content-length');
        if (length !== null && Number(length) !== id.size) throw this.changed(start, `it has ${length} bytes, ${id.size} when opened`, a.status);
        const whole = await a.body(id.size);
        warnWhole(this.url, whole.length);
        return { bytes: whole.subarray(start, end + 1), whole };
      }
      if (encoded(a.headers)) {
        // Ranges over compressed bytes: read the whole file once (decoded by fetch) instead.
        const whole = await this.wholeFile(signal);
        this.sameFile(id, whole.headers, start, 200);
        if (whole.bytes.length !== id.size) throw this.changed(start, `it has ${whole.bytes.length} bytes, ${id.size} when opened`, 200);
        return { bytes: whole.bytes.subarray(start, end + 1), whole: whole.bytes };
      }
      const header = a.headers.get('content-range');
      const cr = parseContentRange(header);
      if (cr?.total !== undefined && cr.total !== id.size) {
        if (cr.total > id.size) throw this.changed(start, `it has ${cr.total} bytes, ${id.size} when opened`, a.status);
        // Shorter than announced at open (a HEAD that overstated the size, or a cut file).
        throw this.error(cr.total, 'truncated', `${this.what(r)}: the file has ${cr.total} bytes, not the ${id.size} announced`, { status: a.status });
      }
      if (!cr || cr.start !== start || cr.end !== end) {
        throw this.error(start, 'network', `${this.what(r)}: the response is for another range (Content-Range: ${header ?? 'none'})`, { status: a.status });
      }
      return { bytes: await a.body(end - start + 1) };
    });
  }

  /** Fail with `changed` when the response's validators differ from those recorded at open. */
  sameFile(id: FileIdentity, h: Headers, at: number, status: number): void {
    const etag = h.get('etag');
    if (id.etag && etag && bareTag(etag) !== bareTag(id.etag)) throw this.changed(at, `its ETag is ${etag}, ${id.etag} when opened`, status);
    const lm = h.get('last-modified');
    if (id.lastModified && lm && lm !== id.lastModified) throw this.changed(at, `it was modified ${lm}, ${id.lastModified} when opened`, status);
  }

  changed(at: number, why: string, status: number): HttpError {
    return this.error(at, 'changed', `the file changed since it was opened: ${why}`, { status });
  }
}
