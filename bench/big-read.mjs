// The read every bench:big reader of the library makes, in Node (bench/big.bench.mjs) and in
// a browser page (bench/big-page.mjs): `batches()` to the end, one column's values summed
// (a check that every reader saw the same data).

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
