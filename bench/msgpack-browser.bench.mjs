#!/usr/bin/env node
// MessagePack in browsers: the datasets of bench/msgpack.bench.mjs (the foundation issue's, the
// encoding matrix of #23 and the records rows) and the real encoders' payloads of
// bench/payloads.mjs (`npm run bench:payloads`) decoded in Chromium and Firefox by Arrowsmith
// (SIMD build), msgpackr and @msgpack/msgpack. Every run is a fresh page in a fresh browser
// context (bench/cold-page.mjs): import, init, decodes 1–3 timed, then warm decodes for 1 s
// in the same page. Runs go round the readers in turn (bench/coldwarm.mjs); ratios are taken
// round by round against msgpackr in the same browser. In browsers msgpackr has no native
// string add-on (its Node edge), only TextDecoder and its JS paths.
// Writes bench/results/msgpack-browser.md (a partial run: target/bench-partial/).
// Options: --rounds N (default 3), --only TEXT, --quick, --no-firefox, --no-payloads.
import os from 'node:os';
import { msgpackCases, msgpackDatasets } from './cases.mjs';
import { Cold, coldOptions, coldRounds, fmt, machineLoad, med, pairedRatios, resultsPath, stepOf, versions } from './coldwarm.mjs';
import { mdTable, writeReport } from './common.mjs';
import { payloads } from './payloads.mjs';

const started = performance.now();
const argv = process.argv.slice(2);
const opts = coldOptions(argv);
if (!argv.includes('--rounds')) opts.rounds = 3;
const firefox = !argv.includes('--no-firefox');
const load0 = os.loadavg()[0];
const withPayloads = !argv.includes('--no-payloads');
const matrix = msgpackDatasets(opts.quick).filter((d) => !opts.only || d.name.includes(opts.only) || d.id.includes(opts.only));
const real = withPayloads ? payloads(opts.only) : [];
const datasets = [...matrix, ...real];
// Every row gets warm decodes in its page (msgpackCases leaves them to Node's tinybench run).
const cases = [
  ...msgpackCases(matrix).map((c) => ({ ...c, spec: { format: 'msgpack', case: {}, warmMs: 1000, warmRuns: 10 } })),
  ...real.map((p) => ({ key: p.data, label: p.name, format: 'msgpack', data: p.data, spec: { format: 'msgpack', case: { options: p.options, stream: p.stream }, warmMs: 1000, warmRuns: 10 } })),
];
const READERS = [
  ['arrowsmith simd', { reader: 'arrowsmith', opts: { simd: true } }],
  ['msgpackr', { reader: 'msgpackr' }],
  ['@msgpack/msgpack', { reader: '@msgpack/msgpack' }],
];
const BROWSERS = ['Chromium', ...(firefox ? ['Firefox'] : [])];
const contenders = BROWSERS.flatMap((b) => READERS.map(([name, spec]) => ({ name: `${name}, ${b}`, env: b.toLowerCase(), spec })));

const cold = await new Cold({ browser: true, firefox }).start();
let results;
try {
  results = await coldRounds(cold, cases, contenders, opts.rounds);
} finally {
  await cold.close();
}

