// bench:big's browser readers: one run of bench/big-page.mjs in a fresh browser (Chromium
// or Firefox ESR, launched as the browser tests launch them: tests/browser/drivers.mjs), on
// a cross-origin isolated page (COOP/COEP, so SharedArrayBuffer exists, as the browser suite
// and the demo serve), the big file given to the page's file input by its path: a
// disk-backed File, read by slices as a user's dropped file is.
// Memory: the peak resident set (VmHWM) of the page's content process, where the page's
// thread and its workers run; CPU: user+sys of every process of the browser.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { launch } from '../tests/browser/drivers.mjs';

const root = join(import.meta.dirname, '..');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** The page and the pool's worker, bundled from `pkg` (a build of the package) into target/. */
async function bundle(pkg) {
  const { build } = await import('esbuild');
  const out = join(root, 'target/bench-big-page', pkg.replace(/[^A-Za-z0-9]+/g, '_').slice(-60));
  const common = { bundle: true, format: 'esm', platform: 'browser', logLevel: 'warning' };
  await build({ ...common, entryPoints: [join(root, 'bench/big-page.mjs')], outfile: join(out, 'page.js'), alias: { arrowsmith: join(pkg, 'dist/index.js') } });
  await build({ ...common, entryPoints: [join(pkg, 'dist/worker/browser.js')], outfile: join(out, 'pool-worker.js') });
  return out;
}

function serve(out, pkg) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = path === '/' ? undefined : path.startsWith('/wasm/') ? join(pkg, path) : join(out, path);
    try {
      const body = file ? readFileSync(file) : Buffer.from('<!doctype html><input type="file" id="file"><script type="module" src="/page.js"></script>');
      res.writeHead(200, {
        'Content-Type': file ? (TYPES[extname(file)] ?? 'application/octet-stream') : 'text/html',
        'Content-Length': body.length,
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** This process's descendants (the browser's processes), with their command lines. */
function descendants() {
  const kids = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(pid)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const todo = [...(kids.get(process.pid) ?? [])];
  while (todo.length) {
    const pid = todo.pop();
    todo.push(...(kids.get(pid) ?? []));
    out.push(pid);
  }
  return out;
}

/** CPU seconds (user+sys) in a /proc stat line (clock ticks of 10 ms). */
function cpuOf(stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * Peak RSS (MiB) of the content processes, CPU seconds (user+sys) of all the browser's
 * processes, and those of the content processes' threads by name (where the time goes:
 * the page's thread, its workers, the file's reading).
 */
function usage(contentProcess) {
  let peak = 0;
  let cpu = 0;
  const threads = {};
  for (const pid of descendants()) {
    try {
      cpu += cpuOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (contentProcess(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          threads[name] = (threads[name] ?? 0) + cpuOf(stat);
        }
      }
    } catch {
      // gone meanwhile
    }
  }
  return { rssMiB: peak, cpuS: cpu, threads };
}

/** A fresh browser as the browser tests launch it (tests/browser/drivers.mjs), and how this harness uses it. */
async function start(name) {
  const b = await launch(name);
  if (b.playwright) {
    return {
      content: (cmd) => cmd.includes('--type=renderer'),
      newPage: () => b.playwright.newPage(),
      setFile: (page, file) => page.setInputFiles('#file', file),
      wait: (page) => page.waitForFunction(() => globalThis.__big || globalThis.__bigError, null, { timeout: 60_000 }),
      close: () => b.close(),
    };
  }
  return {
    content: (cmd) => cmd.includes('-contentproc') && cmd.includes('tab'),
    newPage: () => b.puppeteer.newPage(),
    setFile: async (page, file) => (await page.$('#file')).uploadFile(file),
    wait: (page) => page.waitForFunction(() => globalThis.__big || globalThis.__bigError, { timeout: 60_000, polling: 100 }),
    close: () => b.close(),
  };
}

/**
 * One reader in a fresh browser: `spec` = { read: 'raw' | 'batches', kind, workers? }.
 * Returns bench:big's JSON shape ({ rows, sum, seconds, firstMs, rssMiB, cpuS, … }).
 */
export async function browserRun(name, file, spec, pkg) {
  const out = await bundle(pkg);
  const server = await serve(out, pkg);
  const b = await start(name);
  try {
    const page = await b.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await b.wait(page);
    await b.setFile(page, file);
    const size = await page.evaluate(() => document.getElementById('file').files[0]?.size);
    if (size !== statSync(file).size) throw new Error(`the page's File has ${size} bytes, the file ${statSync(file).size}`);
    const before = usage(b.content);
    const r = await page.evaluate((s) => globalThis.__big(s), spec);
    if (r.error) throw new Error(`${name} ${JSON.stringify(spec)}: ${r.error}`);
    if (spec.read === 'batches' && !r.isolated) throw new Error('the page is not cross-origin isolated');
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    const u = usage(b.content);
    const threads = Object.fromEntries(Object.entries(u.threads).map(([k, v]) => [k, +(v - (before.threads[k] ?? 0)).toFixed(2)]).filter(([, v]) => v >= 0.05));
    return { ...r, rssMiB: u.rssMiB, cpuS: +(u.cpuS - before.cpuS).toFixed(2), threads };
  } finally {
    await b.close();
    server.close();
  }
}
