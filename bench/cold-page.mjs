// One cold run in a fresh Chromium page (bundled by bench/coldwarm.mjs): the same steps as
// bench/cold-child.mjs, then warm reads in the same page. The spec is the URL's hash. The
// harness exposes `__probe()` (the renderer's page faults and main-thread CPU, read from
// /proc outside the page); each step is bracketed by two probes, outside its timing.
import { READERS, warmReads } from './readers.mjs';

const spec = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const probe = globalThis.__probe ?? (async () => ({ faults: NaN, cpu: NaN }));

async function run() {
  const reader = READERS[spec.format][spec.reader];
  const bytes = new Uint8Array(await (await fetch(spec.data)).arrayBuffer());
  const steps = {};
  const timed = async (name, f) => {
    const p = await probe();
    const t = performance.now();
    const out = await f();
    const ms = performance.now() - t;
    const q = await probe();
    steps[name] = { ms, cpu: q.cpu - p.cpu, faults: q.faults - p.faults };
    return out;
  };
  let rows;
  try {
    const lib = await timed('import', () => reader.load({}));
    await timed('init', () => reader.init(lib, spec.opts ?? {}));
    let first;
    for (const k of [1, 2, 3]) {
      rows = await timed(`read${k}`, () => reader.read(lib, bytes, spec.case ?? {}));
      // A fresh page's clock starts at its navigation: this is "page start → table".
      if (k === 1) first = performance.now();
    }
    const warm = await warmReads(reader, lib, bytes, spec);
    return { steps: { ...steps, first: { ms: first } }, rows, warm };
  } catch (e) {
    return { steps, error: String(e?.message ?? e).slice(0, 200) };
  }
}

run().then((r) => {
  globalThis.__cold = r;
});
