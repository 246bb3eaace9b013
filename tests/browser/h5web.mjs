// The h5web viewer on Arrowsmith's provider in a real browser (the demo's h5web.html and its
// "Open in h5web" panel), on fixtures/hdf5/nexus.h5 served with HTTP Range by the demo
// server: the NeXus default plot (a line), a heatmap of a 2-D dataset, a frame of a 3-D stack
// and the next frame, values shown by h5web's Matrix view against h5py's (nexus.json), every
// request of the file a HEAD or a range. Asserted by DOM content; screenshots in outDir.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web-demo/serve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const NEXUS = join(root, 'fixtures/hdf5/nexus.h5');
const h5py = JSON.parse(readFileSync(join(root, 'fixtures/hdf5/nexus.json'), 'utf8')).datasets;

/** The viewer's visible text (h5web renders axes, titles and tabs as DOM text). */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text, as a person reads it
const text = (page, sel) => page.locator(sel).innerText();
/** Wait until the viewer shows `re`. */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text, as a person reads it
const shows = (page, sel, re, timeout = 60_000) => page.waitForFunction(([s, r]) => new RegExp(r).test(document.querySelector(s)?.innerText ?? ''), [sel, re.source], { timeout });
/** Click an explorer entry by path (expanding groups on the way). */
async function select(page, path) {
  const parts = path.split('/').filter(Boolean);
  for (let k = 1; k <= parts.length; k++) {
    const p = `/${parts.slice(0, k).join('/')}`;
    const item = page.locator(`button[role=treeitem][data-path="${p}"]`);
    await item.waitFor({ timeout: 30_000 });
    if (k < parts.length && (await item.getAttribute('aria-expanded')) === 'true') continue;
    await item.click();
  }
}

