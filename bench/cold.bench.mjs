#!/usr/bin/env node
// The first read, against the targets of issue #25, in one run: a few cases per format, each
// read in fresh Node processes and fresh Chromium pages (and the native TsFile reader in fresh
// Python processes), Arrowsmith and its peers interleaved round by round (bench/coldwarm.mjs).
//   TsFile    read 1 ≥ 1.5× the official reader's read 1
//   HDF5      read 1 ≥ 10× h5wasm's read 1
//   MsgPack   decode 1 ≥ 2× msgpackr's decode 1; init of the MessagePack module ≤ 25 ms (Node)
// The per-format benchmarks (npm run bench, bench:tsfile, bench:hdf5) show every dataset cold
// and warm; this one is the summary. Writes bench/results/cold.md.
// Options: --rounds N (default 7), --only TEXT[,TEXT…], --no-browser.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { HDF5_NATIVE, REVISIT, TSFILE_NATIVE, hdf5Cases, hdf5Contenders, msgpackCases, msgpackContenders, msgpackDatasets, peerOf, tsfileCases, tsfileContenders } from './cases.mjs';
import { coldOptions, coldTable, fmt, machineLoad, med, pairedRatios, resultsPath, runCold, stepOf, versions } from './coldwarm.mjs';
import { mdTable, writeReport } from './common.mjs';

const argv = process.argv.slice(2);
const opts = coldOptions(argv.includes('--rounds') ? argv : [...argv, '--rounds', '7']);
opts.warm = false; // no tinybench here: the warm column is the median of warm reads in the same process or page
const load0 = os.loadavg()[0];
// --only A,B: the cases whose label or key contains any of them.
const want = (c) => !opts.only || opts.only.split(',').some((o) => c.label.includes(o) || c.key.includes(o));
// SIMD builds only (the ones users get); the scalar builds and jsfive are in the per-format benchmarks.
const simdOnly = (ks) => ks.filter((k) => !k.name.includes('scalar') && !k.name.startsWith('jsfive'));

// init({ warm: true }) and its idle-time warm-up before read 1 (src/formats/warm.ts), every format.
const warmStart = ({ browser }) =>
  (browser ? ['Node', 'Chromium'] : ['Node']).map((e) => ({ name: `arrowsmith simd, warm start, ${e}`, env: e.toLowerCase(), spec: { reader: 'arrowsmith', opts: { simd: true, warm: true } } }));

const groups = [
  {
    format: 'msgpack',
    title: 'MessagePack: decode 1 ≥ 2× msgpackr',
    target: 2,
    cases: msgpackCases(msgpackDatasets().filter((d) => ['fixint', 'records'].includes(d.id))),
    contenders: [...simdOnly(msgpackContenders(opts)), ...warmStart(opts), ...(opts.browser ? [REVISIT] : [])],
  },
  {
    format: 'tsfile',
    title: 'TsFile: read 1 ≥ 1.5× the official reader',
    target: 1.5,
    cases: tsfileCases().filter((c) => ['A full', 'A device', 'B full'].includes(c.label)),
    contenders: [...simdOnly(tsfileContenders(opts)), ...warmStart(opts), ...(opts.browser ? [REVISIT] : [])],
  },
  {
    format: 'hdf5',
    title: 'HDF5: read 1 ≥ 10× h5wasm',
    target: 10,
    cases: hdf5Cases().filter((c) => ['str_gzip', 'vint_contig', 'vstruct_gzip'].includes(c.key)),
    // jsfive and h5py too: peers of the time to first table (not of the read-1 target).
    contenders: [...hdf5Contenders(opts).filter((k) => !k.name.includes('scalar')), ...warmStart(opts), ...(opts.browser ? [REVISIT] : [])],
  },
].map((g) => ({ ...g, cases: g.cases.filter(want) }));

let browserVersion = '';
for (const g of groups) ({ results: g.results, browserVersion } = await runCold(g.cases, g.contenders, opts));

