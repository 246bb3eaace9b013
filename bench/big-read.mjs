// The read every bench:big reader of the library makes, in Node (bench/big.bench.mjs) and in
// a browser page (bench/big-page.mjs): `batches()` to the end, one column's values summed
// (a check that every reader saw the same data), and the raw read of a Blob in parts.

export function sumOf(xs) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += Number(xs[i]);
  return s;
}

/**
 * Stream `source` by `batches()` with `lib` (the package's entry), calling `first()` at each
 * batch; `lend`: batches lent on the pool (each valid until the next; the sum reads it first).
 */
export async function readBatches(lib, source, kind, pool, first, lend = false) {
  let rows = 0;
  let sum = 0;
  let batches = 0;
  const tsfile = kind === 'tsfile';
  const f = tsfile ? await lib.openTsFile(source, { pool }) : await lib.openHdf5(source, { pool });
  for await (const b of tsfile ? f.batches({ table: 'big', lend }) : f.batches('/x', { lend })) {
    first();
    rows += b.numRows;
    batches++;
    sum += sumOf((tsfile ? b.getChild('s4') : b.getChildAt(0)).toArray());
  }
  await f.close();
  return { rows, sum, batches };
}

/**
 * A Blob's (or File's) bytes as the library reads them for a pool: 4 MiB slices, 4 at once,
 * each by its stream copied into one of 4 reused SharedArrayBuffers; `byob`: by a BYOB reader
 * into a reused buffer where the stream has one (browsers; Node's default reader is cheaper).
 * Calls `first()` after each slice; returns the bytes read.
 */
export async function readInParts(blob, first, byob) {
  const part = 4 << 20;
  let next = 0;
  let bytes = 0;
  const one = async (dst) => {
    let buf = new ArrayBuffer(1 << 20);
    for (let at; (at = next) < blob.size; first()) {
      next += part;
      const stream = blob.slice(at, at + part).stream();
      let reader;
      try {
        reader = byob ? stream.getReader({ mode: 'byob' }) : undefined;
      } catch {}
      const plain = reader ? undefined : stream.getReader();
      for (let n = 0; ; ) {
        const { done, value } = reader ? await reader.read(new Uint8Array(buf)) : await plain.read();
        if (reader && value) buf = value.buffer;
        if (done) break;
        dst.set(value, n);
        n += value.length;
        bytes += value.length;
      }
      (reader ?? plain).releaseLock();
    }
  };
  await Promise.all(Array.from({ length: 4 }, () => one(new Uint8Array(new SharedArrayBuffer(part)))));
  return bytes;
}
