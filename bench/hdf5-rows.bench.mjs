// HDF5 batches({ rows }) with rows smaller than a chunk against the default whole-chunk
// batches, interleaved in one process: a decoded chunk serves every batch it covers, so
// the two should stream at about the same speed (#27). Files are generated under /tmp by
// h5py (never committed): float64, 1M-row (8 MiB) chunks, uncompressed and shuffle+gzip.
//
//   node bench/hdf5-rows.bench.mjs [--rounds 3] [--mb 64] [--rows 65536]
// Prints a markdown table (median seconds, GB/s of the file, ratio default / rows).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openAsBlob, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { openHdf5 } from '../packages/arrowsmith/dist/node.js';
import { root } from './coldwarm.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const rounds = arg('rounds', 3);
const mb = arg('mb', 64);
const rows = arg('rows', 65536);
const dir = '/tmp/arrowsmith-hdf5-rows';
mkdirSync(dir, { recursive: true });
const n = (mb << 20) / 8;
const files = [
  ['uncompressed', join(dir, `plain-${mb}.h5`), ''],
  ['shuffle+gzip', join(dir, `gzip-${mb}.h5`), ', compression="gzip", shuffle=True'],
];
for (const [, file, opts] of files) {
  if (existsSync(file)) continue;
  execFileSync(join(root, '.venv/bin/python'), ['-c', `
import h5py, numpy as np
v = np.cumsum(np.random.default_rng(1).normal(0, 1, ${n}))
with h5py.File(${JSON.stringify(file)}, "w") as f:
    f.create_dataset("x", data=v, chunks=(1 << 20,)${opts})
`]);
}

async function stream(file, source, batchRows) {
  const src = source === 'Blob' ? await openAsBlob(file) : file;
  const t = performance.now();
  const f = await openHdf5(src);
  let sum = 0;
  let count = 0;
  try {
    for await (const b of f.batches('/x', batchRows ? { rows: batchRows } : {})) {
      const v = b.getChildAt(0).toArray();
      for (let i = 0; i < v.length; i += 4096) sum += v[i];
      count += b.numRows;
    }
  } finally {
    await f.close();
  }
  if (count !== n) throw new Error(`${file}: ${count} rows, want ${n}`);
  return { s: (performance.now() - t) / 1000, sum };
}

const load0 = os.loadavg()[0];
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const lines = ['| file | source | default batches | rows ' + rows + ' | GB/s default / rows | default ÷ rows time |', '|---|---|---|---|---|---|'];
for (const [label, file] of files) {
  for (const source of ['Blob', 'path']) {
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      const x = await stream(file, source, undefined);
      const y = await stream(file, source, rows);
      if (x.sum !== y.sum) throw new Error('sums differ');
      a.push(x.s);
      b.push(y.s);
    }
    const gb = statSync(file).size / 1e9;
    const [ma, mb2] = [med(a), med(b)];
    lines.push(`| ${label} ${mb} MiB | ${source} | ${ma.toFixed(3)} s | ${mb2.toFixed(3)} s | ${(gb / ma).toFixed(2)} / ${(gb / mb2).toFixed(2)} | ${(ma / mb2).toFixed(2)}× |`);
  }
}
console.log(lines.join('\n'));
console.log(`\nmedian of ${rounds} interleaved rounds; load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
