// bench:h5web's page (bundled by bench/h5web.bench.mjs): h5web's two ways to a frame of a
// remote HDF5 stack, timed in the page. `arrowsmith`: ArrowsmithApi on the URL (HTTP ranges).
// `h5wasm`: what h5web's H5WasmBufferProvider does (the whole file fetched into one
// ArrayBuffer, opened by h5web's own provider code on h5wasm: tests/vendor/h5web-h5wasm).
// Requests and bytes come from Resource Timing; memory is the JS heap plus wasm memory.
import { memory } from 'arrowsmith';
import { ArrowsmithApi } from 'arrowsmith/h5web';
import * as h5wasm from 'h5wasm';
import { createReference } from '../tests/vendor/h5web-h5wasm/api.mjs';

performance.setResourceTimingBufferSize(1_000_000);
const PATH = '/entry/data/data';
const gc = () => globalThis.gc?.();
const heap = () => (performance.memory?.usedJSHeapSize ?? 0) + memory().hdf5;

/** Requests of `url` and bytes received since `from` (a count of entries seen). */
function traffic(url, from) {
  const all = performance.getEntriesByType('resource').filter((e) => e.name === url);
  const mine = all.slice(from);
  return { requests: mine.length, bytes: mine.reduce((a, e) => a + (e.encodedBodySize || e.transferSize || 0), 0), seen: all.length };
}

/** A step: its time, requests and bytes. */
async function step(url, fn) {
  const before = traffic(url, 0).seen;
  const t = performance.now();
  const value = await fn();
  const ms = performance.now() - t;
  // Resource entries land after the response: let them in.
  await new Promise((r) => setTimeout(r, 50));
  return { value, ms, ...traffic(url, before) };
}

const sum = (a) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
};

window.bench = {
  async arrowsmith(url, { frames = 6, slice = true } = {}) {
    gc();
    const m0 = heap();
    const t0 = performance.now();
    const api = new ArrowsmithApi(url);
    const first = await step(url, async () => {
      const dataset = await api.getEntity(PATH);
      return { dataset, v: await api.getValue({ dataset, selection: '0,:,:' }) };
    });
    const firstMs = performance.now() - t0;
    gc();
    const m1 = heap();
    const { dataset } = first.value;
    const next = [];
    for (let i = 1; i <= frames; i++) next.push(await step(url, () => api.getValue({ dataset, selection: `${i},:,:` })));
    const across = slice ? await step(url, () => api.getValue({ dataset, selection: ':,512,:' })) : undefined;
    const out = {
      shape: dataset.shape.dims,
      firstMs,
      first: { requests: first.requests, bytes: first.bytes },
      memoryGrowth: m1 - m0,
      frame0Sum: sum(first.value.v),
      frame0Length: first.value.v.length,
      next: next.map((s) => ({ ms: s.ms, requests: s.requests, bytes: s.bytes })),
      ...(across && { slice: { ms: across.ms, requests: across.requests, bytes: across.bytes, length: across.value.length, sum: sum(across.value) } }),
    };
    window.frame0 = first.value.v;
    await api.close();
    return out;
  },
  async h5wasm(url) {
    const M = await h5wasm.ready;
    // h5wasm's own wasm memory, beside the JS heap.
    const heap = () => (performance.memory?.usedJSHeapSize ?? 0) + M.HEAPU8.buffer.byteLength;
    gc();
    const m0 = heap();
    const t0 = performance.now();
    const ref = createReference(h5wasm);
    const r = await step(url, async () => {
      const buffer = await (await fetch(url)).arrayBuffer();
      const id = await ref.openFileBuffer(buffer);
      await ref.getEntity(id, PATH);
      return { id, v: await ref.getValue(id, PATH, '0,:,:') };
    });
    const firstMs = performance.now() - t0;
    const m1 = heap();
    const next = await step(url, () => ref.getValue(r.value.id, PATH, '1,:,:'));
    const v = r.value.v;
    await ref.closeFile(r.value.id);
    // The same frame through ArrowsmithApi: the values must be equal.
    const api = new ArrowsmithApi(url);
    const mine = await api.getValue({ dataset: await api.getEntity(PATH), selection: '0,:,:' });
    await api.close();
    const equal = mine.length === v.length && mine.every((x, i) => x === v[i]);
    return { firstMs, first: { requests: r.requests, bytes: r.bytes }, memoryGrowth: m1 - m0, next: { ms: next.ms }, frame0Sum: sum(v), equal };
  },
};
window.benchReady = true;
