// End-to-end tests of the web demo in headless Chromium, called by run.mjs.
import { join } from 'node:path';
import { startServer as startDemo } from '../../web-demo/serve.mjs';

const urlOf = (server) => `http://127.0.0.1:${server.address().port}/`;

/** @param {{ browser: import('playwright-core').Browser, report: (ok: boolean, name: string, detail?: string) => void, outDir: string }} ctx */
export async function demoTests({ browser, report, outDir }) {
  try {
    await run({ browser, report, outDir });
  } catch (e) {
    report(false, 'demo test crashed', String(e?.message ?? e).split('\n')[0]);
  }
}

async function run({ browser, report, outDir }) {
    const server = await startDemo(0);
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(urlOf(server));
    await page.locator('button.sample').first().click();
    await page.locator('#result:not([hidden])').waitFor({ timeout: 60_000 });
    const rows = await page.locator('#rows').textContent();
    const worker = await page.evaluate(() => window.arrowsmithDemo.workerUsed);
    const isolated = await page.evaluate(() => crossOriginIsolated);
    report(rows?.replace(/\D/g, '') === '20000', 'sample decoded: 20,000 rows shown', rows);
    report(worker, 'decoding ran in the worker');
    report(isolated, 'page is cross-origin isolated (COOP/COEP)');
    await page.screenshot({ path: join(outDir, 'demo-sample.png'), fullPage: true });
    // A corrupt file dropped on the page shows a readable error with the offset.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([0x93, 0x01, 0xc1, 0x02])], 'corrupt.msgpack'));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.locator('#error:not([hidden])').waitFor({ timeout: 30_000 });
    const err = await page.locator('#error').textContent();
    report(/byte 2/.test(err ?? ''), 'corrupt file → error with its offset', err);
    await page.screenshot({ path: join(outDir, 'demo-error.png'), fullPage: true });
    report(errors.length === 0, 'no page errors', errors.join('; '));
    await page.close();
    server.close();
  }
