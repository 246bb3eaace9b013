/**
 * An esbuild plugin that emits Arrowsmith's wasm modules and pool worker. The package names
 * them with literal `new URL('…', import.meta.url)`, which Vite, webpack and Rollup follow
 * and esbuild does not: this plugin turns each such URL in the package into an import through
 * esbuild's `file` loader, so the files land in the output folder (hashed) and the URLs point
 * at them.
 *
 * ```js
 * import arrowsmith from 'arrowsmith/esbuild';
 * await esbuild.build({ entryPoints: ['app.js'], bundle: true, format: 'esm', outdir: 'dist', plugins: [arrowsmith()] });
 * ```
 *
 * The URLs resolve against the bundle's own URL, so keep the bundle at the top of the
 * output folder (or set esbuild's `publicPath`).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The part of esbuild's `PluginBuild` this plugin uses (typed here: esbuild is not a dependency). */
export interface EsbuildPluginBuild {
  onResolve(options: { filter: RegExp }, callback: (args: { path: string; resolveDir: string }) => { path: string; namespace: string }): void;
  onLoad(
    options: { filter: RegExp; namespace?: string },
    callback: (args: { path: string }) => Promise<{ contents: string | Uint8Array; loader: 'js' | 'file'; resolveDir?: string }>,
  ): void;
}

export interface EsbuildPlugin {
  name: string;
  setup(build: EsbuildPluginBuild): void;
}

/** The package's modules that name files with `new URL(..., import.meta.url)`. */
const NAMING = /[\\/]arrowsmith[\\/]dist[\\/](wasm[\\/]files|pool[\\/]workers)\.js$/;
const SUFFIX = '?arrowsmith-file';
const URL_LITERAL = /new URL\((['"])([^'"]+)\1,\s*import\.meta\.url\)/g;

export default function arrowsmith(): EsbuildPlugin {
  return {
    name: 'arrowsmith',
    setup(build) {
      build.onLoad({ filter: NAMING }, async (args) => {
        const code = await readFile(args.path, 'utf8');
        const imports: string[] = [];
        const contents = code.replace(URL_LITERAL, (_, _quote: string, rel: string) => {
          const id = `__arrowsmith_file_${imports.length}`;
          imports.push(`import ${id} from ${JSON.stringify(rel + SUFFIX)};`);
          return `new URL(${id}, import.meta.url)`;
        });
        return { contents: `${imports.join('\n')}\n${contents}`, loader: 'js', resolveDir: dirname(args.path) };
      });
      build.onResolve({ filter: /\?arrowsmith-file$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.slice(0, -SUFFIX.length)), namespace: 'arrowsmith-file' }));
      build.onLoad({ filter: /.*/, namespace: 'arrowsmith-file' }, async (args) => ({ contents: await readFile(args.path), loader: 'file' }));
    },
  };
}
