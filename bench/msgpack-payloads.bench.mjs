#!/usr/bin/env node
// MessagePack as real encoders write it (bench/payloads.mjs: Java msgpack-core and Jackson, Go,
// Rust rmp-serde, msgspec, fluent-logger), Arrowsmith (SIMD build) against msgpackr and
// @msgpack/msgpack in Node: cold (fresh processes, bench/coldwarm.mjs, interleaved) and warm
// (tinybench medians in this process), ratios against msgpackr measured in the same run.
// Streams of concatenated values go to the peers' multi-value verbs (unpackMultiple,
// decodeMulti). Every reader must give the payload's row count (else the run fails).
// Writes bench/results/msgpack-payloads.md (a partial run: target/bench-partial/).
// Options: --rounds N (default 3), --only TEXT, --quick, --no-cold.
import { decode, decodeMulti } from '@msgpack/msgpack';
import { unpack, unpackMultiple } from 'msgpackr';
import os from 'node:os';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/cli/bench-file.js';
import { decodeWith } from '../packages/arrowsmith/dist/formats/msgpack/decode.js';
import { Cold, coldOptions, coldRounds, fmt, machineLoad, med, pairedRatio, resultsPath, stepOf, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';
import { payloads } from './payloads.mjs';

const started = performance.now();
const argv = process.argv.slice(2);
const opts = coldOptions(argv);
if (!argv.includes('--rounds')) opts.rounds = 3;
const load0 = os.loadavg()[0];
const sets = payloads(opts.only);

const simd = instantiateVariant('simd');
const readers = {
  'arrowsmith simd': (p) => decodeWith(simd, p.bytes, p.options).numRows,
  msgpackr: (p) => (p.stream ? unpackMultiple(p.bytes) : unpack(p.bytes)).length,
  '@msgpack/msgpack': (p) => (p.stream ? [...decodeMulti(p.bytes)] : decode(p.bytes)).length,
};
for (const p of sets) {
  for (const [name, read] of Object.entries(readers)) {
    const rows = read(p);
    if (rows !== p.rows) throw new Error(`${p.id}: ${name} gives ${rows} rows, not ${p.rows}`);
  }
}

// ---- cold: fresh Node processes ----
const cases = sets.map((p) => ({ key: p.data, label: p.name, format: 'msgpack', data: p.data, spec: { format: 'msgpack', case: { options: p.options, stream: p.stream }, warmRuns: 0, warmMs: 0 } }));
const contenders = [
  { name: 'arrowsmith simd', env: 'node', spec: { reader: 'arrowsmith', opts: { simd: true } } },
  { name: 'msgpackr', env: 'node', spec: { reader: 'msgpackr' } },
  { name: '@msgpack/msgpack', env: 'node', spec: { reader: '@msgpack/msgpack' } },
];
let cold;
if (opts.cold) {
  const c = await new Cold({ browser: false }).start();
  try {
    cold = await coldRounds(c, cases, contenders, opts.rounds);
  } finally {
    await c.close();
  }
}

// ---- warm: tinybench in this process ----
const rows = [];
const below = [];
for (const [i, p] of sets.entries()) {
  const bench = new Bench({ time: opts.quick ? 300 : 1500, warmupTime: 300 });
  const sink = [];
  for (const [name, read] of Object.entries(readers)) bench.add(name, () => void sink.push(read(p)));
  await bench.run();
  const w = Object.fromEntries(bench.tasks.map((t) => [t.name, median(t)]));
  const runs = (name) => cold?.get(cases[i].key)?.get(name)?.filter((r) => !r.error) ?? [];
  const vs = w.msgpackr / w['arrowsmith simd'];
  if (!(vs >= 3)) below.push(`${p.id} ${vs.toFixed(2)}×`);
  rows.push([
    p.name,
    (p.bytes.length / 2 ** 20).toFixed(2),
    ...Object.keys(readers).map((n) => fmt(med(stepOf(runs(n), 'read1')))),
    cold ? pairedRatio(runs('arrowsmith simd'), runs('msgpackr')) : '–',
    ...Object.keys(readers).map((n) => fmt(w[n])),
    `${vs.toFixed(2)}×`,
    `${(w['@msgpack/msgpack'] / w['arrowsmith simd']).toFixed(2)}×`,
    (p.bytes.length / w['arrowsmith simd'] / 1e3).toFixed(0),
  ]);
  console.log(`${p.id}: ${bench.tasks.map((t) => `${t.name} ${median(t).toFixed(3)} ms`).join(', ')}`);
}

const load = machineLoad(load0);
const minutes = ((performance.now() - started) / 60e3).toFixed(1);
const text = writeReport(resultsPath('msgpack-payloads', { ...opts, browser: true }), {
  title: 'MessagePack as real encoders write it',
  intro: `\`npm run bench:payloads\` (bench/msgpack-payloads.bench.mjs; ${minutes} min for the whole run): payloads written by the encoders services use (bench/payloads/; generated deterministically into target/bench-data on first use), decoded by Arrowsmith's SIMD build (bytes → Arrow Table with JS-owned buffers), msgpackr and @msgpack/msgpack (bytes → JS values; concatenated values through \`unpackMultiple\` / \`decodeMulti\`). Every reader gives the payload's row count (checked before timing). **read 1**: the first decode in a fresh Node process (import and init done), median over ${opts.rounds} processes per reader, interleaved; "read 1 vs msgpackr" is msgpackr's read 1 ÷ ours, round by round: median (min–max). **warm**: tinybench medians in one process${opts.quick ? ' (--quick)' : ''}; "vs X" = X's warm median ÷ ours (>1: ours is faster). Target (#42 item 4): every payload ≥ 3× msgpackr warm. The Fluentd payload's EventTime (ext 0) is read with \`extensions: { 0: 'eventtime' }\` by us; the peers, given no extension, hand it back as raw ext objects (less work than a timestamp).\n\n${below.length ? `Below 3× msgpackr warm: ${below.join('; ')}.` : 'Every payload is at least 3× msgpackr warm (target).'}`,
  machineExtra: [versions({ npm: ['msgpackr', '@msgpack/msgpack', 'apache-arrow'] }), load.text],
  sections: [{ text: mdTable(['payload', 'MiB', 'read 1 ms: ours', 'msgpackr', '@msgpack/msgpack', 'read 1 vs msgpackr', 'warm ms: ours', 'msgpackr', '@msgpack/msgpack', 'warm vs msgpackr', 'warm vs @msgpack/msgpack', 'MB/s (ours, warm)'], rows) }],
});
console.log(`\n${text}`);