export async function h5webTests({ browser, report, outDir, engine = 'chromium' }) {
  const server = await startServer(0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const fetches = [];
  page.on('request', (r) => {
    if (r.url().includes('/samples/nexus.h5') && r.resourceType() !== 'document') fetches.push({ method: r.method(), range: r.headers().range });
  });
  const shot = (name) => page.screenshot({ path: join(outDir, `h5web-${engine}-${name}.png`) }).catch(() => {});
  const step = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      report(false, `h5web (${engine}): ${name}: crashed`, String(e?.message ?? e).split('\n')[0]);
      await shot(`${name.replace(/\W+/g, '-')}-failed`);
    }
  };
  try {
    await page.goto(`${base}h5web.html?url=samples/nexus.h5`);
    await step('NeXus default plot', async () => {
      await shows(page, '#viewer', /energy \(keV\)/);
      const t = await text(page, '#viewer');
      report(/NX Line/.test(t) && /Detector counts/.test(t) && /energy \(keV\)/.test(t), `h5web (${engine}): the NeXus default plot of ?url= (NX Line of counts against energy in keV)`, t.slice(0, 200));
      await shot('nexus-default');
    });
    await step('ranges', async () => {
      const size = statSync(NEXUS).size;
      const ranged = fetches.filter((f) => f.method === 'GET');
      const bytes = ranged.reduce((a, f) => {
        const m = /bytes=(\d+)-(\d+)/.exec(f.range ?? '');
        return a + (m ? Number(m[2]) - Number(m[1]) + 1 : Number.POSITIVE_INFINITY);
      }, 0);
      report(ranged.length > 0 && ranged.every((f) => /^bytes=\d+-\d+$/.test(f.range ?? '')), `h5web (${engine}): every GET of the file is a range (${ranged.length} requests, ${bytes} bytes for the first plot of a ${size}-byte file)`, JSON.stringify(fetches.slice(0, 6)));
    });
    await step('matrix values', async () => {
      await select(page, '/entry/spectrum/counts');
      await page.getByRole('tab', { name: 'Matrix' }).click();
      await shows(page, '#viewer', /\d\.\d/);
      await page.locator('#viewer [role=gridcell]').first().waitFor({ timeout: 30_000 });
      const cells = await page.evaluate(() => Array.from(document.querySelectorAll('#viewer [role=gridcell]'), (c) => c.textContent?.trim() ?? ''));
      const want = h5py['/entry/spectrum/counts'].rows;
      const shown = cells.slice(0, 10).map(Number);
      // h5web's Matrix shows numbers with its own precision (3 significant digits by default).
      const close = shown.length >= 5 && shown.every((v, i) => Math.abs(v - want[i]) <= Math.max(1e-9, Math.abs(want[i]) * 5e-3));
      report(close, `h5web (${engine}): the Matrix view of /entry/spectrum/counts shows h5py's values`, `${JSON.stringify(shown)} vs ${JSON.stringify(want.slice(0, 10))}`);
      await shot('matrix');
    });
    await step('heatmap', async () => {
      await select(page, '/entry/image/frame');
      await page.getByRole('tab', { name: 'Heatmap' }).click();
      await page.waitForTimeout(1500);
      const t = await text(page, '#viewer');
      const canvas = await page.locator('#viewer canvas').count();
      report(/Heatmap/.test(t) && canvas > 0 && !/error/i.test(t), `h5web (${engine}): a heatmap of the 2-D frame (64 × 80, gzip + shuffle chunks)`, t.slice(0, 200));
      await shot('heatmap');
    });
    await step('3-D stack', async () => {
      await select(page, '/entry/stack/frames');
      await page.getByRole('tab', { name: 'Heatmap' }).click();
      await page.waitForTimeout(1500);
      const before = fetches.length;
      // The dimension slider (vertical) picks the frame; the colour range sliders are horizontal.
      const slider = page.locator('#viewer [role=slider][aria-orientation=vertical]').first();
      const sliders = await page.locator('#viewer [role=slider][aria-orientation=vertical]').count();
      await slider.focus();
      await page.keyboard.press('ArrowUp');
      await page.waitForFunction(() => document.querySelector('#viewer [role=slider][aria-orientation=vertical]')?.getAttribute('aria-valuenow') === '1', null, { timeout: 10_000 });
      await page.waitForTimeout(1500);
      const after = fetches.length;
      const t = await text(page, '#viewer');
      report(sliders > 0 && after > before && !/error/i.test(t), `h5web (${engine}): a frame of the 3-D stack, then the next (the slice "1,:,:" read by ${after - before} more range requests)`, `sliders ${sliders}, requests ${before} → ${after}; ${t.slice(0, 160)}`);
      await shot('stack');
    });
    // The demo's own page: a dropped HDF5 file opens in h5web beside the table view.
    await step('demo panel', async () => {
      const demo = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await demo.goto(base);
      const bytes = readFileSync(NEXUS);
      await demo.route('**/__drop__/nexus.h5', (route) => route.fulfill({ status: 200, body: bytes, headers: { 'content-type': 'application/octet-stream', 'cross-origin-resource-policy': 'same-origin' } }));
      await demo.evaluate(async () => {
        const blob = await (await fetch('/__drop__/nexus.h5')).blob();
        const dt = new DataTransfer();
        dt.items.add(new File([blob], 'nexus.h5'));
        document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await demo.locator('#open-h5web:not([hidden])').waitFor({ timeout: 60_000 });
      await demo.click('#open-h5web');
      await shows(demo, '#h5web-root', /energy \(keV\)/);
      const table = await demo.locator('#workspace').isVisible();
      report(table, `h5web (${engine}): the demo's "Open in h5web" shows the dropped file's NeXus plot, the table view stays`);
      await demo.screenshot({ path: join(outDir, `h5web-${engine}-demo-panel.png`) });
      await demo.close();
    });
    report(errors.length === 0, `h5web (${engine}): no page errors`, errors.slice(0, 3).join(' | '));
  } finally {
    await page.close();
    server.close();
  }
}

/**
 * Other engines (drivers.mjs's generic page): h5web on `?url=` picks the NeXus default plot,
 * and its Matrix view of /entry/spectrum/counts shows h5py's values. (Headless Firefox here
 * has no WebGL context, which h5web's plots need: the DOM views are what it can check.)
 */
export async function h5webSmoke({ browser, report, outDir, engine }) {
  const server = await startServer(0);
  try {
    let page = await browser.open(`http://127.0.0.1:${server.address().port}/h5web.html?url=samples/nexus.h5`);
    try {
      const nx = await page.waitFor("/NX Line/.test(document.querySelector('#viewer')?.innerText ?? '') && document.querySelector('#viewer').innerText", 90_000);
      report(/NX Line/.test(nx), `h5web (${engine}): ?url= opens, h5web picks the NeXus default plot (NX Line)`, String(nx).slice(0, 160));
      await page.close();
    } catch (e) {
      await page.close();
      throw e;
    }
    // Straight to the dataset (&path=): without WebGL the page does not navigate further.
    page = await browser.open(`http://127.0.0.1:${server.address().port}/h5web.html?url=samples/nexus.h5&path=/entry/spectrum/counts`);
    try {
      await page.waitFor("(() => { const t = [...document.querySelectorAll('#viewer [role=tab]')].find((b) => b.textContent.includes('Matrix')); if (t) t.click(); return !!t; })()", 30_000);
      const cells = await page.waitFor("(() => { const c = [...document.querySelectorAll('#viewer [role=gridcell]')].map((x) => x.textContent.trim()); return c.length > 5 && c; })()", 30_000);
      const want = h5py['/entry/spectrum/counts'].rows;
      const shown = cells.slice(0, 10).map(Number);
      report(shown.every((v, i) => Math.abs(v - want[i]) <= Math.abs(want[i]) * 5e-3), `h5web (${engine}): the Matrix view of /entry/spectrum/counts shows h5py's values`, `${JSON.stringify(shown)} vs ${JSON.stringify(want.slice(0, 10))}`);
      await page.screenshot(join(outDir, `h5web-${engine}-matrix.png`)).catch(() => {});
      const errors = page.errors.filter((e) => !/WebGL/i.test(e));
      report(errors.length === 0, `h5web (${engine}): no page errors (but WebGL's)`, errors.slice(0, 3).join(' | '));
    } finally {
      await page.close();
    }
  } catch (e) {
    report(false, `h5web (${engine}): crashed`, String(e?.message ?? e).split('\n')[0]);
  } finally {
    server.close();
  }
}
