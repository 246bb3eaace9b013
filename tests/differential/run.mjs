#!/usr/bin/env node
// Differential testing against the writers (docs/robustness.md, "Differential testing"):
// random valid files written by each format's own writers (h5py + hdf5plugin, PyPI tsfile's
// C++ writer, Python msgpack / msgspec / ormsgpack, npm msgpackr / @msgpack/msgpack), the
// writer's own reader's values beside each, every file read by the built package in this one
// Node process and compared value by value and type by type.
//
//   node tests/differential/run.mjs [--seed S] [--count N] [--format hdf5,tsfile,msgpack]
//                                   [--keep] [--out DIR] [--tamper] [--only K]
//                                   [--exclude format:dimension,...]
//
// --only K rewrites and checks file K of the seed alone (a repro). --tamper flips one bit of one
// expected value per file (the harness must then fail). --exclude leaves a generator dimension
// out, named in the output (e.g. hdf5:zero-trailing-dims while a known bug is open).
// --count is files per format (MessagePack: per encoder family, Python and npm, each N).
// Files go to a temp dir, deleted unless --keep or a failure. Ends with
// "differential: N passed, M failed" (N, M: files).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { generate as generateNpm } from './gen_msgpack_npm.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const { values: a } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '100' },
    format: { type: 'string', default: 'hdf5,tsfile,msgpack' },
    out: { type: 'string' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    tamper: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    exclude: { type: 'string', default: '' },
  },
});
const seed = Number(a.seed);
const count = Number(a.count);
const formats = a.format.split(',');
for (const f of formats) if (!['hdf5', 'tsfile', 'msgpack'].includes(f)) throw new Error(`unknown format ${f}`);
const python = join(root, '.venv/bin/python');
process.env.PYTHONDONTWRITEBYTECODE = '1';
const out = a.out ?? mkdtempSync(join(tmpdir(), 'arrowsmith-differential-'));
const only = a.only === undefined ? [] : ['--only', a.only];

const t0 = Date.now();
const timing = {};
for (const f of formats) {
  const t = Date.now();
  const dir = join(out, f);
  mkdirSync(dir, { recursive: true });
  const excluded = a.exclude.split(',').filter((x) => x.startsWith(`${f}:`)).map((x) => x.slice(f.length + 1));
  if (excluded.length) console.log(`differential: ${f}: EXCLUDED generator dimensions: ${excluded.join(', ')}`);
  const args = ['--seed', String(seed), '--count', String(count), '--out', dir, ...only, ...(excluded.length ? ['--exclude', excluded.join(',')] : [])];
  execFileSync(python, [join(here, `gen_${f}.py`), ...args], { stdio: 'inherit' });
  if (f === 'msgpack') await generateNpm(seed, count, dir, a.only === undefined ? undefined : Number(a.only));
  timing[f] = { generate: Date.now() - t };
}

const bundle = join(root, 'test-output/differential/check.mjs');
await build({ entryPoints: [join(here, 'check.ts')], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile: bundle, logLevel: 'warning' });
const { checkDir } = await import(pathToFileURL(bundle).href);

let passed = 0;
let failed = 0;
const lines = [];
for (const f of formats) {
  const t = Date.now();
  const results = await checkDir(join(out, f), root, a.tamper);
  timing[f].check = Date.now() - t;
  const ok = results.filter((r) => r.ok);
  const bad = results.filter((r) => !r.ok && !r.skipped);
  const skipped = results.filter((r) => r.skipped);
  const refused = results.flatMap((r) => r.refused);
  const notes = results.filter((r) => r.notes.length);
  passed += ok.length;
  failed += bad.length;
  // Writer crashes are skipped files; more than a few means the generator is broken.
  if (skipped.length > Math.max(3, results.length * 0.02)) {
    console.log(`${f}: ${skipped.length} of ${results.length} files were writer crashes: too many, counted as a failure`);
    failed += 1;
  }
  const values = results.reduce((n, r) => n + r.values, 0);
  lines.push(`${f}: ${results.length} files (seed ${seed}), ${values} values compared, ${ok.length} agree, ${bad.length} disagree, ${refused.length} documented refusals, ${skipped.length} writer crashes, ${notes.length} files with notes; generate ${(timing[f].generate / 1000).toFixed(1)} s, check ${(timing[f].check / 1000).toFixed(1)} s`);
  for (const r of bad) {
    console.log(`\nMISMATCH ${f} ${r.file} ${JSON.stringify(r.params)}`);
    for (const p of r.problems.slice(0, 8)) console.log(`  ${p.slice(0, 600)}`);
    if (r.problems.length > 8) console.log(`  … ${r.problems.length - 8} more`);
  }
  for (const r of skipped) console.log(`\nWRITER CRASH ${f} ${r.file}: ${r.skipped}`);
  for (const r of notes) console.log(`NOTE ${f} ${r.file} ${JSON.stringify(r.params).slice(0, 300)}: ${r.notes[0].slice(0, 400)}${r.notes.length > 1 ? ` (+${r.notes.length - 1})` : ''}`);
  if (!a.quiet) for (const r of refused) console.log(`refused as documented: ${f} ${r}`);
}
console.log('');
for (const l of lines) console.log(l);
if (a.exclude) console.log(`excluded generator dimensions: ${a.exclude}`);
console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)} s; files in ${out}${failed || a.keep || a.out ? '' : ' (deleted)'}`);
if (!failed && !a.keep && !a.out) rmSync(out, { recursive: true, force: true });
console.log(`differential: ${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
