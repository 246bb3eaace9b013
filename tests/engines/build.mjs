// Bundles of the cross-engine check: the runtime entry (imports of packages left to the
// engine, so Node, Bun and Deno load the built package the same way) and the page entry.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '../..');
export const outDir = join(root, 'test-output/engines');

/** Builds test-output/engines/digest-run.mjs (runtimes); returns its path. */
export async function buildRuntime() {
  const outfile = join(outDir, 'digest-run.mjs');
  await build({ entryPoints: [join(here, 'digest-run.ts')], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile, logLevel: 'warning' });
  return outfile;
}

/** Builds the page script into `dir/digest.js`. */
export async function buildPage(dir) {
  await build({
    entryPoints: [join(here, 'digest-page.ts')], bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, 'digest.js'), logLevel: 'warning',
    conditions: ['browser', 'import', 'default'],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await buildRuntime());
