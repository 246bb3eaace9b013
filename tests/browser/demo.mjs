// End-to-end tests of the web demo in headless Chromium, called by run.mjs.
// Files are dropped through real DataTransfer drop events; what the page shows is compared
// with values computed independently in Node (@msgpack/msgpack, the fixtures' JSON).
import { decode, encode } from '@msgpack/msgpack';
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer as startDemo } from '../../web-demo/serve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const urlOf = (server) => `http://127.0.0.1:${server.address().port}/`;
const MSGPACK_DECODERS = ['Arrowsmith SIMD', 'Arrowsmith scalar', 'msgpackr', '@msgpack/msgpack'];
const HDF5_DECODERS = ['Arrowsmith SIMD', 'Arrowsmith scalar', 'h5wasm', 'jsfive'];

/** @param {{ browser: import('playwright-core').Browser, report: (ok: boolean, name: string, detail?: string) => void, outDir: string }} ctx */
export async function demoTests({ browser, report, outDir }) {
  try {
    await run({ browser, report, outDir });
  } catch (e) {
    report(false, 'demo test crashed', String(e?.message ?? e).split('\n')[0]);
  }
}

/** The text the demo shows for a cell, computed from the @msgpack/msgpack value. */
function expectedCell(v) {
  if (v === null || v === undefined) return '∅';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * Drop a file on the page through a DataTransfer drop event. The bytes are served to the
 * page through a route (no giant JSON arrays through evaluate), then wrapped in a File.
 */
let dropSeq = 0;
async function drop(page, name, bytes) {
  const path = `/__drop__/${++dropSeq}/${encodeURIComponent(name)}`;
  await page.route(`**${path}`, (route) => route.fulfill({ status: 200, body: Buffer.from(bytes), headers: { 'content-type': 'application/octet-stream', 'cross-origin-resource-policy': 'same-origin' } }));
  await page.evaluate(
    async ([path, name]) => {
      const blob = await (await fetch(path)).blob();
      const dt = new DataTransfer();
      dt.items.add(new File([blob], name));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    [path, name],
  );
}

/** Wait until the page has finished opening (and reading) the current file. */
async function settled(page, timeout = 60_000) {
  await page.waitForFunction(() => window.arrowsmithDemo && !window.arrowsmithDemo.busy && window.arrowsmithDemo.workerUsed, null, { timeout });
}

/** Row `r` of the virtualized table as cell texts (without the index column). */
const rowCells = (page, r) =>
  page.evaluate((r) => Array.from(document.querySelectorAll(`.grid-row[data-row="${r}"] .cell[data-col]`), (c) => c.textContent), r);

/** The structure tree's nodes: badge (kind) and label. */
const treeNodes = (page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('#tree .node'), (n) => {
      const kind = n.querySelector('.kind')?.textContent ?? '';
      return { kind, label: n.textContent.slice(kind.length) };
    }),
  );

/** Nothing inside the element is wider than it (text wraps instead of being cut or scrolled away). */
const notClipped = (page, selector) => page.evaluate((s) => ((e) => e.scrollWidth <= e.clientWidth + 1)(document.querySelector(s)), selector);

/** The time chart's text boxes (time labels, legend) neither overlap nor leave the canvas. */
const labelsApart = (page) =>
  page.evaluate(() => {
    const { labels } = window.arrowsmithDemo.chart;
    const width = document.getElementById('chart').clientWidth;
    const overlap = (a, b) => Math.abs(a.y - b.y) < 11 && a.x < b.x + b.w && b.x < a.x + a.w;
    return labels.length > 0 && labels.every((a, i) => a.x >= 0 && a.x + a.w <= width + 1 && labels.every((b, j) => i === j || !overlap(a, b)));
  });

async function benchmark(page, runs, timeout = 180_000) {
  await page.fill('#bench-runs', String(runs));
  await page.evaluate(() => (window.arrowsmithDemo.bench = undefined));
  await page.click('#bench-run', { timeout: 10_000 });
  await page.waitForFunction(() => window.arrowsmithDemo.bench !== undefined, null, { timeout });
  return page.evaluate(() => window.arrowsmithDemo.bench);
}

/** Run one group of checks; a crash fails that group only. */
async function section(report, name, fn) {
  try {
    await fn();
  } catch (e) {
    report(false, `${name}: crashed`, String(e?.message ?? e).split('\n')[0]);
  }
}

async function run({ browser, report, outDir }) {
  const server = await startDemo(0);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(urlOf(server));

    // --- Host panel.
    await page.locator('#host-info dd[data-key="CPU architecture"]').waitFor({ timeout: 30_000 });
    const arch = await page.locator('#host-info dd[data-key="CPU architecture"]').textContent();
    report(/^(ARM|x86)\b/.test(arch ?? '') || /cannot tell/.test(arch ?? ''), 'host panel shows the CPU architecture', arch);
    report(/^(ARM|x86)\b/.test(arch ?? ''), 'host architecture is known in Chromium (client hints or user agent)', arch);
    const host = await page.evaluate(() => window.arrowsmithDemo.host);
    report(host?.cores > 0 && /\d/.test(host?.browser ?? ''), 'host panel shows cores and browser version', JSON.stringify(host));
    report(host?.crossOriginIsolated === true, 'host panel: cross-origin isolated');
    const prompt = await page.evaluate(() => ({ intro: document.getElementById('intro')?.textContent ?? '', hint: document.getElementById('drop-hint')?.hidden === false }));
    report(/drop a file/i.test(prompt.intro) && prompt.hint, 'with a mouse the prompt offers dropping a file', JSON.stringify(prompt));

    // --- The built-in sample (click), checked against @msgpack/msgpack in Node.
    const sample = join(root, 'fixtures/samples/sensors.msgpack');
    const ref = decode(readFileSync(sample));
    await page.locator('button.sample').first().click();
    await page.locator('#result:not([hidden])').waitFor({ timeout: 60_000 }).catch(() => {});
    await settled(page).catch(() => {});
    const rows = await page.locator('#rows').textContent();
    const worker = await page.evaluate(() => window.arrowsmithDemo.workerUsed && window.arrowsmithDemo.workerMessages > 0);
    const isolated = await page.evaluate(() => crossOriginIsolated);
    report(rows?.split('×')[0].replace(/\D/g, '') === '20000', 'sample decoded: 20,000 rows shown', rows);
    report(worker, 'decoding ran in the worker');
    report(isolated, 'page is cross-origin isolated (COOP/COEP)');
    const status = (await page.locator('#status').textContent()) ?? '';
    report(/first read [\d.]+ ms \(decoded when opened; the module's init before it: [\d.]+ ms\)/.test(status) && !/rows read in/.test(status), 'timing line: the first read (the decode at open) and the module init, not a "read"', status);
    const fileinfo = await page.locator('#fileinfo').textContent();
    report(/MessagePack/.test(fileinfo ?? '') && fileinfo.includes(readFileSync(sample).length.toLocaleString('en-US')), 'format sniffed and file size shown', fileinfo);
    const schema = (await page.locator('#schema').textContent()) ?? '';
    const names = schema.split('\n').map((l) => l.split(':')[0]);
    const wantNames = Object.keys(ref[0]);
    report(JSON.stringify(names) === JSON.stringify(wantNames), 'schema field names match @msgpack/msgpack', `${names} != ${wantNames}`);
    report(/time: Timestamp/.test(schema) && /temperature: Float64/.test(schema) && /device: (Utf8|Dictionary)/.test(schema), 'schema types (timestamp, float64, utf8)', schema.replace(/\n/g, '; '));
    const want0 = wantNames.map((k) => expectedCell(ref[0][k]));
    const got0 = await rowCells(page, 0);
    report(JSON.stringify(got0) === JSON.stringify(want0), 'first row cells match @msgpack/msgpack', `${JSON.stringify(got0)} != ${JSON.stringify(want0)}`);
    // Virtualized: only the visible rows are in the DOM; scrolling far shows the right rows.
    const domRows = await page.locator('.grid-row').count();
    report(domRows > 0 && domRows < 100, 'table is virtualized (few DOM rows for 20,000)', `${domRows} rows in the DOM`);
    await page.evaluate(() => window.arrowsmithDemo.grid.scrollToRow(15000));
    await page.waitForTimeout(100);
    const got15k = await rowCells(page, 15000);
    const want15k = wantNames.map((k) => expectedCell(ref[15000][k]));
    report(JSON.stringify(got15k) === JSON.stringify(want15k), 'row 15,000 after scrolling matches', `${JSON.stringify(got15k)} != ${JSON.stringify(want15k)}`);
    // A cell click shows it below the table.
    await section(report, 'cell click', async () => {
      // A read still landing from the steps before re-renders the table and hides the panel (on a
      // loaded machine it can land after the click): click again then, up to three times.
      let shown = false;
      for (let i = 0; i < 3 && !shown; i++) {
        await page.locator('.grid-row .cell[data-col="2"]').first().click({ timeout: 20_000 });
        shown = await page.locator('#cellplot-panel').waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
        if (shown) shown = await page.waitForTimeout(500).then(() => page.locator('#cellplot-panel').isVisible());
      }
      report(shown, 'clicking a cell shows it');
    });
    await page.screenshot({ path: join(outDir, 'demo-sample.png'), fullPage: true });

    // --- Time-series chart: drag to zoom → time filter → fewer rows, then reset.
    await section(report, 'chart zoom', async () => {
      if (await page.locator('#chart-panel').isVisible()) {
        await page.locator('#chart').scrollIntoViewIfNeeded();
        const box = await page.locator('#chart').boundingBox();
        await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 4 });
        await page.mouse.up();
        await page.waitForFunction(() => window.arrowsmithDemo.table && window.arrowsmithDemo.table.numRows < 20000, null, { timeout: 20_000 }).catch(() => {});
        const zoomed = await page.evaluate(() => window.arrowsmithDemo.table.numRows);
        report(zoomed > 1000 && zoomed < 20000, 'chart zoom filters rows by time', `${zoomed} rows`);
        await page.screenshot({ path: join(outDir, 'demo-zoom.png'), fullPage: true });
        await page.click('#zoom-reset');
        await page.waitForFunction(() => window.arrowsmithDemo.table.numRows === 20000, null, { timeout: 20_000 }).catch(() => {});
        report((await page.evaluate(() => window.arrowsmithDemo.table.numRows)) === 20000, 'reset zoom shows all rows again');
      } else {
        report(false, 'time-series chart shown for the sample (it has a time column)');
      }
    });

    // --- Reading a row range of the selection (From row / Max rows).
    await section(report, 'row range', async () => {
      await page.fill('#sel-offset', '100');
      await page.fill('#sel-limit', '10');
      await page.click('#read');
      await page.waitForFunction(() => window.arrowsmithDemo.table?.numRows === 10, null, { timeout: 20_000 }).catch(() => {});
      const cells = await rowCells(page, 0);
      const want = wantNames.map((k) => expectedCell(ref[100][k]));
      const idx = await page.locator('.grid-row[data-row="0"] .cell.idx').textContent();
      report(JSON.stringify(cells) === JSON.stringify(want) && idx === '100', 'reading rows 100..109 shows row 100 first', `${idx}: ${JSON.stringify(cells)}`);
      const cut = (await page.locator('#status').textContent()) ?? '';
      report(/cut from the decoded table in [\d.]+ ms \(the file was decoded when opened, [\d.]+ ms\)/.test(cut), 'timing line: a later selection is a cut of the decoded table', cut);
      await page.fill('#sel-offset', '');
      await page.fill('#sel-limit', '');
      await page.click('#read');
      await page.waitForFunction(() => window.arrowsmithDemo.table?.numRows === 20000, null, { timeout: 20_000 }).catch(() => {});
    });

    // --- Benchmark on the sample: every decoder gives numbers.
    await section(report, 'benchmark', async () => {
      const bench = await benchmark(page, 3);
      for (const d of MSGPACK_DECODERS) {
        const r = bench.results.find((x) => x.label === d);
        report(r && !r.error && r.times.length === 3 && r.times.every((t) => t >= 0) && r.rows === 20000 && r.firstMs > 0 && r.initMs >= 0, `benchmark: ${d} produced init, first-read and warm numbers`, JSON.stringify(r)?.slice(0, 300));
      }
      const benchRows = await page.locator('#bench-table tbody tr').count();
      const mbs = await page.locator('#bench-table td.mbs').allTextContents();
      report(benchRows === MSGPACK_DECODERS.length && mbs.length > 0 && mbs.every((x) => Number(x) > 0), 'benchmark table shows MB/s per decoder', `${benchRows} rows, MB/s ${mbs}`);
      report(await page.locator('#bench-chart').isVisible(), 'benchmark bar chart shown');
      const firsts = await page.locator('#bench-table td.first').allTextContents();
      const warms = await page.locator('#bench-table td.warm').allTextContents();
      report(firsts.length === MSGPACK_DECODERS.length && firsts.every((x) => Number(x) > 0) && warms.every((x) => Number(x) > 0), 'benchmark table: first read and warm median per decoder, Arrowsmith and the peers', `${firsts} / ${warms}`);
      const warmStatus = (await page.locator('#status').textContent()) ?? '';
      report(/warm median [\d.]+ ms \(benchmark\)/.test(warmStatus), 'timing line gains the warm median after the benchmark', warmStatus);

      // --- Export → import round trip, and a second host side by side.
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), page.click('#bench-export')]);
      const exportedPath = join(outDir, 'demo-bench-export.json');
      await download.saveAs(exportedPath);
      const exported = JSON.parse(readFileSync(exportedPath, 'utf8'));
      const h = exported.host ?? {};
      report(
        exported.arrowsmithBench === 2 && exported.results.length === MSGPACK_DECODERS.length && h.arch === host.arch && h.cores > 0 && /\w/.test(h.os ?? '') && h.engine === 'Blink' && /\d/.test(h.browser) && h.crossOriginIsolated === true &&
          exported.results.every((r) => r.firstMs > 0 && r.times.length === 3) && exported.results.find((r) => r.decoder === 'arrowsmith-simd')?.simd === true,
        'export: host (architecture, cores, OS, engine and version, isolation), build, cold and warm figures',
        JSON.stringify(exported).slice(0, 300),
      );
      const other = { ...exported, host: { ...exported.host, arch: 'ARM', cores: 8, browser: 'Safari 18.2', archSource: 'client hints' }, results: exported.results.map((r) => ({ ...r, times: r.times.map((t) => t * 1.7) })) };
      const otherPath = join(outDir, 'demo-bench-other-host.json');
      writeFileSync(otherPath, JSON.stringify(other));
      await page.setInputFiles('#bench-import', [exportedPath, otherPath]);
      await page.waitForFunction(() => window.arrowsmithDemo.imported.length === 2, null, { timeout: 10_000 }).catch(() => {});
      const imported = await page.evaluate(() => window.arrowsmithDemo.imported);
      report(JSON.stringify(imported[0]) === JSON.stringify(exported), 'import of the exported file round-trips exactly');
      const hosts = await page.locator('#bench-table tbody tr td:first-child').allTextContents();
      report(new Set(hosts).size >= 2 && hosts.some((h) => h.startsWith('ARM · 8 cores · Safari 18.2')) && hosts.length === 3 * MSGPACK_DECODERS.length, 'imported results shown side by side with this host', [...new Set(hosts)].join(' | '));
      // Normalised per decoder: each host's warm MB/s over the first host's (this one).
      const rel = await page.evaluate(() => Array.from(document.querySelectorAll('#bench-table tbody tr'), (tr) => [tr.dataset.decoder, tr.querySelector('td.name').textContent, tr.querySelector('td.rel')?.textContent]));
      const med = (xs) => { const a = [...xs].sort((x, y) => x - y); const m = a.length >> 1; return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2; };
      const wantRel = (set) => exported.results.map((r) => (r.bytes / med(set.results.find((x) => x.decoder === r.decoder).times)) / (r.bytes / med(r.times)));
      const otherRows = rel.filter((r) => r[1].startsWith('ARM · 8 cores'));
      const wantOther = wantRel(other).map((x) => `${x.toFixed(2)}×`);
      report(
        (await page.locator('#bench-metric').inputValue()) === 'rel' && JSON.stringify(otherRows.map((r) => r[2])) === JSON.stringify(wantOther) && rel.filter((r) => !r[1].startsWith('ARM · 8')).every((r) => r[2] === '1.00×'),
        'several hosts: the chart and table normalise per decoder (× the first host, warm)',
        `${JSON.stringify(otherRows.map((r) => r[2]))} != ${JSON.stringify(wantOther)}`,
      );
      // A run under emulation: labelled, and no speed figure anywhere.
      const emu = { ...exported, host: { ...exported.host, arch: 'ARM', emulated: true, browser: 'Node 24 (qemu)' } };
      const emuPath = join(outDir, 'demo-bench-emulated.json');
      writeFileSync(emuPath, JSON.stringify(emu));
      await page.setInputFiles('#bench-import', emuPath);
      await page.waitForFunction(() => window.arrowsmithDemo.imported.length === 3, null, { timeout: 10_000 }).catch(() => {});
      const emuRows = await page.evaluate(() => ({
        labelled: Array.from(document.querySelectorAll('#bench-table tbody tr.emulated'), (tr) => tr.textContent.includes('emulated — correctness only')),
        figures: document.querySelectorAll('#bench-table tr.emulated :is(td.mbs, td.warm, td.first)').length,
      }));
      report(emuRows.labelled.length === MSGPACK_DECODERS.length && emuRows.labelled.every(Boolean) && emuRows.figures === 0, 'an emulated run is labelled "emulated — correctness only", with no speed figures', JSON.stringify(emuRows));
      await page.locator('#bench').screenshot({ path: join(outDir, 'demo-bench-hosts.png') });
      await page.locator('#bench').screenshot({ path: join(outDir, 'demo-bench.png') });
      await page.click('#bench-clear');
    });

    // --- Drop each sample of the samples index through a DataTransfer drop event.
    await section(report, 'samples dropped', async () => {
      const index = JSON.parse(readFileSync(join(root, 'fixtures/samples/index.json'), 'utf8'));
      const before = await page.evaluate(() => ({ bench: window.arrowsmithDemo.bench !== undefined, rows: document.querySelectorAll('#bench-table tbody tr').length }));
      for (const s of index) {
        const bytes = readFileSync(join(root, 'fixtures/samples', s.file));
        await drop(page, s.file, bytes);
        await settled(page).catch(() => {});
        const name = await page.locator('#filename').textContent();
        if (s.format === 'msgpack') {
          const values = decode(bytes);
          const n = Array.isArray(values) ? values.length : 1;
          const r = await page.locator('#rows').textContent();
          const first = await rowCells(page, 0);
          const want = Object.keys(values[0]).map((k) => expectedCell(values[0][k]));
          report(name === s.file && r?.split('×')[0].replace(/\D/g, '') === String(n) && JSON.stringify(first) === JSON.stringify(want), `dropped sample ${s.file}: rows and first row match`, `${name}: ${r}; ${JSON.stringify(first)}`);
        } else {
          const shown = await page.evaluate(() => ({ tree: document.querySelectorAll('#tree li').length, error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent }));
          report(name === s.file && (shown.tree > 0 || /not in this build yet/.test(shown.error)), `dropped sample ${s.file}: structure or a readable message`, JSON.stringify(shown));
        }
      }
      // The previous file's benchmark does not describe the file opened since.
      const after = await page.evaluate(() => ({ bench: window.arrowsmithDemo.bench !== undefined, rows: document.querySelectorAll('#bench-table tbody tr').length, exportable: !document.getElementById('bench-export').disabled }));
      report(before.bench && before.rows > 0 && !after.bench && after.rows === 0 && !after.exportable, 'opening another file clears the previous benchmark results', JSON.stringify({ before, after }));

    });

    // --- The SQL panel: DuckDB-wasm over the shown table, against @msgpack/msgpack in Node.
    await section(report, 'SQL panel', async () => {
      const sql = async (q) => {
        await page.evaluate(() => (window.arrowsmithDemo.sql = undefined));
        await page.fill('#sql-query', q);
        await page.click('#sql-run');
        await page.waitForFunction(() => window.arrowsmithDemo.sql !== undefined, null, { timeout: 120_000 });
        return page.evaluate(() => {
          const r = window.arrowsmithDemo.sql;
          return r.error ? r : { ...r, rows: r.rows.map((row) => row.map(String)) };
        });
      };
      const bytes = readFileSync(join(root, 'fixtures/samples/sensors.msgpack'));
      await drop(page, 'sensors.msgpack', bytes);
      await settled(page);
      const groups = {};
      for (const r of decode(bytes)) (groups[r.device] ??= []).push(r.temperature);
      const want = Object.keys(groups).sort().map((k) => [k, String(groups[k].length), (groups[k].reduce((a, b) => a + b, 0) / groups[k].length).toFixed(6)]);
      const got = await sql('SELECT device, count(*)::INTEGER AS n, round(avg(temperature), 6)::VARCHAR AS t FROM data GROUP BY 1 ORDER BY 1');
      const norm = (rows) => rows?.map(([d, n, t]) => [d, n, Number(t).toFixed(6)]);
      report(JSON.stringify(norm(got.rows)) === JSON.stringify(want), 'SQL panel: per-device count and mean of the MessagePack sample equal @msgpack/msgpack\'s', JSON.stringify(got).slice(0, 300));
      const named = await sql('SELECT count(*)::INTEGER AS n FROM sensors');
      report(named.rows?.[0]?.[0] === String(decode(bytes).length), 'SQL panel: the table is also registered under its own name (sensors, from sensors.msgpack)', JSON.stringify(named).slice(0, 200));
      const bad = await sql('SELECT no_such_column FROM data');
      const shown = await page.locator('#sql-error').textContent();
      report(!!bad.error && /no_such_column/.test(shown ?? ''), 'SQL panel: a bad query shows DuckDB\'s error', shown);
      // Every example query of a TsFile and an HDF5 table runs; count(*) is the rows shown.
      for (const [file, fixture] of [['gorilla.tsfile', 'fixtures/tsfile/cpp_gorilla_uncompressed.tsfile'], ['vl_latest.h5', 'fixtures/hdf5/vl_latest.h5']]) {
        await drop(page, file, readFileSync(join(root, fixture)));
        await settled(page);
        const rows = (await page.locator('#rows').textContent())?.split('×')[0].replace(/\D/g, '');
        const examples = await page.evaluate(() => [...document.querySelectorAll('#sql-examples button')].map((b) => b.title));
        const results = [];
        for (const q of examples) results.push(await sql(q));
        const count = results.find((r) => /^SELECT count\(\*\) AS rows FROM data$/.test(r.sql));
        report(examples.length >= 2 && results.every((r) => !r.error) && count?.rows[0][0] === rows, `SQL panel: every example query over ${file} runs; count(*) is the ${rows} rows shown`, JSON.stringify(results.map((r) => r.error ?? r.rows?.slice(0, 2))).slice(0, 300));
      }
      await page.locator('#sql-panel').screenshot({ path: join(outDir, 'demo-sql-panel.png') });
    });

    // --- The SQL panel past the rows shown: a row-limited table streams its whole selection
    // into DuckDB batch by batch (7 rows a batch here), with progress, and can be cancelled.
    await section(report, 'SQL panel streaming', async () => {
      const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      try {
        await p.goto(`${urlOf(server)}?sqlRows=7`);
        await p.waitForFunction(() => window.arrowsmithDemo);
        const limited = async (name, fixture, limit) => {
          await drop(p, name, readFileSync(join(root, fixture)));
          await settled(p);
          await p.fill('#sel-limit', String(limit));
          await p.evaluate(() => (window.arrowsmithDemo.table = undefined));
          await p.click('#read');
          await p.waitForFunction((n) => window.arrowsmithDemo.table?.numRows === n, limit, { timeout: 60_000 });
          await p.evaluate(() => ((window.arrowsmithDemo.sql = undefined), (window.arrowsmithDemo.sqlFeed = undefined)));
        };
        const result = async () => {
          await p.waitForFunction(() => window.arrowsmithDemo.sql !== undefined, null, { timeout: 120_000 });
          return p.evaluate(() => ({ ...window.arrowsmithDemo.sql, rows: window.arrowsmithDemo.sql.rows?.map((r) => r.map(String)), feed: window.arrowsmithDemo.sqlFeed }));
        };
        // Cancel: 1,000 devices of 2 rows are 1,000 batches; stopped once rows have gone in.
        await limited('thousand.tsfile', 'fixtures/tsfile/cpp_1000_devices_null_tags.tsfile', 3);
        await p.fill('#sql-query', 'SELECT count(*) AS n FROM data');
        await p.click('#sql-run');
        await p.waitForFunction(() => (window.arrowsmithDemo.sqlFeed?.rows ?? 0) > 0, null, { timeout: 60_000 });
        const barShown = await p.isVisible('#sql-progress');
        await p.click('#sql-cancel');
        const cancelled = await result();
        report(cancelled.feed?.state === 'cancelled' && cancelled.feed.rows < 2000 && barShown && /cancelled/.test(await p.locator('#sql-status').textContent()), `SQL panel: Cancel stops a stream into DuckDB (${cancelled.feed?.rows} of 2,000 rows in, progress bar shown)`, JSON.stringify(cancelled).slice(0, 300));
        // The whole selection of a 5-row view: 12 devices × 20 rows, equal to the official reader.
        const fixture = 'fixtures/tsfile/cpp_many_devices_ts2diff';
        const json = JSON.parse(readFileSync(join(root, `${fixture}.json`), 'utf8'));
        await limited('many.tsfile', `${fixture}.tsfile`, 5);
        const scope = await p.locator('#sql-scope').textContent();
        await p.fill('#sql-query', `SELECT ${json.tags.join(', ')}, count(*)::INTEGER AS n, count(str)::INTEGER AS strs, sum(i32)::HUGEINT::VARCHAR AS s, max(epoch_ms(time))::VARCHAR AS last FROM data GROUP BY ALL ORDER BY ALL`);
        await p.click('#sql-run');
        const got = await result();
        const want = json.devices
          .map((d) => [...d.tags.map(String), String(d.rows), String(d.columns.str.filter((v) => v !== null).length), String(d.columns.i32.filter((v) => v !== null).reduce((a, v) => a + BigInt(v), 0n)), String(Math.max(...d.columns.time))])
          .sort((a, b) => a.join('\u0000').localeCompare(b.join('\u0000')));
        const progress = got.feed?.progress ?? [];
        report(
          JSON.stringify(got.rows) === JSON.stringify(want) && got.feed?.state === 'done' && progress.length > 12 && progress.at(-1) === 240 && /whole selection/.test(scope ?? ''),
          `SQL panel: a 5-row view streams its whole table into DuckDB (${progress.length - 1} batches); per-device counts and sums equal the official reader's`,
          JSON.stringify({ got: got.rows?.slice(0, 3) ?? got.error, want: want.slice(0, 3), feed: got.feed?.state, steps: progress.length, scope }).slice(0, 400),
        );
        // After cancelling, the page had no half table: a second query reuses the stream's.
        await p.evaluate(() => ((window.arrowsmithDemo.sql = undefined), (window.arrowsmithDemo.sqlFeed = undefined)));
        await p.fill('#sql-query', 'SELECT count(*)::INTEGER AS n FROM t');
        await p.click('#sql-run');
        const again = await result();
        report(again.rows?.[0]?.[0] === '240' && again.feed === undefined, 'SQL panel: the next query runs on the streamed table without streaming again, by the TsFile table\'s own name too', JSON.stringify(again).slice(0, 200));
      } finally {
        await p.close();
      }
    });

    // --- A big file (400,000 rows, ~11 MB): streamed with a progress bar, virtualized rows.
    await section(report, 'big file', async () => {
      const n = 400_000;
      const recs = Array.from({ length: n }, (_, i) => ({ t: i * 1000, v: Math.round(Math.sin(i / 5000) * 1e6) / 1e6, seq: i }));
      const big = encode(recs);
      await page.evaluate(() => ((window.arrowsmithDemo.progressEvents = 0), (window.arrowsmithDemo.longestTask = 0)));
      await drop(page, 'big.msgpack', big);
      await settled(page, 120_000);
      const r = await page.locator('#rows').textContent();
      const got = await page.evaluate(() => ({ progress: window.arrowsmithDemo.progressEvents, longest: window.arrowsmithDemo.longestTask, dom: document.querySelectorAll('.grid-row').length }));
      report(r?.split('×')[0].replace(/\D/g, '') === String(n), `big file: ${n.toLocaleString('en-US')} rows shown`, r);
      report(got.progress >= 3, 'big file: progress reported while reading and decoding', `${got.progress} progress events`);
      report(got.dom > 0 && got.dom < 100, 'big file: only visible rows in the DOM', `${got.dom}`);
      report(got.longest < 2000, `big file: the main thread never froze (longest task ${Math.round(got.longest)} ms < 2 s)`, `${got.longest} ms`);
      for (const row of [n - 1, 123_457]) {
        await page.evaluate((row) => window.arrowsmithDemo.grid.scrollToRow(row), row);
        await page.waitForTimeout(100);
        const cells = await rowCells(page, row);
        const want = [String(recs[row].t), String(recs[row].v), String(recs[row].seq)];
        report(JSON.stringify(cells) === JSON.stringify(want), `big file: row ${row.toLocaleString('en-US')} after scrolling`, `${JSON.stringify(cells)} != ${JSON.stringify(want)}`);
      }
      await page.screenshot({ path: join(outDir, 'demo-big.png'), fullPage: true });
    });

    // --- Picking a file; a numeric variable-length sequence cell is plotted when clicked.
    await section(report, 'sequence plot', async () => {
      const recs = Array.from({ length: 50 }, (_, i) => ({ id: i, samples: Array.from({ length: 10 + i }, (_, k) => Math.sin((k + i) / 3)) }));
      const path = join(outDir, 'demo-sequences.msgpack');
      writeFileSync(path, encode(recs));
      await page.setInputFiles('#file', path);
      await settled(page);
      const schema = await page.locator('#schema').textContent();
      report(/samples: List<Float64>/.test(schema ?? ''), 'picked file: a list column of floats', schema);
      await page.locator('.grid-row[data-row="3"] .cell[data-col="1"]').click({ timeout: 5000 });
      const title = await page.locator('#cellplot-title').textContent();
      report((await page.locator('#cellplot').isVisible()) && /samples\[3\]: 13 values/.test(title ?? ''), 'clicking a numeric sequence cell plots it', title);
      await page.screenshot({ path: join(outDir, 'demo-sequence.png'), fullPage: true });
    });

    // --- HDF5 and TsFile: the structure when the package supports them, else a readable message.
    const extra = [
      ['dense_attrs.h5', join(root, 'fixtures/hdf5/dense_attrs.h5'), 'HDF5'],
      ['gorilla.tsfile', join(root, 'fixtures/tsfile/cpp_gorilla_uncompressed.tsfile'), 'TsFile'],
    ];
    let hdf5Supported = false;
    for (const [name, path, label] of extra) {
      if (!existsSync(path)) continue;
      await section(report, label, async () => {
        await drop(page, name, readFileSync(path));
        await settled(page).catch(() => {});
        const shown = await page.evaluate(() => ({
          format: document.getElementById('format').textContent,
          tree: Array.from(document.querySelectorAll('#tree .node'), (n) => n.textContent),
          error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
        }));
        const supported = shown.tree.length > 0 && !shown.error;
        if (label === 'HDF5') hdf5Supported = supported;
        report(shown.format.includes(label) && (supported || /not in this build yet/.test(shown.error)), `${label} file: sniffed, and its structure or "not in this build yet" shown`, JSON.stringify(shown).slice(0, 300));
        if (label === 'HDF5') {
          if (supported) {
            const want = Object.keys(JSON.parse(readFileSync(path.replace(/\.h5$/, '.json'), 'utf8')).datasets).map((p) => p.split('/').pop());
            const missing = want.filter((d) => !shown.tree.some((t) => t.endsWith(d)));
            report(missing.length === 0, 'HDF5 structure lists every dataset', `missing ${missing.slice(0, 5)}`);
            // Folded attributes (more than 4 on an object) are badged as attributes, not GROUP;
            // the counts are h5py's.
            const ref = JSON.parse(readFileSync(path.replace(/\.h5$/, '.json'), 'utf8'));
            const nodes = await treeNodes(page);
            const folded = nodes.filter((n) => /^\d+ attributes$/.test(n.label));
            const wantFolded = Object.values(ref.attrs).map((a) => Object.keys(a).length).filter((n) => n > 4).sort((a, b) => a - b);
            report(
              JSON.stringify(folded.map((n) => Number.parseInt(n.label, 10)).sort((a, b) => a - b)) === JSON.stringify(wantFolded) && folded.every((n) => n.kind === 'attributes') && nodes.filter((n) => n.kind === 'group').every((n) => Object.keys(ref.groups).includes(`/${n.label}`)),
              'HDF5: attributes under a dataset or group are badged ATTRIBUTES, only groups are GROUP',
              JSON.stringify(nodes.filter((n) => n.kind !== 'dataset')),
            );
            report(await notClipped(page, '#browser-panel'), 'HDF5: structure text wraps inside its panel (nothing clipped)', await page.evaluate(() => `${document.getElementById('browser-panel').scrollWidth} > ${document.getElementById('browser-panel').clientWidth}`));
          }
          await page.screenshot({ path: join(outDir, 'demo-hdf5.png'), fullPage: true });
          // The HDF5 peers decode it in the browser even when Arrowsmith cannot yet.
          const hb = await benchmark(page, 1);
          for (const d of HDF5_DECODERS) {
            const r = hb.results.find((x) => x.label === d);
            const ok = r && (r.error ? d.startsWith('Arrowsmith') && !supported && /not in this build yet/.test(r.error) : r.times.length === 1);
            report(ok, `HDF5 benchmark: ${d} ${r?.error ? 'shows its error' : 'produced numbers'}`, JSON.stringify(r)?.slice(0, 300));
          }
          await page.locator('#bench').screenshot({ path: join(outDir, 'demo-bench-hdf5.png') });
        } else {
          if (supported) {
            // Compared with the fixture's JSON (written by the reference writer).
            const want = JSON.parse(readFileSync(path.replace(/\.tsfile$/, '.json'), 'utf8'));
            const total = want.devices.reduce((a, d) => a + d.rows, 0);
            const rows = await page.locator('#rows').textContent();
            report(rows?.split('×')[0].replace(/\D/g, '') === String(total), 'TsFile: the first table read, all its rows', `${rows} != ${total}`);
            const missing = want.fields.map((f) => f[0]).filter((f) => !shown.tree.some((t) => t.endsWith(f)));
            report(missing.length === 0, 'TsFile structure lists every measurement', `missing ${missing}`);
            // One panel per device (a combination of tags), each with its own value range.
            const panels = await page.evaluate(() => window.arrowsmithDemo.chart.panels);
            report(panels === want.devices.length, `TsFile: the chart draws one panel per device (${want.devices.length})`, `${panels} panels`);
            report(await labelsApart(page), 'TsFile: chart labels do not overlap', JSON.stringify(await page.evaluate(() => window.arrowsmithDemo.chart.labels)));
            await page.locator('#chart-panel').screenshot({ path: join(outDir, 'demo-tsfile-panels.png') });
            if (await page.locator('#chart-panel').isVisible()) {
              await page.locator('#chart').scrollIntoViewIfNeeded();
              const box = await page.locator('#chart').boundingBox();
              await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
              await page.mouse.down();
              await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 4 });
              await page.mouse.up();
              await page.waitForFunction((n) => window.arrowsmithDemo.table && window.arrowsmithDemo.table.numRows < n, total, { timeout: 20_000 }).catch(() => {});
              const zoomed = await page.evaluate(() => window.arrowsmithDemo.table.numRows);
              report(zoomed > 0 && zoomed < total, 'TsFile: chart zoom pushes a time filter into the reader', `${zoomed} of ${total} rows`);
            } else {
              report(false, 'TsFile: time-series chart shown');
            }
            // Tick one device (and one measurement): only its rows and that field come back.
            await page.click('#zoom-reset');
            const dev = want.devices[1];
            const devPath = [want.table, ...dev.tags].join('.');
            await page.locator(`#tree input[data-device="${devPath}"]`).check({ timeout: 5000 });
            await page.locator('#tree input[data-column="d"]').check({ timeout: 5000 });
            await page.click('#read');
            await page.waitForFunction((n) => window.arrowsmithDemo.table?.numRows === n, dev.rows, { timeout: 20_000 }).catch(() => {});
            const got = await page.evaluate(() => ({ rows: window.arrowsmithDemo.table.numRows, fields: window.arrowsmithDemo.table.schema.fields.map((f) => f.name) }));
            report(got.rows === dev.rows && got.fields.includes('d') && !got.fields.includes('i32'), `TsFile: device ${devPath} and measurement d selected → ${dev.rows} rows`, JSON.stringify(got));
            await page.click('#clear-sel');
            const tb = await benchmark(page, 2);
            for (const d of ['Arrowsmith SIMD', 'Arrowsmith scalar']) {
              const r = tb.results.find((x) => x.label === d);
              report(r && !r.error && r.times.length === 2 && r.rows === total, `TsFile benchmark: ${d} produced numbers`, JSON.stringify(r)?.slice(0, 300));
            }
          }
          await page.screenshot({ path: join(outDir, 'demo-tsfile.png'), fullPage: true });
        }
      });
    }

    // --- HDF5 variable-length sequences: pick a dataset in the tree, plot a cell.
    const vl = join(root, 'fixtures/hdf5/vl_latest.h5');
    if (existsSync(vl) && hdf5Supported) {
      await section(report, 'HDF5 sequence plot', async () => {
        const want = JSON.parse(readFileSync(vl.replace(/\.h5$/, '.json'), 'utf8')).datasets['/vlseq_f64'].rows;
        await drop(page, 'vl_latest.h5', readFileSync(vl));
        await settled(page);
        await page.locator('[data-path="/vlseq_f64"]').click({ timeout: 5000 });
        await page.waitForFunction(() => window.arrowsmithDemo.table?.schema.fields[0]?.name === 'vlseq_f64', null, { timeout: 20_000 });
        const rows = await page.locator('#rows').textContent();
        report(rows?.split('×')[0].replace(/\D/g, '') === String(want.length), 'HDF5: clicking a dataset reads it', `${rows} != ${want.length}`);
        await page.locator('.grid-row[data-row="4"] .cell[data-col="0"]').click({ timeout: 5000 });
        const cell = await page.locator('.grid-row[data-row="4"] .cell[data-col="0"]').textContent();
        const title = await page.locator('#cellplot-title').textContent();
        report(cell === JSON.stringify(want[4]) && title === `vlseq_f64[4]: ${want[4].length} values` && (await page.locator('#cellplot').isVisible()), 'HDF5: a VL sequence cell matches h5py and is plotted', `${cell} / ${title}`);
        await page.screenshot({ path: join(outDir, 'demo-hdf5-vl.png'), fullPage: true });
      });
    }

    // --- A truncated HDF5 file: a readable error, not a blank page.
    if (hdf5Supported) {
      await section(report, 'truncated HDF5', async () => {
        const bytes = readFileSync(join(root, 'fixtures/hdf5/dense_attrs.h5')).subarray(0, 700);
        await drop(page, 'truncated.h5', bytes);
        await page.locator('#error:not([hidden])').waitFor({ timeout: 30_000 });
        const text = await page.locator('#error').textContent();
        report(/truncated\.h5/.test(text ?? '') && /HDF5/i.test(text ?? '') && /byte \d+/.test(text ?? ''), 'truncated HDF5 → readable error with an offset', text);
      });
    }

    // --- Files of none of the three formats say so instead of decoding as MessagePack.
    await section(report, 'unrecognised files', async () => {
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(64, 7)]);
      for (const [name, bytes, why] of [
        ['empty.msgpack', new Uint8Array(0), 'the file is empty'],
        ['notes.txt', Buffer.from('time,value\n2024-01-01T00:00:00Z,1.5\nnaïve café ✓\n'), 'it looks like text'],
        ['picture.png', png, 'it looks like a PNG image'],
      ]) {
        await drop(page, name, bytes);
        await page.waitForFunction((name) => document.getElementById('filename').textContent === name && !document.getElementById('error').hidden, name, { timeout: 30_000 });
        const got = await page.evaluate(() => ({ format: document.getElementById('format').textContent, error: document.getElementById('error').textContent, rows: document.getElementById('workspace').hidden }));
        report(got.format === 'not recognised' && got.error.startsWith(`${name} is not a MessagePack, TsFile or HDF5 file: ${why}`) && got.rows, `unrecognised ${name}: "${why}", not decoded as MessagePack`, JSON.stringify(got));
        await page.screenshot({ path: join(outDir, `demo-unrecognised-${name.replace(/\W/g, '-')}.png`) });
      }
    });

    // --- A corrupt file dropped on the page shows a readable error with the offset.
    await drop(page, 'corrupt.msgpack', new Uint8Array([0x93, 0x01, 0xc1, 0x02]));
    await page.locator('#error:not([hidden])').waitFor({ timeout: 30_000 });
    const err = await page.locator('#error').textContent();
    report(/byte 2/.test(err ?? ''), 'corrupt file → error with its offset', err);
    await page.screenshot({ path: join(outDir, 'demo-error.png'), fullPage: true });
    report(errors.length === 0, 'no page errors', errors.join('; '));
  } finally {
    await page.close();
    server.close();
  }
  await section(report, 'narrow touch screen', () => narrowScreen({ browser, report, outDir }));
  await section(report, 'shared results', () => sharedResults({ browser, report, outDir }));
  await section(report, 'static host', () => staticHost({ browser, report }));
  await section(report, 'host fallback', () => hostFallback({ browser, report }));
  await section(report, 'adapters', () => adapterTests({ report, outDir }));
}

