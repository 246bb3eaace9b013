// The h5web differential in a browser (run.mjs step 5): every HDF5 fixture through
// ArrowsmithApi (the browser entry) and through h5web's own h5wasm provider (on h5wasm's web
// build, a fresh module instance per file), compared by packages/arrowsmith/test/h5web-diff.ts
// with the same documented reasons as in Node. Results go to window.__results.
import { init } from 'arrowsmith';
import { ArrowsmithApi } from 'arrowsmith/h5web';
import { compareFile, type Diff, type RefApi } from '../../packages/arrowsmith/test/h5web-diff.js';
import { explain } from '../../packages/arrowsmith/test/h5web-reasons.js';
// @ts-expect-error: the vendored reference is plain JavaScript
import { createReference } from '../vendor/h5web-h5wasm/api.mjs';

declare global {
  interface Window {
    __results?: { name: string; ok: boolean; detail?: string }[];
  }
}

const bytesOf = async (url: string) => {
  const r = await fetch(url);
  return r.ok ? new Uint8Array(await r.arrayBuffer()) : undefined;
};

(async () => {
  const results: { name: string; ok: boolean; detail?: string }[] = [];
  try {
    await init({ baseUrl: new URL('./wasm/', location.href), formats: ['hdf5'] });
    const files = (await (await fetch('fixtures/h5web-index.json')).json()) as string[];
    const all: Diff[] = [];
    let datasets = 0;
    let selections = 0;
    let n = 0;
    for (const f of files) {
      const bytes = (await bytesOf(`fixtures/hdf5/${f}`))!;
      const dir = f.slice(0, f.lastIndexOf('/') + 1);
      const api = new ArrowsmithApi(bytes, { filepath: f, resolve: (name) => bytesOf(`fixtures/hdf5/${dir}${name}`) });
      // A URL with a query is a new module: a fresh h5wasm (a failed read can break its heap).
      const fresh = new URL(`h5wasm/hdf5_hl.js?instance=${++n}`, location.href).href;
      const h5wasm = await import(fresh);
      // (The package build's ArrowsmithApi: the same class as the sources' compareFile names.)
      const r = await compareFile(f, bytes, api as never, createReference(h5wasm) as RefApi, explain);
      await api.close();
      all.push(...r.diffs);
      datasets += r.datasets;
      selections += r.selections;
    }
    const unexplained = all.filter((d) => !d.reason);
    results.push({
      name: `h5web differential: ${files.length} files, ${datasets} datasets, ${selections} selections, ${all.length} differences, each documented`,
      ok: files.length > 40 && datasets > 500 && unexplained.length === 0,
      detail: JSON.stringify(unexplained.slice(0, 3)),
    });
  } catch (e) {
    results.push({ name: 'h5web differential', ok: false, detail: String((e as Error)?.stack ?? e) });
  }
  window.__results = results;
})();
