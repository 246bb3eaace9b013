#!/usr/bin/env node
// Dev helper (not the benchmark): wasm decode time alone, and the whole decodeWith, for two
// builds interleaved in one process: `node bench/split.mjs [filter] [baselineWasmDir]`.
// The second build defaults to none; the current one is packages/arrowsmith/wasm (or $CUR).
// $VARIANTS: 'simd scalar' by default.
import { Packr } from 'msgpackr';
import { encode } from '@msgpack/msgpack';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import '../packages/arrowsmith/dist/node.js';
import { decodeWith } from '../packages/arrowsmith/dist/formats/msgpack/decode.js';
const N = 1_000_000, R = 100_000;
let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const packr = new Packr({ useRecords: false });
const packr32 = new Packr({ useRecords: false, useFloat32: 1 });
const ds = {
  fixint: packr.pack(Array.from({ length: N }, () => int(-32, 127))),
  mixed: packr.pack(Array.from({ length: N }, () => [int(-32, 127), int(256, 65535), int(-(2 ** 31), -(2 ** 16))][int(0, 2)])),
  f64: encode(Array.from({ length: N }, () => (rand() - 0.5) * 1e6)),
  f32: packr32.pack(Array.from({ length: N }, () => Math.fround((rand() - 0.5) * 1e3) + 0.5)),
  records: packr.pack(Array.from({ length: R }, (_, i) => ({ id: i, value: rand() * 100, name: `dev-${i % 100}`, ok: i % 3 === 0, maybe: i % 4 ? int(0, 1e6) : null }))),
};
const [only, baseDir] = process.argv.slice(2);
async function load(dir, v) {
  const { create } = await import(pathToFileURL(`${dir}/arrowsmith_msgpack.js`).href + `?${dir}`);
  const glue = create();
  const out = glue.initSync({ module: readFileSync(`${dir}/arrowsmith_msgpack_${v}.wasm`) });
  return { format: 'msgpack', glue, memory: out.memory, simd: v === 'simd' };
}
const cur = new URL('../packages/arrowsmith/wasm', import.meta.url).pathname;
const builds = {};
const variants = (process.env.VARIANTS ?? 'simd scalar').split(' ');
const curDir = process.env.CUR ?? cur;
for (const v of variants) {
  builds[`new ${v}`] = await load(curDir, v);
  if (baseDir) builds[`base ${v}`] = await load(baseDir, v);
}
const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
for (const [name, bytes] of Object.entries(ds)) {
  if (only && only !== 'all' && !name.includes(only)) continue;
  const t = Object.fromEntries(Object.keys(builds).map((k) => [k, { raw: [], off: [], full: [] }]));
  for (let i = 0; i < 40; i++) {
    for (const [k, w] of Object.entries(builds)) {
      let t0 = performance.now();
      w.glue.decodeMsgpack(bytes, 0, true, 256).free();
      t[k].raw.push(performance.now() - t0);
      t0 = performance.now();
      w.glue.decodeMsgpack(bytes, 0, false, 256).free();
      t[k].off.push(performance.now() - t0);
      t0 = performance.now();
      decodeWith(w, bytes);
      t[k].full.push(performance.now() - t0);
    }
  }
  console.log(name);
  for (const [k, r] of Object.entries(t)) console.log(`  ${k.padEnd(12)} wasm ${med(r.raw).toFixed(3)}  fast off ${med(r.off).toFixed(3)}  full ${med(r.full).toFixed(3)}`);
}