/**
 * The TsFile and HDF5 adapters against a stand-in package that has openTsFile/openHdf5 with
 * the planned signatures (the real ones are not in the package yet): the structure tree and
 * the arguments each read passes (time filter pushed into the TsFile reader, HDF5 hyperslab).
 */
async function adapterTests({ report, outDir }) {
  const dir = join(outDir, 'adapters');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'mock-arrowsmith.mjs'),
    `import { tableFromArrays } from 'apache-arrow';
export const calls = [];
export function decodeMsgpack() { throw new Error('not in the mock'); }
export async function* decodeMsgpackStream() {}
const table = { name: 'root.plant', columns: [
  { name: 'time', type: 'TIMESTAMP', category: 'TIME', encoding: null, compression: null },
  { name: 'site', type: 'STRING', category: 'TAG', encoding: 'PLAIN', compression: 'LZ4' },
  { name: 'temp', type: 'DOUBLE', category: 'FIELD', encoding: 'GORILLA', compression: 'LZ4' },
  { name: 'ok', type: 'BOOLEAN', category: 'FIELD', encoding: 'RLE', compression: 'LZ4' },
] };
export async function openTsFile(src) {
  calls.push(['openTsFile', src instanceof Blob]);
  return {
    version: 4,
    tables: () => [table],
    schema: (name) => (name === table.name ? table : undefined),
    devices: () => [{ table: 'root.plant', path: 'd1', segments: [], tags: ['a'] }, { table: 'root.plant', path: 'd2', segments: [], tags: ['b'] }],
    timeseries: async () => [],
    close() {},
    read: async (q) => { calls.push(['tsread', q]); return tableFromArrays({ time: new Float64Array([1, 2]), temp: new Float64Array([20, 21]) }); },
  };
}
export async function openHdf5(src) {
  calls.push(['openHdf5', src instanceof Blob]);
  const tree = { '/': [{ name: 'g', kind: 'group' }, { name: 'top', kind: 'dataset', shape: [5], dtype: 'int32' }], '/g': [{ name: 'd', kind: 'dataset', shape: [3, 2], dtype: 'float64' }] };
  return {
    list: async (path = '/') => tree[path] ?? [],
    attrs: async (path) => (path === '/g/d' ? { units: 'm/s', scale: [1, 2] } : {}),
    info: async () => ({}),
    read: async (path, o) => { calls.push(['h5read', path, o]); return tableFromArrays({ x: new Float64Array([1, 2, 3]) }); },
  };
}
`,
  );
  writeFileSync(
    join(dir, 'entry.ts'),
    `import { adapters } from ${JSON.stringify(join(root, 'web-demo/src/formats/index.ts'))};
export { calls } from 'arrowsmith';
export async function run() {
  const blob = new Blob([new Uint8Array(16)]);
  const input = { blob, bytes: async () => new Uint8Array(await blob.arrayBuffer()) };
  const h = await adapters.hdf5.open(input, () => {});
  const hRead = await h.read({ path: h.initial.path, offset: 1, limit: 2 });
  const t = await adapters.tsfile.open(input, () => {});
  const tRead = await t.read({ path: t.initial.path, columns: ['temp'], devices: ['d2'], start: 1000, end: 2000 });
  return { h: { tree: h.tree, initial: h.initial, rows: hRead.numRows }, t: { tree: t.tree, initial: t.initial, timeColumn: t.timeColumn, pushed: t.timeFilterPushed, rows: tRead.numRows } };
}
`,
  );
  await build({ entryPoints: [join(dir, 'entry.ts')], bundle: true, format: 'esm', platform: 'node', outfile: join(dir, 'bundle.mjs'), alias: { arrowsmith: join(dir, 'mock-arrowsmith.mjs') }, logLevel: 'error' });
  const mod = await import(`${join(dir, 'bundle.mjs')}?${Date.now()}`);
  const { h, t } = await mod.run();
  const flat = (nodes, out = []) => (nodes.forEach((n) => (out.push(n), n.children && flat(n.children, out))), out);
  const hn = flat(h.tree);
  const d = hn.find((n) => n.path === '/g/d');
  report(
    hn.some((n) => n.kind === 'group' && n.label === 'g') && d?.detail === '(3, 2) float64' && hn.some((n) => n.kind === 'attribute' && n.label === '@units' && n.detail === '"m/s"') && h.initial.path === '/top',
    'HDF5 adapter: groups, datasets (shape, dtype), attributes; the first dataset is read first',
    JSON.stringify(h).slice(0, 400),
  );
  const h5read = mod.calls.find((c) => c[0] === 'h5read');
  report(mod.calls.some((c) => c[0] === 'openHdf5' && c[1] === true) && JSON.stringify(h5read) === JSON.stringify(['h5read', '/top', { start: 1, count: 2 }]), 'HDF5 adapter: opens the Blob, reads a hyperslab (start, count)', JSON.stringify(mod.calls));
  const tn = flat(t.tree);
  report(
    tn.some((n) => n.kind === 'table' && n.path === 'root.plant') &&
      JSON.stringify(tn.filter((n) => n.kind === 'device').map((n) => n.device)) === '["d1","d2"]' &&
      JSON.stringify(tn.filter((n) => n.kind === 'measurement').map((n) => n.column)) === '["temp","ok"]' &&
      tn.some((n) => n.label === 'site' && n.kind === 'info') &&
      tn.some((n) => n.label === 'TsFile version 4'),
    'TsFile adapter: tables, devices, measurements',
    JSON.stringify(t).slice(0, 400),
  );
  const ts = mod.calls.find((c) => c[0] === 'tsread');
  report(
    t.pushed === true && t.timeColumn === 'time' && JSON.stringify(ts?.[1]) === JSON.stringify({ table: 'root.plant', devices: ['d2'], columns: ['temp'], start: 1000, end: 2000 }),
    'TsFile adapter: the time filter, devices and columns are pushed into read()',
    JSON.stringify(ts),
  );
}

