#!/usr/bin/env node
// Dev helper (not a benchmark): an A/B of a first-read lever in fresh Node processes,
// variants interleaved round by round (the starting one rotating), so a shared machine's
// load falls on every variant alike. Prints, per variant and step, the median (min–max) of
// wall ms, the reading thread's CPU ms, the process's CPU ms (V8's background compile
// included) and minor page faults; then each variant's warm median (the median over runs of
// each run's median of its warm reads after read 3, for --warm-ms, default 500) and its wasm
// memory after read 1.
//   node bench/cold-ab.mjs [--rounds N] [--warm-ms MS] [--case tsfile:A full|hdf5:str_gzip|msgpack:records] VARIANT…
// VARIANT: name[;flags=--a --b][;pkg=/path/to/dist/node.js][;simd=0][;warm=1][;idle=MS] (warm=1: init({ warm: true })
// and its warm-up before read 1; idle=MS: then MS of idle time before read 1). E.g.
//   node bench/cold-ab.mjs --case tsfile:A\ full 'default' 'eager;flags=--no-wasm-lazy-compilation'
import os from 'node:os';
import { hdf5Cases, msgpackCases, msgpackDatasets, tsfileCases } from './cases.mjs';
import { Cold, fmt, med } from './coldwarm.mjs';

const argv = process.argv.slice(2);
const take = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv.splice(i, 2)[1];
};
const rounds = Number(take('rounds', 7));
const warmMs = Number(take('warm-ms', 500));
const [format, label] = take('case', 'tsfile:A full').split(':');
const all = format === 'tsfile' ? tsfileCases() : format === 'hdf5' ? hdf5Cases() : msgpackCases(msgpackDatasets());
const c = all.find((x) => x.label === label || x.key === label || x.key.includes(label));
if (!c) throw new Error(`no ${format} case ${label}: ${all.map((x) => x.label).join(', ')}`);
const variants = argv.map((v) => {
  const [name, ...kv] = v.split(';');
  const o = Object.fromEntries(kv.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  const opts = { simd: o.simd !== '0', ...(o.pkg ? { pkg: o.pkg } : {}), ...(o.warm === '1' ? { warm: true } : {}), ...(o.idle ? { idle: Number(o.idle) } : {}) };
  return { name, env: 'node', flags: o.flags ? o.flags.split(' ') : [], spec: { reader: 'arrowsmith', opts, warmMs } };
});
if (!variants.length) throw new Error('give at least one variant');

const cold = new Cold({ browser: false });
const load0 = os.loadavg()[0];
const got = new Map(variants.map((v) => [v.name, []]));
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < variants.length; i++) {
    const v = variants[(r + i) % variants.length];
    const res = await cold.runOne(v, c);
    if (res.error) throw new Error(`${v.name}: ${res.error}`);
    got.get(v.name).push(res);
  }
}
const span = (xs) => `${fmt(med(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
console.log(`${format} ${c.label}, ${rounds} rounds, load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
console.log('| variant | step | wall ms | thread CPU ms | process CPU ms | minor faults |\n|---|---|---|---|---|---|');
for (const [name, runs] of got) {
  for (const step of ['import', 'init', 'read1', 'read2', 'read3']) {
    const of = (f) => runs.map((x) => x.steps[step][f]);
    console.log(`| ${name} | ${step} | ${span(of('ms'))} | ${span(of('cpu'))} | ${span(of('pcpu'))} | ${Math.round(med(of('faults')))} |`);
  }
  // Each run's warm median (the reads after read 3, for --warm-ms), and wasm memory after read 1.
  console.log(`| ${name} | warm median | ${span(runs.map((x) => med(x.warm)))} | | | |`);
  if (runs.some((x) => x.memory)) console.log(`| ${name} | wasm MiB after read 1 | ${span(runs.map((x) => x.memory / 2 ** 20))} | | | |`);
}
