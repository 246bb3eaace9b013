#!/usr/bin/env node
// Differential testing against the writers (docs/robustness.md, "Differential testing"):
// random valid files written by each format's own writers (h5py + hdf5plugin, PyPI tsfile's
// C++ writer, Python msgpack / msgspec / ormsgpack, npm msgpackr / @msgpack/msgpack), the
// writer's own reader's values beside each, every file read by the built package in this one
// Node process and compared value by value and type by type.
//
//   node tests/differential/run.mjs [--seed S] [--count N] [--format hdf5,tsfile,msgpack]
//                                   [--keep] [--out DIR] [--tamper] [--only K]
//                                   [--exclude format:dimension,...] [--tsfile-writers cpp,java]
//
// --only K rewrites and checks file K of the seed alone (a repro). --tamper flips one bit of one
// expected value per file (the harness must then fail). --exclude leaves a generator dimension
// out, named in the output (e.g. hdf5:zero-trailing-dims while a known bug is open).
// --count is files per format (MessagePack: per encoder family, Python and npm, each N; TsFile:
// per writer, the C++ one of PyPI tsfile and the Java one, tests/differential/java, each N).
// The Java writer's jars come from Maven Central into ~/.m2 on the first run; a build it cannot
// resolve or compile is reported and counted as a failure.
// Files go to a temp dir, deleted unless --keep or a failure. Ends with
// "differential: N passed, M failed" (N, M: files).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    'tsfile-writers': { type: 'string', default: 'cpp,java' },
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
const tsfileWriters = a['tsfile-writers'].split(',');
for (const w of tsfileWriters) if (!['cpp', 'java'].includes(w)) throw new Error(`unknown TsFile writer ${w}`);
let setupFailed = 0;

/**
 * The Java TsFile generator (tests/differential/java): its classpath resolved by Maven (into
 * ~/.m2), compiled with javac into target/differential-java (again only when its sources
 * change), one JVM writing every file of the seed. Throws with the tool's output on failure.
 */
function javaTsFile(dir, excluded) {
  const src = join(here, 'java');
  const build = join(root, 'target/differential-java');
  const stamp = createHash('sha256').update(readFileSync(join(src, 'pom.xml'))).update(readFileSync(join(src, 'GenTsFileJava.java'))).digest('hex');
  const cp = join(build, 'classpath.txt');
  if (!existsSync(join(build, 'stamp')) || readFileSync(join(build, 'stamp'), 'utf8') !== stamp) {
    rmSync(build, { recursive: true, force: true });
    mkdirSync(join(build, 'classes'), { recursive: true });
    execFileSync('mvn', ['-q', '-B', '-f', join(src, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${cp}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    execFileSync('javac', ['-nowarn', '-d', join(build, 'classes'), '-cp', readFileSync(cp, 'utf8').trim(), join(src, 'GenTsFileJava.java')], { stdio: ['ignore', 'pipe', 'pipe'] });
    writeFileSync(join(build, 'stamp'), stamp);
  }
  const args = [String(seed), String(count), dir, a.only ?? '-1', excluded.join(',')];
  execFileSync('java', ['-XX:TieredStopAtLevel=1', '-Xshare:auto', '-cp', `${join(build, 'classes')}:${readFileSync(cp, 'utf8').trim()}`, 'gen.GenTsFileJava', ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
}

const t0 = Date.now();
const timing = {};
// Families checked and counted apart: TsFile's C++ writer is `tsfile`, its Java one `tsfile-java`.
const families = formats.flatMap((f) => (f === 'tsfile' ? tsfileWriters.map((w) => (w === 'cpp' ? 'tsfile' : 'tsfile-java')) : [f]));
for (const f of families) {
  const t = Date.now();
  const dir = join(out, f);
  mkdirSync(dir, { recursive: true });
  const fmt = f === 'tsfile-java' ? 'tsfile' : f;
  // `sprintz-float` is the Java generator's alone (gen_tsfile.py refuses names it does not know).
  const excluded = a.exclude.split(',').filter((x) => x.startsWith(`${fmt}:`)).map((x) => x.slice(fmt.length + 1)).filter((x) => f === 'tsfile-java' || x !== 'sprintz-float');
  if (excluded.length) console.log(`differential: ${f}: EXCLUDED generator dimensions: ${excluded.join(', ')}`);
  if (f === 'tsfile-java') {
    try {
      javaTsFile(dir, excluded);
    } catch (e) {
      setupFailed += 1;
      console.log(`differential: tsfile-java: the Java TsFile writer could not run (Maven, javac or java failed; the first run needs Maven Central): counted as a failure\n${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`.slice(0, 4000));
    }
  } else {
    const args = ['--seed', String(seed), '--count', String(count), '--out', dir, ...only, ...(excluded.length ? ['--exclude', excluded.join(',')] : [])];
    execFileSync(python, [join(here, `gen_${f}.py`), ...args], { stdio: 'inherit' });
    if (f === 'msgpack') await generateNpm(seed, count, dir, a.only === undefined ? undefined : Number(a.only));
  }
  timing[f] = { generate: Date.now() - t };
}

const bundle = join(root, 'test-output/differential/check.mjs');
await build({ entryPoints: [join(here, 'check.ts')], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile: bundle, logLevel: 'warning' });
const { checkDir } = await import(pathToFileURL(bundle).href);

let passed = 0;
let failed = setupFailed;
const lines = [];
for (const f of families) {
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