/**
 * A 390 px touch screen (a phone): the prompt says choose (nothing to drop), nothing is wider
 * than the viewport (the rows grid scrolls inside itself), chart labels do not overlap, and
 * the structure text wraps.
 */
async function narrowScreen({ browser, report, outDir }) {
  const server = await startDemo(0);
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    await page.goto(urlOf(server));
    await page.locator('button.sample').first().waitFor({ timeout: 30_000 });
    const prompt = await page.evaluate(() => ({ intro: document.getElementById('intro')?.textContent ?? '', hint: document.getElementById('drop-hint')?.hidden === true }));
    report(/choose a file/i.test(prompt.intro) && !/drop/i.test(prompt.intro) && prompt.hint, '390 px touch screen: the prompt says "choose", not "drop"', JSON.stringify(prompt));
    await page.locator('button.sample').first().click();
    await settled(page);
    const fit = await page.evaluate(() => {
      const grid = document.querySelector('.grid');
      const box = grid.getBoundingClientRect();
      return { page: document.documentElement.scrollWidth, right: Math.round(box.right), gridScrolls: grid.scrollWidth > grid.clientWidth };
    });
    report(fit.page <= 390 && fit.right <= 390 && fit.gridScrolls, '390 px: the page fits the viewport; the rows grid scrolls within it', JSON.stringify(fit));
    report(await labelsApart(page), '390 px: time chart labels do not overlap', JSON.stringify(await page.evaluate(() => window.arrowsmithDemo.chart.labels)));
    await page.screenshot({ path: join(outDir, 'demo-390-msgpack.png'), fullPage: true });
    const ts = join(root, 'fixtures/tsfile/cpp_gorilla_uncompressed.tsfile');
    await drop(page, 'gorilla.tsfile', readFileSync(ts));
    await page.waitForFunction(() => document.getElementById('filename').textContent === 'gorilla.tsfile', null, { timeout: 30_000 });
    await settled(page);
    report((await labelsApart(page)) && (await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, '390 px: TsFile device panels fit, labels apart', JSON.stringify(await page.evaluate(() => window.arrowsmithDemo.chart.labels)));
    await page.screenshot({ path: join(outDir, 'demo-390-tsfile.png'), fullPage: true });
    await drop(page, 'dense_attrs.h5', readFileSync(join(root, 'fixtures/hdf5/dense_attrs.h5')));
    await page.waitForFunction(() => document.getElementById('filename').textContent === 'dense_attrs.h5', null, { timeout: 30_000 });
    await settled(page);
    report((await notClipped(page, '#browser-panel')) && (await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, '390 px: HDF5 structure text wraps inside its panel', await page.evaluate(() => `${document.getElementById('browser-panel').scrollWidth} / ${document.getElementById('browser-panel').clientWidth}`));
    await page.screenshot({ path: join(outDir, 'demo-390-hdf5.png'), fullPage: true });
  } finally {
    await page.close();
    server.close();
  }
}

/**
 * Results shared by URL (`?results=`) and the committed reference results (one button per
 * browser): loaded beside this host's, and checked to be complete exports of their engine.
 */
async function sharedResults({ browser, report, outDir }) {
  const dir = join(root, 'web-demo/public/results');
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  const ENGINE = { chromium: 'Blink', firefox: 'Gecko', webkit: 'WebKit' };
  for (const b of Object.keys(ENGINE)) {
    const entry = index.find((x) => x.file === `${b}.json`);
    const set = entry && JSON.parse(readFileSync(join(dir, entry.file), 'utf8'));
    const ok =
      set?.arrowsmithBench === 2 && set.host.engine === ENGINE[b] && !set.host.emulated && set.host.cores > 0 && /\d/.test(set.host.browser) && set.file.name === 'sensors.msgpack' &&
      MSGPACK_DECODERS.every((d) => set.results.some((r) => r.label === d && !r.error && r.firstMs > 0 && r.initMs >= 0 && r.times.length >= 5 && r.rows === 20000));
    report(ok, `reference results for ${b}: a complete export (${ENGINE[b]}, cold and warm figures per decoder)`, JSON.stringify(set)?.slice(0, 300));
  }
  const server = await startDemo(0);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(`${urlOf(server)}?results=results/firefox.json&results=results/webkit.json`);
    await page.waitForFunction(() => window.arrowsmithDemo?.imported.length === 2, null, { timeout: 30_000 });
    const rows = await page.evaluate(() => Array.from(document.querySelectorAll('#bench-table tbody tr td:first-child'), (td) => td.textContent));
    report(rows.length === 2 * MSGPACK_DECODERS.length && rows.some((r) => /Firefox/.test(r)) && rows.some((r) => /MiniBrowser|WebKit|Safari/.test(r)), '?results= loads shared results into the table', JSON.stringify([...new Set(rows)]));
    const buttons = await page.locator('#bench-references button').allTextContents();
    report(buttons.length === index.length && index.every((x) => buttons.includes(x.label)), 'a button per committed reference result', JSON.stringify(buttons));
    await page.locator('#bench-references button', { hasText: index.find((x) => x.file === 'chromium.json').label }).click();
    await page.waitForFunction(() => window.arrowsmithDemo.imported.length === 3, null, { timeout: 10_000 }).catch(() => {});
    const metric = await page.locator('#bench-metric').inputValue();
    report((await page.evaluate(() => window.arrowsmithDemo.imported.length)) === 3 && metric === 'rel', 'a reference button adds its results; several hosts are normalised per decoder', metric);
    await page.locator('#bench').screenshot({ path: join(outDir, 'demo-bench-references.png') });
  } finally {
    await page.close();
    server.close();
  }
}

