// Cold runs for the benchmarks: every run is a fresh Node process (bench/cold-child.mjs), a
// fresh Chromium or Firefox page in a fresh browser context (bench/cold-page.mjs; no HTTP or code cache
// from an earlier run) or a fresh Python process (the native peers' --cold mode): import,
// init, then reads 1–3 of the same bytes, each timed. Runs go round the readers in turn,
// the starting reader rotating each round, so a machine that slows down mid-way slows ours
// and the peers' alike; ratios are taken round by round between neighbouring runs.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const STEPS = ['import', 'init', 'read1', 'read2', 'read3'];

/** Command-line options every benchmark shares. */
export function coldOptions(argv = process.argv.slice(2)) {
  const get = (name) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    rounds: Number(get('rounds') ?? 5),
    browser: !argv.includes('--no-browser'),
    cold: !argv.includes('--no-cold'),
    warm: !argv.includes('--no-warm'),
    only: get('only'),
    quick: argv.includes('--quick'),
  };
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

export class Cold {
  /** Where the page, its bundles and the data are served from: `/b/…`, `/wasm/…`, `/data/…`. */
  #server;
  #browser;
  #firefox;
  #cdp;
  #dataDir;
  browserVersion = '';
  firefoxVersion = '';

  /** `browser`: start Chromium; `firefox`: also start Firefox (the `firefox` environment). */
  constructor({ browser = true, firefox = false, dataDir = join(root, 'target/bench-data') } = {}) {
    this.useBrowser = browser;
    this.useFirefox = firefox;
    this.#dataDir = dataDir;
  }

