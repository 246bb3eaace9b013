#!/usr/bin/env node
// Dev helper (not a benchmark): a warm A/B of MessagePack module builds in one Node process,
// against msgpackr measured in the same rounds. Each round runs every contender on every
// chosen dataset of bench/cases.mjs, the order of contenders rotating round by round, so a
// shared machine's load falls on every contender alike. Prints, per dataset and contender,
// the median ms per decode (JS-owned output, what `decodeMsgpack` returns), msgpackr's median
// ÷ ours, the median (min–max) of that ratio taken round by round, and minor page faults
// per decode.
//   node bench/msgpack-ab.mjs [--rounds 15] [--runs 5] [--only mixed,nil-ints,f64] [--views]
//     NAME=path/to/arrowsmith_msgpack_<simd|scalar>.wasm …
// A build's wasm must match the glue in packages/arrowsmith/wasm (same exports). --views adds
// each build with `copy: false` (buffers left in wasm memory), to split the copy-out.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { unpack } from 'msgpackr';
import '../packages/arrowsmith/dist/node.js';
import { decodeWith } from '../packages/arrowsmith/dist/formats/msgpack/decode.js';
import { standalone } from '../packages/arrowsmith/dist/wasm/instance.js';
import { msgpackDatasets } from './cases.mjs';
import { fmt, med } from './coldwarm.mjs';

const argv = process.argv.slice(2);
const take = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv.splice(i, 2)[1];
};
const flag = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv.splice(i, 1).length > 0;
};
const rounds = Number(take('rounds', 15));
const runs = Number(take('runs', 5));
const only = take('only', 'mixed,nil-ints,f64').split(',');
const views = flag('views');
const builds = argv.map((a) => {
  const [name, path] = a.split('=');
  if (!path) throw new Error(`expected NAME=path.wasm, got ${a}`);
  return { name, w: standalone('msgpack', new WebAssembly.Module(readFileSync(path)), path.includes('simd')) };
});
if (!builds.length) throw new Error('give at least one NAME=path.wasm');

const datasets = msgpackDatasets().filter((d) => only.includes(d.id));
const contenders = [
  ...builds.map((b) => ({ name: b.name, run: (bytes) => decodeWith(b.w, bytes).numRows })),
  ...(views ? builds.map((b) => ({ name: `${b.name} views`, run: (bytes) => decodeWith(b.w, bytes, { copy: false }).numRows })) : []),
  { name: 'msgpackr', run: (bytes) => unpack(bytes).length },
];
const load0 = os.loadavg()[0];
// ms[d][c] = per-round medians; faults likewise.
const ms = datasets.map(() => contenders.map(() => []));
const faults = datasets.map(() => contenders.map(() => []));
for (let r = -1; r < rounds; r++) {
  for (const [di, d] of datasets.entries()) {
    for (let i = 0; i < contenders.length; i++) {
      const ci = (i + Math.max(r, 0)) % contenders.length;
      const c = contenders[ci];
      const t = [];
      const f0 = process.resourceUsage().minorPageFault;
      for (let k = 0; k < runs; k++) {
        const t0 = performance.now();
        if (c.run(d.bytes) !== d.rows) throw new Error(`${c.name} on ${d.id}: wrong row count`);
        t.push(performance.now() - t0);
      }
      if (r < 0) continue; // warm-up round
      ms[di][ci].push(med(t));
      faults[di][ci].push((process.resourceUsage().minorPageFault - f0) / runs);
    }
  }
}
const peer = contenders.length - 1;
console.log(`${rounds} rounds × ${runs} decodes, load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} (${os.cpus().length} cores)`);
for (const [di, d] of datasets.entries()) {
  console.log(`\n${d.name}`);
  for (const [ci, c] of contenders.entries()) {
    const m = med(ms[di][ci]);
    const paired = ms[di][ci].map((x, r) => ms[di][peer][r] / x).sort((a, b) => a - b);
    const ratio = ci === peer ? '' : `  ${(med(ms[di][peer]) / m).toFixed(2)}× msgpackr (per round ${med(paired).toFixed(2)}×, ${paired[0].toFixed(2)}–${paired.at(-1).toFixed(2)})`;
    console.log(`  ${c.name.padEnd(24)} ${fmt(m).padStart(7)} ms  ${med(faults[di][ci]).toFixed(0).padStart(6)} faults/decode${ratio}`);
  }
}
