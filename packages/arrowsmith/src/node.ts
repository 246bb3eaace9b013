/**
 * The Node entry: the same API as the browser entry, but the package's .wasm files are
 * read from disk, `init()` is optional (the module loads synchronously on first use), and
 * `ARROWSMITH_SIMD=0` (or `1`) forces the scalar (or SIMD) build.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadSync, platform, type InitOptions } from './wasm.js';

const file = (variant: string, opts?: InitOptions) =>
  new URL(`arrowsmith_${variant}.wasm`, opts?.baseUrl ?? new URL('../wasm/', import.meta.url));

const env = process.env.ARROWSMITH_SIMD;
platform.envSimd = env === undefined || env === '' ? undefined : !['0', 'false', 'off', 'no'].includes(env.toLowerCase());
platform.defaults = (variant, opts) => readFile(file(variant, opts));
platform.resolve = (source) => {
  const url = source instanceof URL ? source : typeof source === 'string' && source.startsWith('file:') ? new URL(source) : undefined;
  return url?.protocol === 'file:' ? readFile(url) : source;
};
platform.lazy = () => loadSync((variant) => readFileSync(file(variant)));

export * from './index.js';
