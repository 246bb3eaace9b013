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
 * A URL read with HTTP Range requests. The size comes from HEAD, or from a `bytes=0-0`
 * GET when HEAD is refused. A server that ignores Range gets one full download (said once).
 */
export async function urlReader(url: string): Promise<RangeReader> {
  let size = NaN;
  const head = await fetch(url, { method: 'HEAD' }).catch(() => undefined);
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
  return {
    size,
    async read(offset, length) {
      if (whole) return whole.subarray(offset, offset + length);
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
      return new Uint8Array(await r.arrayBuffer());
    },
  };
}