// ---- time to first table: process (or page) start → the first table, ours by default ----
// Arrowsmith's default (no warm start) in each environment against every peer of the format.
const FIRST_PEERS = {
  msgpack: (env) => [`msgpackr, ${env}`, `@msgpack/msgpack, ${env}`],
  tsfile: () => [TSFILE_NATIVE],
  hdf5: (env) => [`h5wasm, ${env}`, `jsfive, ${env}`, HDF5_NATIVE],
};
const firstRows = [];
for (const g of groups) {
  for (const c of g.cases) {
    const got = g.results.get(c.key);
    for (const env of opts.browser ? ['Node', 'Chromium'] : ['Node']) {
      const ours = (got.get(`arrowsmith simd, ${env}`) ?? []).filter((r) => !r.error);
      if (!ours.length) continue;
      const part = (s) => fmt(med(stepOf(ours, s)));
      for (const peer of FIRST_PEERS[g.format](env)) {
        const theirs = (got.get(peer) ?? []).filter((r) => !r.error);
        if (!theirs.length) continue;
        const ratios = pairedRatios(ours, theirs, 'first');
        const r = med(ratios);
        firstRows.push([g.title.split(':')[0], c.label, env, `${fmt(med(stepOf(ours, 'first')))} ms`, `${part('import')} + ${part('init')} + ${part('read1')}`, `${fmt(med(stepOf(theirs, 'first')))} ms (${peer})`, `${fmt(med(stepOf(theirs, 'import')))} + ${fmt(med(stepOf(theirs, 'read1')))}`, Number.isFinite(r) ? `${r.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '–', Number.isFinite(r) ? (r >= 2 ? 'met' : 'not met') : '–']);
      }
    }
  }
}

// ---- targets: our read 1 against the peer's, round by round ----
const targetRows = [];
for (const g of groups) {
  for (const c of g.cases) {
    const got = g.results.get(c.key);
    for (const k of g.contenders.filter((k) => k.name.startsWith('arrowsmith'))) {
      const peer = peerOf(g.format, k);
      const ours = got.get(k.name)?.filter((r) => !r.error) ?? [];
      const theirs = got.get(peer)?.filter((r) => !r.error) ?? [];
      const ratios = ours.map((o) => [o, theirs.find((t) => t.round === o.round)]).filter(([o, t]) => t && o.steps.read1.ms > 0).map(([o, t]) => t.steps.read1.ms / o.steps.read1.ms);
      const r = med(ratios);
      const cpu = ours.map((o) => [o, theirs.find((t) => t.round === o.round)]).filter(([o, t]) => t && o.steps.read1.cpu > 0).map(([o, t]) => t.steps.read1.cpu / o.steps.read1.cpu);
      targetRows.push([g.title.split(':')[0], c.label, k.name.split(', ').slice(1).join(', '), `${fmt(med(stepOf(ours, 'read1')))} ms`, `${fmt(med(stepOf(theirs, 'read1')))} ms (${peer})`, Number.isFinite(r) ? `${r.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '–', Number.isFinite(med(cpu)) ? `${med(cpu).toFixed(2)}×` : '–', `≥ ${g.target}×`, Number.isFinite(r) ? (r >= g.target ? 'met' : 'not met') : '–']);
    }
  }
}
// init of what a MessagePack-only user loads, in Node
const mp = groups.find((g) => g.format === 'msgpack');
const inits = mp.cases.flatMap((c) => mp.results.get(c.key)?.get('arrowsmith simd, Node')?.filter((r) => !r.error) ?? []).map((r) => r.steps.init.ms);
const imports = mp.cases.flatMap((c) => mp.results.get(c.key)?.get('arrowsmith simd, Node')?.filter((r) => !r.error) ?? []).map((r) => r.steps.import.ms);
if (inits.length) targetRows.push(['MessagePack', 'init (compile + instantiate), Node', 'Node', `${fmt(med(inits))} ms (${fmt(Math.min(...inits))}–${fmt(Math.max(...inits))})`, `import ${fmt(med(imports))} ms`, '', '', '≤ 25 ms', med(inits) <= 25 ? 'met' : 'not met']);

const sections = [
  {
    title: 'Targets',
    text: `Ratios are the peer's read 1 divided by ours, run by neighbouring run (>1: ours is faster); median (min–max) over ${opts.rounds} rounds. The target is judged on wall time; the CPU ratio (the reading thread's CPU time, Linux schedstat) is steadier on a busy machine, where waiting for a core inflates wall time. Arrowsmith's read 1 comes after \`init({ formats: [format] })\`; the peers' after their import (and h5wasm's \`ready\`).\n\n${mdTable(['format', 'case', 'env', 'Arrowsmith read 1', 'peer read 1', 'peer ÷ ours (wall)', 'peer ÷ ours (CPU)', 'target', 'wall'], targetRows)}`,
  },
  {
    title: 'Time to first table',
    text: `A fresh Node or Python process from its start (the parent's clock before it starts the process) to the end of read 1, or a fresh Chromium page from its navigation to the end of read 1: the runtime's own start, reading the file's bytes into memory, then import + init + read 1 as below. Arrowsmith by default: \`init({ formats: [format] })\`, no warm start. Ratios are the peer's time divided by ours, run by neighbouring run; median (min–max) over ${opts.rounds} rounds; target ≥ 2×.\n\n${mdTable(['format', 'case', 'env', 'Arrowsmith: start → table', 'import + init + read 1 ms', 'peer: start → table', 'peer import + read 1 ms', 'peer ÷ ours', '≥ 2×'], firstRows)}`,
  },
  ...groups.filter((g) => g.cases.length).map((g) => {
    const t = coldTable(g.cases, g.contenders, g.results, { peer: (k) => peerOf(g.format, k) });
    return { title: `${g.title.split(':')[0]}: every step`, text: mdTable(t.header, t.rows) };
  }),
];
// The levers' A/B figures (bench/cold-ab.mjs) are recorded by hand under "## Levers": kept.
const out = resultsPath('cold', { ...opts, warm: true });
const prior = existsSync(out) ? readFileSync(out, 'utf8') : '';
if (prior.includes('\n## Levers')) sections.push({ text: prior.slice(prior.indexOf('\n## Levers') + 1).trimEnd() });
const load = machineLoad(load0);
const text = writeReport(out, {
  title: 'First read (cold) against the targets',
  intro: `\`npm run bench:cold\` (bench/cold.bench.mjs). Each run is a fresh Node process, a fresh Chromium page in a fresh browser context, or a fresh Python process (the official TsFile reader): **import** the library, **init** (Arrowsmith: \`init({ formats: [format] })\`, compile + instantiate that format's module), then **reads 1–3** of the same bytes in memory, each timed. **Chromium 2nd visit**: the same page loaded again in the same browser context 2.5 s after the first load (its HTTP cache and the compiled code Chromium caches for a module over 128 KB fetched with \`compileStreaming\`: the TsFile and HDF5 modules, not the MessagePack one). **warm median**: warm reads after read 3 in the same process or page (at least 5 and 0.5 s). **read 1 CPU**: the reading thread's CPU time (Linux schedstat). **read 1 page faults**: minor faults of the process (Chromium: its renderers) during read 1. Readers run in turn, round by round, the starting reader rotating, so a machine that slows down mid-way slows all alike.`,
  machineExtra: [[browserVersion, versions({ npm: ['msgpackr', '@msgpack/msgpack', 'h5wasm'], python: ['tsfile'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log('\n' + text);
