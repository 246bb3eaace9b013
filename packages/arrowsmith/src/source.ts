/**
 * Random-access byte sources for the file formats (TsFile, HDF5): the reader asks for
 * ranges, never for the whole file, so a `Blob` is read by slices and a URL with HTTP
 * Range requests. A Uint8Array is simply sliced.
 */

/** Anything with a size and a ranged read. */
export interface RangeReader {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export type FileSource = Uint8Array | ArrayBuffer | Blob | string | URL | RangeReader;

export async function toRangeReader(source: FileSource): Promise<RangeReader> {
  if (source instanceof Uint8Array) return bytesReader(source);
  if (source instanceof ArrayBuffer) return bytesReader(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return {
      size: source.size,
      read: async (offset, length) => new Uint8Array(await source.slice(offset, offset + length).arrayBuffer()),
    };
  }
  if (typeof source === 'string' || source instanceof URL) return urlReader(String(source));
  if (typeof (source as RangeReader).read === 'function' && Number.isFinite((source as RangeReader).size)) return source as RangeReader;
  throw new TypeError('arrowsmith: a file source must be a Uint8Array, ArrayBuffer, Blob, URL or { size, read(offset, length) }');
}

function bytesReader(b: Uint8Array): RangeReader & { bytes: Uint8Array } {
  return { size: b.length, bytes: b, read: async (offset, length) => b.subarray(offset, offset + length) };
}

/** The whole file when the source already holds it in memory (no range round trips). */
export function wholeBytes(r: RangeReader): Uint8Array | undefined {
  return (r as { bytes?: Uint8Array }).bytes;
}

/**
 * A URL read with HTTP Range requests. The size comes from HEAD (unless known), or from a
 * `bytes=0-0` GET when HEAD is refused. A server that ignores Range gets one full download (said once).
 */
export async function urlReader(url: string, knownSize?: number): Promise<RangeReader> {
  let size = knownSize ?? NaN;
  const head = knownSize === undefined ? await fetch(url, { method: 'HEAD' }).catch(() => undefined) : undefined;
  if (head?.ok) size = Number(head.headers.get('content-length'));
  let whole: Uint8Array | undefined;
  if (!Number.isFinite(size) || head?.headers.get('accept-ranges') === 'none') {
    const r = await fetch(url, { headers: { Range: 'bytes=0-0' } });
    if (!r.ok) throw new Error(`arrowsmith: GET ${url} failed: HTTP ${r.status}`);
    const total = r.headers.get('content-range')?.match(/\/(\d+)$/)?.[1];
    if (r.status === 206 && total) {
      size = Number(total);
      await r.body?.cancel();
    } else {
      whole = new Uint8Array(await r.arrayBuffer());
      size = whole.length;
      console.warn(`arrowsmith: ${url} ignores HTTP Range requests; the whole file (${size} bytes) was downloaded`);
    }
  }
  if (whole) return bytesReader(whole);
  const cache = new ByteCache(URL_CACHE_BYTES);
  return {
    size,
    async read(offset, length) {
      if (whole) return whole.subarray(offset, offset + length);
      const hit = cache.get(offset, length);
      if (hit) return hit;
      const end = Math.min(size, offset + length) - 1;
      const r = await fetch(url, { headers: { Range: `bytes=${offset}-${end}` } });
      if (r.status === 200) {
        // The server ignored Range after all: keep the body and serve from it from now on.
        const all = new Uint8Array(await r.arrayBuffer());
        whole = all;
        console.warn(`arrowsmith: ${url} ignores HTTP Range requests; the whole file was downloaded`);
        return all.subarray(offset, offset + length);
      }
      if (r.status !== 206) throw new Error(`arrowsmith: GET ${url} bytes ${offset}-${end} failed: HTTP ${r.status}`);
      const got = new Uint8Array(await r.arrayBuffer());
      cache.put(offset, got);
      return got;
    },
  };
}

/** Bytes a URL reader keeps for repeated reads of the same ranges. */
export const URL_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Fetched ranges kept for re-use, bounded in bytes; the least recently used go first.
 * A read is served when one kept range covers it (reads repeat the same planned ranges).
 */
export class ByteCache {
  #segments: { start: number; bytes: Uint8Array }[] = [];
  #total = 0;
  constructor(readonly limit: number) {}

  get(offset: number, length: number): Uint8Array | undefined {
    const end = offset + length;
    const parts = this.#segments.filter((s) => s.start < end && s.start + s.bytes.length > offset).sort((a, b) => a.start - b.start);
    // Covered without a gap?
    let at = offset;
    for (const s of parts) if (s.start <= at) at = Math.max(at, s.start + s.bytes.length);
    if (at < end) return undefined;
    for (const s of parts) this.#segments.push(...this.#segments.splice(this.#segments.indexOf(s), 1));
    const one = parts.find((s) => s.start <= offset && end <= s.start + s.bytes.length);
    if (one) return one.bytes.subarray(offset - one.start, end - one.start);
    const out = new Uint8Array(length);
    for (const s of parts) {
      const a = Math.max(offset, s.start);
      const b = Math.min(end, s.start + s.bytes.length);
      out.set(s.bytes.subarray(a - s.start, b - s.start), a - offset);
    }
    return out;
  }

  put(start: number, bytes: Uint8Array): void {
    if (bytes.length > this.limit) return;
    this.#segments.push({ start, bytes });
    this.#total += bytes.length;
    while (this.#total > this.limit) this.#total -= this.#segments.shift()!.bytes.length;
  }
}
