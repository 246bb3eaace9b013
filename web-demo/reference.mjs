#!/usr/bin/env node
// Reference benchmark results shipped with the demo: the demo's own benchmark (init, first
// read, warm runs; every decoder in a fresh worker) on the MessagePack sample, run in
// Chromium, Firefox and WebKit on this machine through tests/browser/drivers.mjs. Writes
// web-demo/public/results/<browser>.json and results/index.json (the demo shows one button per
// file; `?results=results/<browser>.json` loads one from the URL).
//
//   node web-demo/build.mjs && node web-demo/reference.mjs [--runs=10] [chromium firefox webkit]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/browser/drivers.mjs';
import { startServer } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'public/results');
const runs = Number((process.argv.find((a) => a.startsWith('--runs=')) ?? '--runs=10').slice(7));
const which = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const browsers = which.length ? which : ['chromium', 'firefox', 'webkit'];
/** What the host fields cannot say about the machine. */
const machine = process.env.ARROWSMITH_MACHINE ?? 'development machine, shared with other builds while measured';

mkdirSync(out, { recursive: true });
const indexFile = join(out, 'index.json');
let index = [];
try {
  index = JSON.parse(readFileSync(indexFile, 'utf8'));
} catch {}

const server = await startServer(0);
const url = `http://127.0.0.1:${server.address().port}/`;
try {
  for (const name of browsers) {
    const browser = await launch(name);
    try {
      const page = await browser.open(url);
      await page.waitFor(`window.arrowsmithDemo && document.querySelector('button.sample') !== null`, 60_000);
      await page.waitFor(`(document.querySelector('button.sample').click(), true)`);
      await page.waitFor(`window.arrowsmithDemo.table?.numRows > 0 && !window.arrowsmithDemo.busy`, 120_000);
      await page.waitFor(`(document.getElementById('bench-runs').value = '${runs}', document.getElementById('bench-run').click(), true)`);
      const set = JSON.parse(await page.waitFor(`window.arrowsmithDemo.bench && JSON.stringify(window.arrowsmithDemo.bench)`, 600_000));
      set.host.machine = machine;
      // WebKitGTK's MiniBrowser calls itself Safari in its user agent: name what ran.
      if (set.host.engine === 'WebKit') set.host.browser = browser.version;
      const bad = set.results.filter((r) => r.error || !r.times.length);
      if (bad.length) throw new Error(`${name}: ${bad.map((r) => `${r.label}: ${r.error}`).join('; ')}`);
      const file = `${name}.json`;
      writeFileSync(join(out, file), `${JSON.stringify(set, null, 1)}\n`);
      const label = `${set.host.browser} · ${set.host.arch} · ${set.host.cores} cores`;
      index = [...index.filter((x) => x.file !== file), { file, label, date: set.date.slice(0, 10) }];
      console.log(`${file}: ${label}: ${set.results.map((r) => `${r.label} first ${r.firstMs.toFixed(1)} ms, warm median ${[...r.times].sort((a, b) => a - b)[r.times.length >> 1].toFixed(2)} ms`).join('; ')}`);
      await page.close();
    } finally {
      await browser.close();
    }
  }
} finally {
  server.close();
}
index.sort((a, b) => a.file.localeCompare(b.file));
writeFileSync(indexFile, `${JSON.stringify(index, null, 1)}\n`);
