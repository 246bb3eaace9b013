#!/usr/bin/env node
// The TS package's imports go one way (issue #37): entries (and cli/) → worker/, h5web/ →
// formats → file → pool → arrow → wasm → io → ground types. A module may import its own
// folder and the layers below its own, never a layer above or a sibling at its level;
// `worker/` is reached only by URL (nothing imports it). Type-only imports count too: a type
// from above is a dependency on above. No dependencies:
// `node scripts/check-imports.mjs [root]`; exit 1 with each import that breaks a rule.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const src = join(root, 'packages/arrowsmith/src');

/** Folders by layer, lowest first; files at the root are entries unless named here. */
const GROUND = new Set(['types.ts', 'errors.ts']);
const LAYERS = ['io', 'wasm', 'arrow', 'pool', 'file', 'formats', ['worker', 'h5web']];
const rank = new Map(LAYERS.flatMap((l, i) => (Array.isArray(l) ? l : [l]).map((f) => [f, i + 1])));
const ENTRY = LAYERS.length + 1;

/** A module's layer: [folder, rank]. */
function layerOf(file) {
  const parts = file.split('/');
  if (parts.length === 1) return GROUND.has(file) ? ['ground', 0] : ['entry', ENTRY];
  if (parts[0] === 'cli') return ['cli', ENTRY]; // the bin: an entry of its own
  const r = rank.get(parts[0]);
  if (r === undefined) throw new Error(`check-imports: ${file} is in no layer (add its folder to LAYERS)`);
  return [parts[0], r];
}

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name));
    else if (e.name.endsWith('.ts')) files.push(relative(src, join(dir, e.name)).split('\\').join('/'));
  }
};
walk(src);

const faults = [];
const SPEC = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;
for (const file of files) {
  const text = readFileSync(join(src, file), 'utf8');
  const [folder, r] = layerOf(file);
  for (const m of text.matchAll(SPEC)) {
    const spec = m[1] ?? m[2];
    const target = posix.normalize(posix.join(dirname(file), spec)).replace(/\.js$/, '.ts');
    if (target.startsWith('../')) continue; // the generated glue (packages/arrowsmith/wasm)
    const [tf, tr] = layerOf(target);
    const why =
      tf === folder ? undefined
      : tf === 'worker' ? 'worker/ is loaded by URL, never imported'
      : r === ENTRY ? undefined
      : tr > r ? `${folder}/ sits below ${tf}/`
      : tr === r ? `${folder}/ and ${tf}/ are siblings`
      : undefined;
    if (why) faults.push(`${file} imports ${target}: ${why}`);
  }
}
if (faults.length) {
  console.error(`check-imports: ${faults.length} import(s) against the direction of the layers:\n  ${faults.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} modules, every import goes down the layers`);