// ---- per browser: cold read 1 and warm medians, ratios against msgpackr round by round ----
const x = (v) => (Number.isFinite(v) ? `${v.toFixed(v >= 10 ? 0 : 2)}×` : '–');
const range = (rs) => (rs.length > 1 ? `${x(med(rs))} (${x(Math.min(...rs))}–${x(Math.max(...rs))})` : x(rs[0]));
/** Each run's warm median, as a step, so that pairedRatios pairs them by round. */
const withWarm = (runs) => runs.filter((r) => !r.error).map((r) => ({ ...r, steps: { ...r.steps, warm: { ms: med(r.warm ?? []) } } }));
const sections = [];
const summary = [];
for (const b of BROWSERS) {
  const rows = [];
  const below = { warm: [], cold: [] };
  const all = { warm: [], cold: [] };
  for (const [i, c] of cases.entries()) {
    const got = results.get(c.key);
    const runs = (name) => withWarm(got.get(`${name}, ${b}`) ?? []);
    const ours = runs('arrowsmith simd');
    const peer = runs('msgpackr');
    const other = runs('@msgpack/msgpack');
    const failed = ['arrowsmith simd', 'msgpackr', '@msgpack/msgpack'].map((n) => (got.get(`${n}, ${b}`) ?? []).find((r) => r.error)).find(Boolean);
    const coldR = pairedRatios(ours, peer, 'read1');
    const warmR = pairedRatios(ours, peer, 'warm');
    const warmO = pairedRatios(ours, other, 'warm');
    const ms = (rs, step) => fmt(med(stepOf(rs, step)));
    rows.push([datasets[i].name, ms(ours, 'read1'), ms(peer, 'read1'), ms(other, 'read1'), range(coldR), ms(ours, 'warm'), ms(peer, 'warm'), ms(other, 'warm'), range(warmR), range(warmO), failed ? `fails: ${failed.error}` : '']);
    const cm = med(coldR);
    const wm = med(warmR);
    all.cold.push(cm);
    all.warm.push(wm);
    if (!(wm >= 3)) below.warm.push(`${datasets[i].name} ${x(wm)}`);
    if (!(cm >= 1.5)) below.cold.push(`${datasets[i].name} ${x(cm)}`);
  }
  const lo = (xs) => x(Math.min(...xs.filter(Number.isFinite)));
  const hi = (xs) => x(Math.max(...xs.filter(Number.isFinite)));
  summary.push(`${b}: warm ${lo(all.warm)}–${hi(all.warm)} msgpackr (median ${x(med(all.warm))}), first decode ${lo(all.cold)}–${hi(all.cold)} (median ${x(med(all.cold))}).`);
  const version = b === 'Chromium' ? cold.browserVersion : cold.firefoxVersion;
  sections.push({
    title: `${b} (${version})`,
    text: `${mdTable(['dataset', 'read 1 ms: ours', 'msgpackr', '@msgpack/msgpack', 'read 1: msgpackr ÷ ours', 'warm ms: ours', 'msgpackr', '@msgpack/msgpack', 'warm: msgpackr ÷ ours', 'warm: @msgpack/msgpack ÷ ours', 'error'], rows)}\n\n- Rows below 3× msgpackr warm (target): ${below.warm.length ? below.warm.join('; ') : 'none'}.\n- Rows below 1.5× msgpackr on the first decode (target): ${below.cold.length ? below.cold.join('; ') : 'none'}.`,
  });
}

const load = machineLoad(load0);
const minutes = ((performance.now() - started) / 60e3).toFixed(1);
const text = writeReport(resultsPath('msgpack-browser', { ...opts, browser: firefox }), {
  title: 'MessagePack decoding in browsers',
  intro: `\`npm run bench:msgpack-browser\` (bench/msgpack-browser.bench.mjs; ${minutes} min for the whole run): the MessagePack datasets of \`npm run bench\` (bench/cases.mjs)${real.length ? " and the real encoders' payloads of `npm run bench:payloads` (bench/payloads.mjs; streams of concatenated values read by the peers' multi-value verbs)" : ''} in ${BROWSERS.join(' and ')}, Arrowsmith's SIMD build against msgpackr and @msgpack/msgpack. Each run is a fresh page in a fresh browser context: import, init, **read 1** (the first decode: code compiled on first use, fresh memory), reads 2 and 3, then **warm** decodes for 1 s (at least 10, at most 100) in the same page; ${opts.rounds} runs per reader and row, interleaved. Figures are medians over the runs; ratios are msgpackr's (or @msgpack/msgpack's) time ÷ ours, paired round by round: median (min–max); >1 means ours is faster. Arrowsmith: bytes → Arrow Table with JS-owned buffers (copies out of wasm included); peers: bytes → JS values. Targets (#42 item 2): every row ≥ 3× msgpackr warm and ≥ 1.5× on the first decode.\n\n${summary.map((s) => `- ${s}`).join('\n')}`,
  machineExtra: [[cold.browserVersion, cold.firefoxVersion, versions({ npm: ['msgpackr', '@msgpack/msgpack', 'apache-arrow'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log(`\n${text}`);