/** Without client hints the architecture is guessed from the user agent, or said to be unknown. */
async function hostFallback({ browser, report }) {
  const server = await startDemo(0);
  try {
    for (const [ua, want] of [
      ['Mozilla/5.0 (X11; Linux aarch64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', /^ARM \(guessed from the user agent\)/],
      ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15', /^cannot tell/],
    ]) {
      const page = await browser.newPage();
      await page.addInitScript((ua) => {
        Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });
        Object.defineProperty(Navigator.prototype, 'userAgent', { get: () => ua });
        Object.defineProperty(Navigator.prototype, 'platform', { get: () => '' });
      }, ua);
      await page.goto(urlOf(server));
      const dd = page.locator('#host-info dd[data-key="CPU architecture"]');
      await dd.waitFor({ timeout: 20_000 });
      const text = await dd.textContent();
      const browserText = await page.locator('#host-info dd[data-key="Browser"]').textContent();
      report(want.test(text ?? '') && /\d/.test(browserText ?? ''), `host panel without client hints: "${text}" (${browserText})`, text);
      await page.close();
    }
  } finally {
    server.close();
  }
}

/**
 * The built folder works from any static host: served under a sub-path by a plain server
 * (no COOP/COEP headers, generic MIME types), the sample still decodes in the worker.
 */
async function staticHost({ browser, report }) {
  const dist = join(root, 'web-demo/dist');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm' };
  const server = createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    if (!p.startsWith('/some/sub/dir/')) return res.writeHead(404).end();
    let file = join(dist, decodeURIComponent(p.slice('/some/sub/dir/'.length)) || 'index.html');
    if (!file.startsWith(dist)) return res.writeHead(403).end();
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(`${urlOf(server)}some/sub/dir/`);
    await page.locator('button.sample').first().click({ timeout: 20_000 });
    await settled(page);
    const rows = await page.locator('#rows').textContent();
    report(rows?.split('×')[0].replace(/\D/g, '') === '20000' && errors.length === 0, 'built folder works from a plain static host under a sub-path', `${rows} ${errors.join('; ')}`);
  } finally {
    await page.close();
    server.close();
  }
}
