#!/usr/bin/env node
// MessagePack: Arrowsmith (SIMD and scalar wasm) vs msgpackr and @msgpack/msgpack, in one
// run, on the datasets of the foundation issue. Time = bytes in a Uint8Array → usable
// Arrow Table (copies out of wasm included) for us; → JS values for the peers.
//  1. Cold: fresh Node processes and fresh Chromium pages, each timing import, init and
//     decodes 1–3 (bench/coldwarm.mjs), interleaved, --rounds N each.
//  2. Warm: tinybench medians in this process; ratios against msgpackr measured in the same run.
// Writes bench/results/msgpack.md. Options: --quick, --rounds N, --only TEXT, --no-browser,
// --no-cold, --no-warm.
import { decode as msgpackDecode } from '@msgpack/msgpack';
import { unpack } from 'msgpackr';
import os from 'node:os';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/bench-file.js';
import { decodeWith } from '../packages/arrowsmith/dist/msgpack.js';
import { msgpackCases, msgpackContenders, msgpackDatasets, peerOf } from './cases.mjs';
import { coldOptions, coldTable, machineLoad, resultsPath, runCold, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';

const opts = coldOptions();
const load0 = os.loadavg()[0];
const quick = opts.quick;
const datasets = msgpackDatasets(quick).filter((d) => !opts.only || d.name.includes(opts.only) || d.id.includes(opts.only));
const cases = msgpackCases(datasets);
const contenders = msgpackContenders(opts);

// ---- 1. cold ----
const { results: coldResults, browserVersion } = opts.cold ? await runCold(cases, contenders, opts) : {};

// ---- 2. warm ----
const simd = instantiateVariant('simd');
const scalar = instantiateVariant('scalar');
const rows = [];
const summary = [];
const warmMs = new Map();
for (const d of opts.warm ? datasets : []) {
  const bench = new Bench({ time: quick ? 300 : 1500, warmupTime: 200 });
  const sink = [];
  bench.add('arrowsmith simd', () => void sink.push(decodeWith(simd, d.bytes).numRows));
  bench.add('arrowsmith scalar', () => void sink.push(decodeWith(scalar, d.bytes).numRows));
  // Opt-in zero-copy: the table's buffers are views into wasm memory, valid until the next call.
  bench.add('arrowsmith simd, views (copy: false)', () => void sink.push(decodeWith(simd, d.bytes, { copy: false }).numRows));
  if (d.fastOff) bench.add('arrowsmith simd, fast path off', () => void sink.push(decodeWith(simd, d.bytes, { fastPath: false }).numRows));
  bench.add('msgpackr', () => void sink.push(unpack(d.bytes).length));
  bench.add('@msgpack/msgpack', () => void sink.push(msgpackDecode(d.bytes).length));
  await bench.run();
  const ms = Object.fromEntries(bench.tasks.map((t) => [t.name, median(t)]));
  const peer = ms.msgpackr;
  for (const t of bench.tasks) warmMs.set(`${d.id}|${t.name}`, ms[t.name]);
  for (const t of bench.tasks) {
    const m = ms[t.name];
    rows.push([d.name, t.name, m.toFixed(3), (t.result?.latency?.min ?? NaN).toFixed(3), ((d.rows / m) * 1e3 / 1e6).toFixed(1), (d.bytes.length / m / 1e3).toFixed(0), (peer / m).toFixed(1) + '×']);
  }
  const views = ms['arrowsmith simd, views (copy: false)'];
  summary.push(`${d.name}: simd ${(peer / ms['arrowsmith simd']).toFixed(1)}× msgpackr, ${((d.rows / ms['arrowsmith simd']) / 1e6).toFixed(2)} G elements/s; with views ${(peer / views).toFixed(1)}×, ${((d.rows / views) / 1e6).toFixed(2)} G elements/s`);
  console.log(`${d.name} (${(d.bytes.length / 1e6).toFixed(1)} MB): ` + bench.tasks.map((t) => `${t.name} ${ms[t.name].toFixed(3)} ms`).join(', '));
}
// ---- the results file ----
const sections = [];
if (coldResults) {
  const byKey = new Map(cases.map((c, i) => [c.key, datasets[i]]));
  const t = coldTable(cases, contenders, coldResults, {
    peer: (k) => peerOf('msgpack', k),
    // Node's warm medians come from the tinybench run below ("arrowsmith simd", "msgpackr", …).
    warm: (c, k) => (k.env === 'node' ? warmMs.get(`${byKey.get(c.key).id}|${k.name.replace(', Node', '')}`) : undefined),
  });
  sections.push({
    title: 'Cold and warm',
    text: `Each run is a fresh Node process or a fresh Chromium page (${opts.rounds} runs per decoder, interleaved): **import** the library, **init** (Arrowsmith: \`init({ formats: ['msgpack'] })\`, compile + instantiate the MessagePack module; the peers have none), then **decodes 1–3** of the same bytes, each timed: median (min–max) over the runs. **warm median**: Node from the tinybench run below; Chromium from warm decodes in the same page after decode 3. **read 1 CPU**: the decoding thread's CPU time (Linux schedstat). **read 1 page faults**: minor faults of the process (Chromium: its renderers) during decode 1. The last column divides msgpackr's decode 1 by ours in the same environment, round by round (>1: ours is faster).\n\n${mdTable(t.header, t.rows)}`,
  });
}
if (rows.length) {
  sections.push({
    title: 'Warm (tinybench, Node)',
    text: `Medians of one run${quick ? ' (--quick)' : ''}. Arrowsmith: bytes → Arrow Table with JS-owned buffers (copies out of wasm included). Peers: bytes → JS arrays/objects. "vs msgpackr" = msgpackr's median time / this decoder's. Each Arrowsmith call allocates fresh JS-owned output buffers (4 MB for 1M Int32), so V8 garbage collections of those buffers land inside some iterations: the gap between min and median is mostly that. The "views (copy: false)" row is the documented opt-in zero-copy mode: the table's buffers are views into wasm memory, valid until the next Arrowsmith call (the input is still copied into wasm).\n\n${mdTable(['dataset', 'decoder', 'median ms', 'min ms', 'M rows/s', 'MB/s', 'vs msgpackr'], rows)}\n\n${summary.map((s) => `- ${s}`).join('\n')}`,
  });
}
const load = machineLoad(load0);
const text = writeReport(resultsPath('msgpack', opts), {
  title: 'MessagePack decoding benchmark',
  intro: '`npm run bench` (bench/msgpack.bench.mjs): the datasets of the foundation issue, Arrowsmith (SIMD and scalar builds) vs msgpackr and @msgpack/msgpack. Time = bytes in a Uint8Array → usable Arrow Table for us (copies out of wasm included), → JS values for the peers.',
  machineExtra: [[browserVersion ?? '', versions({ npm: ['msgpackr', '@msgpack/msgpack'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log('\n' + text);
