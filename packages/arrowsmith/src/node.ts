/**
 * The Node entry: the same API as the browser entry, but the package's .wasm files are
 * read from disk, `init()` is optional (each format's module loads synchronously on its
 * first use), and `ARROWSMITH_SIMD=0` (or `1`) forces the scalar (or SIMD) builds.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { wasmFile } from './wasm/files.js';
import { useNodeFiles } from './io/node-files.js';
import { useNodeMemory } from './wasm/node-memory.js';
import { platform, type Build, type Format } from './wasm/instance.js';

const env = process.env.ARROWSMITH_SIMD;
platform.envSimd = env === undefined || env === '' ? undefined : !['0', 'false', 'off', 'no'].includes(env.toLowerCase());

function readError(what: string, url: URL, e: unknown): Error {
  return new Error(`arrowsmith: could not read the ${what} wasm module ${url.protocol === 'file:' ? fileURLToPath(url) : url.href}: ${(e as Error)?.message ?? e}`, { cause: e });
}
const fileOf = (format: Format, build: Build, baseUrl?: string | URL) => wasmFile(format, build, baseUrl);
platform.defaults = async (format, build, baseUrl) => {
  const url = fileOf(format, build, baseUrl);
  if (url.protocol !== 'file:') return url;
  try {
    return await readFile(url);
  } catch (e) {
    throw readError(`${format} (${build})`, url, e);
  }
};
platform.bytesSync = (format, build, baseUrl) => {
  const url = fileOf(format, build, baseUrl);
  if (url.protocol !== 'file:') return undefined;
  try {
    return readFileSync(url);
  } catch (e) {
    throw readError(`${format} (${build})`, url, e);
  }
};
platform.resolve = (source) => {
  const url = source instanceof URL ? source : typeof source === 'string' && source.startsWith('file:') ? new URL(source) : undefined;
  return url?.protocol === 'file:' ? readFile(url) : source;
};
platform.workerUrl = new URL('./worker/node.js', import.meta.url);
platform.cores = availableParallelism;
platform.startWorker = (url) => {
  const w = new Worker(url);
  w.unref();
  return {
    post: (m, transfer) => w.postMessage(m, transfer as never),
    onMessage: (f) => void w.on('message', f),
    onFailure: (f) => {
      w.on('error', (e) => f(new Error(`arrowsmith: pool worker ${url.href} failed: ${e?.message ?? e}`, { cause: e })));
      w.on('exit', (code) => f(new Error(`arrowsmith: pool worker ${url.href} exited (code ${code})`)));
    },
    keepAlive: (on) => (on ? w.ref() : w.unref()),
    terminate: () => void w.terminate(),
  };
};
useNodeMemory();
useNodeFiles();

export * from './index.js';
