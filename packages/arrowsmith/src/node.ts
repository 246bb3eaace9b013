/**
 * The Node entry: the same API as the browser entry, but the package's .wasm files are
 * read from disk, `init()` is optional (the module loads synchronously on first use), and
 * `ARROWSMITH_SIMD=0` (or `1`) forces the scalar (or SIMD) build.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
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
platform.workerUrl = new URL('./pool/worker-node.js', import.meta.url);
platform.cores = availableParallelism;
platform.startWorker = (url) => {
  const w = new Worker(url);
  w.unref();
  return {
    post: (m, transfer) => w.postMessage(m, transfer as never),
    onMessage: (f) => void w.on('message', f),
    onFailure: (f) => {
      w.on('error', f);
      w.on('exit', (code) => f(new Error(`arrowsmith: pool worker exited (code ${code})`)));
    },
    keepAlive: (on) => (on ? w.ref() : w.unref()),
    terminate: () => void w.terminate(),
  };
};
platform.copyBytes = (src) => {
  const b = Buffer.allocUnsafeSlow(src.length);
  b.set(src);
  return new Uint8Array(b.buffer, b.byteOffset, src.length);
};
platform.lazy = () => loadSync((variant) => readFileSync(file(variant)));

export * from './index.js';
