// One small page interface over the three browser engines the tests drive, each from Debian's
// packages: Chromium through playwright-core, Firefox ESR through puppeteer-core over WebDriver
// BiDi, WebKitGTK (MiniBrowser) through WebKitWebDriver with plain W3C WebDriver calls, under
// Xvfb. Pages are polled for a result the page script sets on `window`.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const BROWSERS = ['chromium', 'firefox', 'webkit'];

// `gc` exposed for the suite's read under garbage collection (tests/browser/suite.ts).
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--js-flags=--expose-gc'];

/**
 * @typedef {{
 *   waitFor(expr: string, timeoutMs?: number): Promise<any>,
 *   screenshot(path: string): Promise<void>,
 *   errors: string[],
 *   close(): Promise<void>,
 * }} Page
 * @typedef {{ name: string, version: string, open(url: string): Promise<Page>, close(): Promise<void>, playwright?: import('playwright-core').Browser, puppeteer?: import('puppeteer-core').Browser }} Browser
 */

/** @returns {Promise<Browser>} */
export async function launch(name) {
  if (name === 'chromium') return chromium();
  if (name === 'firefox') return firefox();
  if (name === 'webkit') return webkit();
  throw new Error(`unknown browser ${name} (one of ${BROWSERS.join(', ')})`);
}

/**
 * A page of playwright-core or puppeteer-core (their page APIs agree on what is used here but
 * the arguments of waitForFunction, which `waitArgs` builds).
 */
async function openPage(browser, url, waitArgs) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return {
    errors,
    async waitFor(expr, timeout = 120_000) {
      await page.waitForFunction(...waitArgs(expr, timeout));
      return page.evaluate(expr);
    },
    screenshot: (path) => page.screenshot({ path, fullPage: true }).then(() => {}),
    close: () => page.close(),
  };
}

async function chromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    name: 'chromium',
    version: `Chromium ${browser.version()}`,
    playwright: browser,
    open: (url) => openPage(browser, url, (expr, timeout) => [expr, null, { timeout }]),
    close: () => browser.close(),
  };
}

async function firefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
    headless: true,
    protocol: 'webDriverBiDi',
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'app.update.enabled': false },
  });
  return {
    name: 'firefox',
    version: `Firefox ${(await browser.version()).replace(/^firefox\//i, '')}`,
    puppeteer: browser,
    open: (url) => openPage(browser, url, (expr, timeout) => [expr, { timeout, polling: 250 }]),
    close: () => browser.close(),
  };
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** WebKitGTK's MiniBrowser through WebKitWebDriver (W3C WebDriver over HTTP), under Xvfb. */
async function webkit() {
  const driver = process.env.WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
  const mini = process.env.WEBKIT_BROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
  if (!existsSync(driver) || !existsSync(mini)) throw new Error(`WebKit needs ${driver} and ${mini} (bash scripts/setup-engines.sh webkit)`);
  const port = await freePort();
  // Without a display, xvfb-run gives the browser one; the driver's process group is ours to end.
  const [cmd, args] = process.env.DISPLAY ? [driver, [`--port=${port}`]] : ['xvfb-run', ['-a', driver, `--port=${port}`]];
  const proc = spawn(cmd, args, { stdio: 'ignore', detached: true });
  const stop = () => {
    try {
      process.kill(-proc.pid, 'SIGTERM');
    } catch {}
  };
  process.once('exit', stop);
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (json.value?.error) throw new Error(`WebDriver ${path}: ${json.value.error}: ${json.value.message}`);
    return json.value;
  };
  let session;
  for (let i = 0; !session; i++) {
    try {
      session = await call('POST', '/session', { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: mini, args: ['--automation'] } } } });
    } catch (e) {
      if (i > 100) {
        stop();
        throw e;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const id = session.sessionId;
  const s = (p) => `/session/${id}${p}`;
  await call('POST', s('/window/rect'), { width: 1280, height: 900 }).catch(() => {});
  return {
    name: 'webkit',
    version: `WebKitGTK ${session.capabilities.browserVersion}`,
    async open(url) {
      await call('POST', s('/url'), { url });
      const errors = [];
      return {
        errors,
        async waitFor(expr, timeout = 120_000) {
          const end = Date.now() + timeout;
          for (;;) {
            const v = await call('POST', s('/execute/sync'), { script: `return (${expr}) ?? null;`, args: [] });
            if (v !== null && v !== undefined && v !== false) return v;
            if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${expr}`);
            await new Promise((r) => setTimeout(r, 250));
          }
        },
        async screenshot(path) {
          writeFileSync(path, Buffer.from(await call('GET', s('/screenshot')), 'base64'));
        },
        close: async () => {},
      };
    },
    async close() {
      await call('DELETE', s('')).catch(() => {});
      stop();
    },
  };
}