  async start() {
    if (!this.useBrowser && !this.useFirefox) return this;
    const out = join(root, 'target/bench-page');
    mkdirSync(out, { recursive: true });
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(root, 'bench/cold-page.mjs')],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['browser', 'import', 'default'],
      alias: { 'h5wasm/node': 'h5wasm' },
      outdir: join(out, 'b'),
      logLevel: 'warning',
      // Node builtins some peers mention behind environment checks.
      external: ['module', 'fs', 'path', 'url', 'crypto', 'worker_threads'],
    });
    const dirs = { b: join(out, 'b'), wasm: join(root, 'packages/arrowsmith/wasm'), data: this.#dataDir };
    this.#server = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
      const [, top, ...rest] = path.split('/');
      const file = top === '' ? undefined : dirs[top] && join(dirs[top], ...rest);
      try {
        const body = file ? readFileSync(file) : Buffer.from('<!doctype html><script type="module" src="/b/cold-page.js"></script>');
        const mtime = file ? statSync(file).mtime : new Date(0);
        res.writeHead(200, {
          'Content-Type': file ? (TYPES[extname(file)] ?? 'application/octet-stream') : 'text/html',
          'Content-Length': body.length,
          // Cacheable (a validator and a max-age), as a static host serves the package's
          // files: Chromium keeps compiled wasm next to a cached response only.
          'Cache-Control': 'max-age=3600',
          'Last-Modified': mtime.toUTCString(),
          'Cross-Origin-Opener-Policy': 'same-origin',
          'Cross-Origin-Embedder-Policy': 'require-corp',
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise((r) => this.#server.listen(0, '127.0.0.1', r));
    if (this.useFirefox) {
      // The tests' launcher (tests/browser/drivers.mjs): Firefox ESR over WebDriver BiDi.
      const { launch } = await import('../tests/browser/drivers.mjs');
      const ff = await launch('firefox');
      this.#firefox = ff.puppeteer;
      this.firefoxVersion = ff.version;
    }
    if (!this.useBrowser) return this;
    const { chromium } = await import('playwright-core');
    this.#browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    this.browserVersion = `Chromium ${this.#browser.version()}`;
    this.#cdp = await this.#browser.newBrowserCDPSession();
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.#server.address().port}/`;
  }

  async close() {
    await this.#browser?.close();
    await this.#firefox?.close();
    this.#server?.close();
  }

  /** A cold run in a fresh Node process. */
  async node(spec, flags = []) {
    const t0 = Date.now();
    const { stdout } = await run(process.execPath, [...flags, join(root, 'bench/cold-child.mjs'), JSON.stringify(spec)], { maxBuffer: 1 << 20, cwd: root });
    return withFirst(JSON.parse(stdout), t0);
  }

  /** A cold run in a fresh Python process: `script --cold …args` prints the same JSON shape. */
  async python(script, args) {
    const t0 = Date.now();
    const { stdout } = await run(py, [join(root, 'bench', script), '--cold', ...args.map(String)], { maxBuffer: 1 << 20, cwd: root });
    return withFirst(JSON.parse(stdout), t0);
  }

  /** The renderer processes' minor faults and main-thread CPU ms, from /proc. */
  async #renderers() {
    const { processInfo } = await this.#cdp.send('SystemInfo.getProcessInfo');
    let faults = 0;
    let cpu = 0;
    for (const p of processInfo.filter((p) => p.type === 'renderer')) {
      try {
        // Fields after the command name: minflt is the 10th field of /proc/pid/stat.
        const stat = readFileSync(`/proc/${p.id}/stat`, 'utf8');
        faults += Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
        cpu += Number(readFileSync(`/proc/${p.id}/task/${p.id}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      } catch {}
    }
    return { faults, cpu };
  }

  /**
   * A cold run in a fresh page of a fresh browser context. `loads` > 1 loads the page again
   * in the same context (after `gapMs`, Chromium's code cache having had time to write),
   * returning one result per load.
   */
  async page(spec, { loads = 1, gapMs = 2500 } = {}) {
    const { data, ...rest } = spec;
    const full = { ...rest, data: `/data/${data}` };
    const ctx = await this.#browser.newContext();
    const results = [];
    try {
      await ctx.exposeFunction('__probe', () => this.#renderers());
      for (let i = 0; i < loads; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        const page = await ctx.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`${this.url}#${encodeURIComponent(JSON.stringify(full))}`);
        await page.waitForFunction(() => globalThis.__cold, null, { timeout: 300_000, polling: 100 });
        const r = await page.evaluate(() => globalThis.__cold);
        if (errors.length && !r.error) r.error = errors.join('; ').slice(0, 200);
        results.push(r);
        // Keep the last page open over the gap, as a user's tab would be.
        if (i + 1 < loads) await new Promise((r) => setTimeout(r, gapMs));
        await page.close();
      }
    } finally {
      await ctx.close();
    }
    return loads === 1 ? results[0] : results;
  }

  /**
   * A cold run in a fresh Firefox page of a fresh browser context (a WebDriver BiDi user
   * context: its own HTTP cache). No probe: Firefox has no CDP process list.
   */
  async firefoxPage(spec) {
    const { data, ...rest } = spec;
    const ctx = await this.#firefox.createBrowserContext();
    try {
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${this.url}#${encodeURIComponent(JSON.stringify({ ...rest, data: `/data/${data}` }))}`);
      await page.waitForFunction(() => globalThis.__cold, { timeout: 300_000, polling: 100 });
      const r = await page.evaluate(() => globalThis.__cold);
      if (errors.length && !r.error) r.error = errors.join('; ').slice(0, 200);
      return r;
    } finally {
      await ctx.close();
    }
  }

  /** One cold run of a contender on a case. */
  runOne(contender, c) {
    if (contender.env === 'node') return this.node({ ...contender.spec, ...c.spec, file: join(this.#dataDir, c.data) }, contender.flags);
    if (contender.env === 'chromium') return this.page({ ...contender.spec, ...c.spec, data: c.data });
    if (contender.env === 'firefox') return this.firefoxPage({ ...contender.spec, ...c.spec, data: c.data });
    // A returning visitor: the page loaded a second time in the same browser context, with
    // the HTTP cache and the compiled code Chromium cached for the module on the first visit.
    if (contender.env === 'chromium-revisit') return this.page({ ...contender.spec, ...c.spec, data: c.data }, { loads: 2 }).then((r) => r[1]);
    if (contender.env === 'python') return this.python(contender.script, contender.args(c, join(this.#dataDir, c.data)));
    throw new Error(`unknown environment ${contender.env}`);
  }
}

/** The `first` step of a fresh process's run: from starting it to the end of read 1 (clock time). */
function withFirst(r, t0) {
  if (Number.isFinite(r.tableAt)) r.steps.first = { ms: r.tableAt - t0 };
  return r;
}

/**
 * Cold runs of every contender on every case: `rounds` fresh runs each, interleaved.
 * Returns Map(case key → Map(contender name → run results)).
 */
export async function coldRounds(cold, cases, contenders, rounds, log = console.error) {
  const out = new Map();
  for (const c of cases) {
    const list = contenders.filter((k) => k.applies?.(c) ?? true);
    const got = new Map(list.map((k) => [k.name, []]));
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < list.length; i++) {
        const k = list[(r + i) % list.length];
        const res = await cold.runOne(k, c);
        res.round = r;
        got.get(k.name).push(res);
      }
    }
    out.set(c.key, got);
    log(`${c.label}: ` + [...got].map(([n, rs]) => `${n} read1 ${fmt(med(rs.map((x) => x.steps?.read1?.ms)))} ms`).join(', '));
  }
  return out;
}

/** A browser (unless `browser: false`), the cold rounds of every case, and the browser closed again. */
export async function runCold(cases, contenders, { browser, rounds }) {
  const cold = await new Cold({ browser }).start();
  try {
    return { results: await coldRounds(cold, cases, contenders, rounds), browserVersion: cold.browserVersion };
  } finally {
    await cold.close();
  }
}

/** Median of the finite numbers in xs (NaN when none). */
export function med(xs) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function fmt(ms) {
  if (!Number.isFinite(ms)) return '–';
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

/** "median (min–max)" of a step's ms over runs. */
export function spread(xs) {
  const s = xs.filter(Number.isFinite);
  if (!s.length) return '–';
  return s.length === 1 ? fmt(s[0]) : `${fmt(med(s))} (${fmt(Math.min(...s))}–${fmt(Math.max(...s))})`;
}

/** A step's values over runs. */
export const stepOf = (runs, step, field = 'ms') => runs.map((r) => r.steps?.[step]?.[field]);

/** A peer's step time divided by ours, one ratio per round both ran (neighbouring runs). */
export function pairedRatios(ours, peer, step = 'read1') {
  const rs = [];
  for (const o of ours) {
    const p = peer.find((x) => x.round === o.round);
    const a = o.steps?.[step]?.ms;
    const b = p?.steps?.[step]?.ms;
    if (Number.isFinite(a) && Number.isFinite(b) && a > 0) rs.push(b / a);
  }
  return rs;
}

/**
 * Ratios of a peer's read 1 to ours, round by round (neighbouring runs), as
 * "median× (min–max)"; >1 means we are faster.
 */
export function pairedRatio(ours, peer, step = 'read1') {
  const rs = pairedRatios(ours, peer, step);
  if (!rs.length) return '–';
  const x = (v) => `${v.toFixed(v >= 10 ? 0 : 1)}×`;
  return rs.length === 1 ? x(rs[0]) : `${x(med(rs))} (${x(Math.min(...rs))}–${x(Math.max(...rs))})`;
}

export const COLD_HEADER = ['data', 'reader', 'runs', 'import ms', 'init ms', 'read 1 ms', 'read 2 ms', 'read 3 ms', 'warm median ms', 'read 1 CPU ms', 'read 1 page faults'];

/** The cold/warm row of one contender: medians (min–max) over its fresh runs. */
export function coldRow(label, name, runs, warmMs) {
  const ok = runs.filter((r) => !r.error);
  if (!ok.length) return [label, name, String(runs.length), `fails: ${runs[0]?.error ?? '?'}`, '', '', '', '', '', '', ''];
  const w = warmMs ?? med(ok.flatMap((r) => r.warm ?? []));
  return [label, name, String(ok.length), ...['import', 'init', 'read1', 'read2', 'read3'].map((s) => spread(stepOf(ok, s))), fmt(w), fmt(med(stepOf(ok, 'read1', 'cpu'))), String(Math.round(med(stepOf(ok, 'read1', 'faults'))))];
}

/** The machine, and how busy it was. The benchmark itself keeps about one core busy, so only a
 * load near the core count means other work was running and marks the figures preliminary. */
export function machineLoad(before) {
  const cores = os.cpus().length;
  const now = os.loadavg()[0];
  const peak = Math.max(before, now);
  const busy = peak > cores * 0.9;
  return {
    busy,
    text: `Load average (1 min) ${before.toFixed(1)} at the start, ${now.toFixed(1)} at the end, ${cores} cores${busy ? ': **shared machine, figures preliminary** (other work was running; cold figures are very sensitive to it)' : ''}.`,
  };
}

export { STEPS };

/**
 * The cold/warm table of a benchmark: a row per case and contender; `peer(contender)` names
 * the contender whose read 1 ours is compared with (round by round), `warm(case, contender)`
 * gives the in-process warm median where the benchmark measured one (else the page's own).
 */
export function coldTable(cases, contenders, results, { peer, warm, ratioHeader = 'read 1: peer ÷ ours' }) {
  const rows = [];
  for (const c of cases) {
    const got = results.get(c.key);
    if (!got) continue;
    for (const k of contenders) {
      const runs = got.get(k.name);
      if (!runs) continue;
      const p = peer(k, c);
      const row = coldRow(c.label, k.name, runs, warm?.(c, k));
      row.push(p && got.get(p) ? `${pairedRatio(runs, got.get(p))} vs ${p}` : '');
      rows.push(row);
    }
  }
  return { header: [...COLD_HEADER, ratioHeader], rows };
}

/** "name version" of npm packages in node_modules and of Python distributions in the venv. */
export function versions({ npm = [], python = [] }) {
  const out = npm.map((p) => {
    try {
      return `${p} ${JSON.parse(readFileSync(join(root, 'node_modules', p, 'package.json'), 'utf8')).version}`;
    } catch {
      return `${p} ?`;
    }
  });
  if (python.length) {
    try {
      const code = `import importlib.metadata as m, platform; print(' '.join(['Python', platform.python_version()] + [p + '=' + m.version(p) for p in ${JSON.stringify(python)}]))`;
      out.push(execFileSyncText(py, ['-c', code]));
    } catch {}
  }
  return out.join(', ');
}

function execFileSyncText(cmd, args) {
  return execFileSync(cmd, args).toString().trim();
}

/**
 * Where a benchmark writes its results: bench/results/<name>.md for a full run; a partial
 * one (--only, --no-cold, --no-warm, --no-browser, --quick) goes to target/bench-partial/
 * so it never replaces the committed figures.
 */
export function resultsPath(name, o) {
  if (!o.only && o.cold && o.warm && o.browser && !o.quick) return join(root, 'bench/results', `${name}.md`);
  const dir = join(root, 'target/bench-partial');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.md`);
}
