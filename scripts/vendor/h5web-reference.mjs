// Builds tests/vendor/h5web-h5wasm/api.mjs: h5web's own h5wasm provider (the worker API of
// @h5web/h5wasm at the tag, MIT) as one ES module, the reference the h5web differential
// suite compares ArrowsmithApi with. npm serves @h5web/h5wasm only at 16.0.1, which goes
// with @h5web/app 16; this builds the one that goes with the @h5web/app we support.
//   node scripts/vendor/h5web-reference.mjs <h5web checkout> [tag]
// The module exports createReference(h5wasm): a fresh provider on the h5wasm module given
// (h5wasm/node in Node, h5wasm in browsers); a fresh h5wasm instance per file keeps one
// file's failed read (h5wasm's heap can break) from the next. comlink and nanoid are
// replaced by the few lines used.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const [repo, tag = 'v17.0.0'] = process.argv.slice(2);
if (!repo) throw new Error('usage: node scripts/vendor/h5web-reference.mjs <h5web checkout> [tag]');
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const src = mkdtempSync(join(tmpdir(), 'h5web-'));
const git = (...a) => execFileSync('git', ['--git-dir', repo.endsWith('.git') || repo.endsWith('/repo') ? repo : join(repo, '.git'), ...a]);
writeFileSync(join(src, 'src.tar'), git('archive', tag, 'packages/shared/src', 'packages/h5wasm/src', 'LICENSE.md'));
execFileSync('tar', ['-xf', 'src.tar'], { cwd: src });
const shims = join(src, 'shims');
mkdirSync(shims);
writeFileSync(join(shims, 'comlink.js'), 'export const transfer = (v) => v;\nexport const expose = () => {};\n');
// h5wasm's Node build maps its file system onto the real one (NODERAWFS): the files the
// provider writes go to /tmp, which browsers' in-memory file system also has.
// biome-ignore lint/suspicious/noTemplateCurlyInString: the shim's source holds a template literal
writeFileSync(join(shims, 'nanoid.js'), 'let n = 0;\nconst run = Math.random().toString(36).slice(2);\nexport const nanoid = () => `/tmp/h5web-ref-${run}-${++n}.h5`;\n');
// `__h5wasm` is createReference's argument (see the wrapper below).
writeFileSync(join(shims, 'h5wasm.js'), ['ready', 'File', 'Dataset', 'Attribute'].map((k) => `export const ${k} = __h5wasm.${k};`).join('\n') + '\n');
writeFileSync(join(src, 'entry.ts'), "export { default as api } from './packages/h5wasm/src/worker';\n");
const out = join(root, 'tests/vendor/h5web-h5wasm');
mkdirSync(out, { recursive: true });
const built = await build({
  entryPoints: [join(src, 'entry.ts')],
  bundle: true,
  format: 'iife',
  globalName: '__reference',
  platform: 'neutral',
  target: 'es2022',
  write: false,
  nodePaths: [join(root, 'node_modules')],
  mainFields: ['module', 'main'],
  define: { 'import.meta.env.MODE': '"test"' },
  alias: {
    '@h5web/shared': join(src, 'packages/shared/src'),
    comlink: join(shims, 'comlink.js'),
    nanoid: join(shims, 'nanoid.js'),
    h5wasm: join(shims, 'h5wasm.js'),
  },
  logLevel: 'warning',
});
writeFileSync(
  join(out, 'api.mjs'),
  [
    `// h5web ${tag} packages/h5wasm/src/worker.ts bundled by scripts/vendor/h5web-reference.mjs (MIT, see LICENSE.md). Do not edit.`,
    '// createReference(h5wasm) -> the worker API (openFileBuffer, getEntity, getValue, getAttrValue, ...) on that h5wasm module.',
    'export function createReference(__h5wasm) {',
    built.outputFiles[0].text,
    '  return __reference.api;',
    '}',
    '',
  ].join('\n'),
);
copyFileSync(join(src, 'LICENSE.md'), join(out, 'LICENSE.md'));
console.log(`wrote ${join(out, 'api.mjs')}`);
