#!/usr/bin/env node
// MessagePack: Arrowsmith (SIMD and scalar wasm) vs msgpackr and @msgpack/msgpack, in one run,
// on the datasets of the foundation issue and the encoding matrix of #23 item 5
// (bench/cases.mjs). Time = bytes in a Uint8Array → usable Arrow Table (copies out of wasm
// included, JS-owned buffers) for us; → JS values for the peers.
//  1. Cold: a fresh Node process per reader and row (bench/coldwarm.mjs), timing import, init
//     and decodes 1–3, interleaved, --rounds N each (the matrix rows at most 3); the
//     foundation datasets also in fresh Chromium pages.
//  2. Warm: tinybench medians in this process; ratios against msgpackr measured in the same run.
// Writes bench/results/msgpack.md (a partial run: target/bench-partial/). Options: --quick,
// --rounds N, --only TEXT, --no-browser, --no-cold, --no-warm.
import { decode as msgpackDecode } from '@msgpack/msgpack';
import { unpack } from 'msgpackr';
import os from 'node:os';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/cli/bench-file.js';
import { decodeWith } from '../packages/arrowsmith/dist/formats/msgpack/decode.js';
import { msgpackCases, msgpackContenders, msgpackDatasets, peerOf } from './cases.mjs';
import { Cold, coldOptions, coldRounds, coldTable, fmt, machineLoad, med, pairedRatio, resultsPath, stepOf, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';

const started = performance.now();
const opts = coldOptions();
const load0 = os.loadavg()[0];
const quick = opts.quick;
const datasets = msgpackDatasets(quick).filter((d) => !opts.only || d.name.includes(opts.only) || d.id.includes(opts.only));
const cases = msgpackCases(datasets);
const caseOf = new Map(datasets.map((d, i) => [d.id, cases[i]]));
const contenders = msgpackContenders(opts);

// ---- 1. cold ----
// The foundation datasets get --rounds runs per reader; the matrix rows at most MATRIX_ROUNDS
// (21 rows × 4 readers of fresh processes: this keeps the whole run near 10 minutes).
const MATRIX_ROUNDS = 3;
const matrixRounds = Math.min(opts.rounds, MATRIX_ROUNDS);
let coldResults;
let browserVersion;
if (opts.cold) {
  const cold = await new Cold({ browser: opts.browser }).start();
  try {
    coldResults = new Map([...(await coldRounds(cold, cases.filter((c) => c.detail), contenders, opts.rounds)), ...(await coldRounds(cold, cases.filter((c) => !c.detail), contenders, matrixRounds))]);
    browserVersion = cold.browserVersion;
  } finally {
    await cold.close();
  }
}

// ---- 2. warm ----
const simd = instantiateVariant('simd');
const scalar = instantiateVariant('scalar');
const warmMs = new Map();
const ARROWSMITH = ['arrowsmith simd', 'arrowsmith scalar'];
const PEERS = ['msgpackr', '@msgpack/msgpack'];
for (const d of opts.warm ? datasets : []) {
  const bench = new Bench({ time: quick ? 300 : 1000, warmupTime: 200 });
  const sink = [];
  bench.add('arrowsmith simd', () => void sink.push(decodeWith(simd, d.bytes).numRows));
  bench.add('arrowsmith scalar', () => void sink.push(decodeWith(scalar, d.bytes).numRows));
  // Opt-in zero-copy: the table's buffers are views into wasm memory, valid until the next call.
  if (d.detail) bench.add('arrowsmith simd, views (copy: false)', () => void sink.push(decodeWith(simd, d.bytes, { copy: false }).numRows));
  if (d.fastOff) bench.add('arrowsmith simd, fast path off', () => void sink.push(decodeWith(simd, d.bytes, { fastPath: false }).numRows));
  bench.add('msgpackr', () => void sink.push(unpack(d.bytes).length));
  bench.add('@msgpack/msgpack', () => void sink.push(msgpackDecode(d.bytes).length));
  await bench.run();
  sink.length = 0;
  for (const t of bench.tasks) warmMs.set(`${d.id}|${t.name}`, median(t));
  console.log(`${d.name} (${(d.bytes.length / 1e6).toFixed(1)} MB): ` + bench.tasks.map((t) => `${t.name} ${median(t).toFixed(3)} ms`).join(', '));
}

// ---- the matrix: cold and warm per row ----
const x = (v) => (Number.isFinite(v) ? `${v.toFixed(1)}×` : '–');
const coldRuns = (d, name) => coldResults?.get(caseOf.get(d.id).key)?.get(`${name}, Node`)?.filter((r) => !r.error) ?? [];
const coldMs = (d, name) => med(stepOf(coldRuns(d, name), 'read1'));
const matrix = [];
const below = [];
const perElement = {};
for (const d of datasets) {
  const w = (name) => warmMs.get(`${d.id}|${name}`);
  for (const name of [...ARROWSMITH, ...PEERS]) {
    const ours = ARROWSMITH.includes(name);
    const t = w(name);
    const ratio = (peer) => (ours ? x(w(peer) / t) : '');
    const coldRatio = ours && coldResults ? pairedRatio(coldRuns(d, name), coldRuns(d, 'msgpackr')) : '';
    matrix.push([d.name, name, fmt(coldMs(d, name)), coldRatio, Number.isFinite(t) ? t.toFixed(3) : '–', Number.isFinite(t) ? ((t * 1e6) / d.rows).toFixed(2) : '–', Number.isFinite(t) ? (d.bytes.length / t / 1e3).toFixed(0) : '–', ratio('msgpackr'), ratio('@msgpack/msgpack')]);
    if (!ours || !Number.isFinite(t)) continue;
    if (w('msgpackr') / t < 3) below.push(`${d.name} (${name}): ${x(w('msgpackr') / t)}`);
    if (d.int) (perElement[name] ??= []).push([d.name, t / d.rows, d.base]);
  }
}
const targets = [];
for (const [v, list] of Object.entries(perElement)) {
  const base = list.find((e) => e[2]);
  if (!base) continue;
  const worst = list.reduce((a, b) => (b[1] > a[1] ? b : a));
  targets.push(`${v}: the slowest int row per element is "${worst[0]}", ${(worst[1] / base[1]).toFixed(2)}× the uint64 row (target ≤ 2×).`);
}
if (opts.warm) targets.push(below.length ? `Rows below 3× msgpackr (warm): ${below.join('; ')}.` : 'Every row is at least 3× msgpackr (warm; target).');

// ---- the results file ----
const sections = [];
if (matrix.length) {
  sections.push({
    title: 'Matrix: cold and warm (Node)',
    text: `**cold read 1 ms**: the first decode in a fresh Node process (import and init done, timed apart: see the detail below), median over ${opts.rounds} processes per reader for the datasets of the foundation issue (the first five rows) and ${matrixRounds} for the others, interleaved. **cold vs msgpackr**: msgpackr's cold read 1 ÷ ours, round by round (median, min–max). **warm**: tinybench median${quick ? ' (--quick)' : ''} in this process; "vs X" = X's warm median ÷ ours, measured in the same run. Arrowsmith: bytes → Arrow Table with JS-owned buffers (copies out of wasm included); peers: bytes → JS values. The int rows are written byte by byte, one encoding each, values within 2^53 so that every peer decodes them exactly. Targets (#23 item 5): every row ≥ 3× msgpackr warm, and no int encoding slower per element than 2× the uint64 row.\n\n${mdTable(['dataset', 'decoder', 'cold read 1 ms', 'cold vs msgpackr', 'warm median ms', 'ns/value', 'MB/s', 'warm vs msgpackr', 'warm vs @msgpack/msgpack'], matrix)}\n\n${targets.map((s) => `- ${s}`).join('\n')}`,
  });
}
if (coldResults) {
  const detail = cases.filter((c) => c.detail);
  const byKey = new Map(cases.map((c, i) => [c.key, datasets[i]]));
  const t = coldTable(detail, contenders, coldResults, {
    peer: (k) => peerOf('msgpack', k),
    // Node's warm medians come from the tinybench run ("arrowsmith simd", "msgpackr", …).
    warm: (c, k) => (k.env === 'node' ? warmMs.get(`${byKey.get(c.key).id}|${k.name.replace(', Node', '')}`) : undefined),
  });
  sections.push({
    title: 'Cold detail (datasets of the foundation issue)',
    text: `Each run is a fresh Node process or a fresh Chromium page (${opts.rounds} runs per decoder, interleaved): **import** the library, **init** (Arrowsmith: \`init({ formats: ['msgpack'] })\`, compile + instantiate the MessagePack module; the peers have none), then **decodes 1–3** of the same bytes, each timed: median (min–max) over the runs. **warm median**: Node from the tinybench run; Chromium from warm decodes in the same page after decode 3. **read 1 CPU**: the decoding thread's CPU time (Linux schedstat). **read 1 page faults**: minor faults of the process (Chromium: its renderers) during decode 1. The last column divides msgpackr's decode 1 by ours in the same environment, round by round (>1: ours is faster).\n\n${mdTable(t.header, t.rows)}`,
  });
}
const detailWarm = [];
for (const d of datasets.filter((d) => d.detail)) {
  const peer = warmMs.get(`${d.id}|msgpackr`);
  for (const name of ['arrowsmith simd', 'arrowsmith simd, views (copy: false)', 'arrowsmith simd, fast path off']) {
    const m = warmMs.get(`${d.id}|${name}`);
    if (m !== undefined) detailWarm.push([d.name, name, m.toFixed(3), ((d.rows / m) * 1e3 / 1e6).toFixed(1), x(peer / m)]);
  }
}
if (detailWarm.length) {
  sections.push({
    title: 'Warm: zero-copy views and the fast path off (Node)',
    text: `The "views (copy: false)" rows are the documented opt-in zero-copy mode: the table's buffers are views into wasm memory, valid until the next Arrowsmith call (the input is still copied into wasm). "fast path off" is \`fastPath: false\` (the lanes only). Each Arrowsmith call with JS-owned output allocates fresh buffers (4 MB for 1M Int32), so V8 garbage collections of those land inside some iterations.\n\n${mdTable(['dataset', 'decoder', 'warm median ms', 'M rows/s', 'vs msgpackr'], detailWarm)}`,
  });
}
const load = machineLoad(load0);
const minutes = ((performance.now() - started) / 60e3).toFixed(1);
const text = writeReport(resultsPath('msgpack', opts), {
  title: 'MessagePack decoding benchmark',
  intro: `\`npm run bench\` (bench/msgpack.bench.mjs; ${minutes} min for the whole run): the datasets of the foundation issue and the encoding matrix of #23, Arrowsmith (SIMD and scalar builds) vs msgpackr and @msgpack/msgpack, cold (fresh processes) and warm (tinybench) in one run. Time = bytes in a Uint8Array → usable Arrow Table for us (copies out of wasm included), → JS values for the peers.`,
  machineExtra: [[browserVersion ?? '', versions({ npm: ['msgpackr', '@msgpack/msgpack'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log('\n' + text);
