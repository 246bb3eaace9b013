// The demo page: pick/drop a file or a sample; the worker sniffs and opens it; browse its
// structure, read a selection, see the Arrow schema, rows (virtualized), a time-series
// chart and sequence plots; benchmark decoders in workers; host info; export/import results.
import { DataType, tableFromIPC, type Table } from 'apache-arrow';
import { DECODERS } from './bench.js';
import { barChart, isNumeric, plotSequence, TimeChart, type Bar } from './charts.js';
import { findTimeColumn } from './formats/arrow-util.js';
import { FORMAT_LABEL } from './formats/index.js';
import type { Selection, TreeNode } from './formats/types.js';
import { cellText, esc, Grid, numericSequence } from './grid.js';
import { type BenchSet, type Metric, METRIC_UNIT, metricValue, parseSets, stats } from './results.js';
import { archText, EMULATED, hostInfo, hostLabel, type HostInfo } from './host.js';
import { sniff, unrecognised, type FormatName } from './sniff.js';
import type { SeriesPlot, WireError, WorkerReply, WorkerRequest } from './worker.js';
import { drawMinMax } from './minmax.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

// ---------------------------------------------------------------- workers
type Req = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

class WorkerClient {
  private readonly w: Worker;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: WorkerReply) => void; progress?: (done: number, total: number, phase: string) => void; partial?: (r: WorkerReply) => void }>();
  constructor(query: string) {
    this.w = new Worker(new URL(`./worker.js${query}`, import.meta.url), { type: 'module' });
    this.w.onmessage = (ev: MessageEvent<WorkerReply>) => {
      const m = ev.data;
      demo.workerMessages++;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') return p.progress?.(m.done, m.total, m.phase);
      if ((m.type === 'series' && !m.done) || m.type === 'batch') return p.partial?.(m);
      this.pending.delete(m.id);
      p.resolve(m);
    };
    this.w.onerror = (ev) => {
      for (const [id, p] of this.pending) p.resolve({ type: 'error', id, error: { message: `the worker failed: ${ev.message || 'could not load worker.js'}` } });
      this.pending.clear();
    };
  }
  terminate() {
    this.w.terminate();
  }
  /** A message without a reply (cancel). */
  send(msg: Req) {
    this.w.postMessage({ ...msg, id: this.next++ } as WorkerRequest);
  }
  request(msg: Req, progress?: (done: number, total: number, phase: string) => void, partial?: (r: WorkerReply) => void): Promise<WorkerReply> {
    return this.start(msg, progress, partial).reply;
  }
  /** A request and its id (later messages name it: a feed's pulls). */
  start(msg: Req, progress?: (done: number, total: number, phase: string) => void, partial?: (r: WorkerReply) => void): { id: number; reply: Promise<WorkerReply> } {
    const id = this.next++;
    const reply = new Promise<WorkerReply>((resolve) => {
      this.pending.set(id, { resolve, progress, partial });
      this.w.postMessage({ ...msg, id } as WorkerRequest);
    });
    return { id, reply };
  }
}

/** State exposed for the end-to-end tests. */
const demo = {
  workerUsed: false,
  workerMessages: 0,
  progressEvents: 0,
  /** The longest main-thread task seen (ms), from a PerformanceObserver on long tasks. */
  longestTask: 0,
  format: undefined as FormatName | undefined,
  table: undefined as Table | undefined,
  host: undefined as HostInfo | undefined,
  bench: undefined as BenchSet | undefined,
  imported: [] as BenchSet[],
  busy: false,
  grid: undefined as Grid | undefined,
  chart: undefined as TimeChart | undefined,
  /** When the structure tree of the current file was shown (performance.now()). */
  treeShownAt: undefined as number | undefined,
  /** The last stream of a series (big files): its state, progress seen and downsample. */
  stream: undefined as StreamState | undefined,
  /** The SQL panel's last query: its result (first rows) or error. */
  sql: undefined as { sql: string; columns: string[]; rows: unknown[][]; total: number; ms: number } | { sql: string; error: string } | undefined,
  /** The SQL panel's last stream of a whole selection into DuckDB (the rows inserted as it went). */
  sqlFeed: undefined as { state: 'running' | 'done' | 'cancelled' | 'failed'; progress: number[]; rows: number; total?: number; ms?: number; peakWasmBytes: number; maxBatchBytes: number } | undefined,
};

interface StreamState {
  state: 'running' | 'done' | 'stopped' | 'failed';
  startedAt: number;
  endedAt?: number;
  /** Progress bar values seen while streaming (rows done). */
  progress: number[];
  plot?: SeriesPlot;
  error?: string;
}
(window as unknown as { arrowsmithDemo: typeof demo }).arrowsmithDemo = demo;

const main = new WorkerClient('');
// Each decoder is benchmarked in a fresh worker (its init and first read are cold, and a
// peer that aborts, like h5wasm on some files, cannot spoil the next), terminated afterwards.

// ---------------------------------------------------------------- state
let file: File | undefined;
let format: FormatName | undefined;
let timeColumn: string | undefined;
let timeFilterPushed = false;
const sel: { path?: string; columns: Set<string>; devices: Set<string>; start?: number; end?: number } = { columns: new Set(), devices: new Set() };
const grid = (demo.grid = new Grid($('table')));
const chart = (demo.chart = new TimeChart($<HTMLCanvasElement>('chart')));
let generation = 0;
let seriesColumns: string[] = [];
/** The open reply of the current file (its timings), and whether its first read was shown. */
let opened: Extract<WorkerReply, { type: 'opened' }> | undefined;
let firstShown = false;
const BENCH_HELP = 'Open a file, then run the benchmark: each decoder runs in a fresh worker: its init, its first read (cold), then N timed reads (warm).';

function errorMessage(name: string, e: WireError): string {
  if (e.offset !== undefined && e.format) {
    const why = e.message.replace(/^.*?decode error at byte \d+:\s*/, '');
    return `Could not decode ${name}: ${e.format} error at byte ${e.offset.toLocaleString('en-US').replace(/,/g, '')} (${e.code ?? 'invalid'}): ${why}`;
  }
  return `${e.name === 'UnsupportedError' ? '' : `Could not open ${name}: `}${e.message}`;
}

function showError(text: string, notice = false) {
  const el = $('error');
  el.textContent = text;
  el.classList.toggle('notice', notice);
  el.hidden = false;
}

function progress(done: number, total: number, phase: string) {
  demo.progressEvents++;
  $('progress-box').hidden = false;
  const p = $<HTMLProgressElement>('progress');
  p.max = total || 1;
  p.value = done;
  $('progress-text').textContent = `${phase} ${((100 * done) / (total || 1)).toFixed(0)}% (${fmtBytes(done)} of ${fmtBytes(total)})`;
}

const fmtBytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`);

/** From this size on, a TsFile or HDF5 file is previewed (PREVIEW_ROWS) and its series streamed. */
const BIG_BYTES = 64 << 20;
const PREVIEW_ROWS = 10_000;

// ---------------------------------------------------------------- opening
async function open(f: File) {
  try {
    await openFile(f);
  } catch (e) {
    showError(`Could not open ${f.name}: ${String((e as Error)?.message ?? e)}`);
  } finally {
    if (file === f) demo.busy = false; // a newer file may be opening meanwhile
  }
}

async function openFile(f: File) {
  const gen = ++generation;
  file = f;
  demo.busy = true;
  $('error').hidden = true;
  closeViewer();
  $('open-h5web').hidden = true;
  $('workspace').hidden = true;
  $('result').hidden = true;
  $('progress-box').hidden = true;
  $<HTMLButtonElement>('bench-run').disabled = true;
  stopStream(); // the worker's open aborts it too; its state turns 'stopped' when it ends
  sqlAbort?.abort(new DOMException('another file was opened', 'AbortError'));
  sqlRegistered = undefined;
  demo.treeShownAt = undefined;
  $('stream-panel').hidden = true;
  $<HTMLButtonElement>('stream-run').disabled = false;
  $<HTMLButtonElement>('stream-stop').disabled = true;
  $('stream-progress-box').hidden = true;
  sel.path = undefined;
  sel.columns.clear();
  sel.devices.clear();
  sel.start = sel.end = undefined;
  $<HTMLInputElement>('sel-offset').value = $<HTMLInputElement>('sel-limit').value = '';
  // Sniff on the main thread too, for the file info line (1 MiB covers HDF5 user blocks).
  const head = new Uint8Array(await f.slice(0, Math.min(f.size, 1 << 20)).arrayBuffer());
  const sniffed = sniff(head);
  // The previous file's benchmark results do not describe this one.
  demo.bench = undefined;
  $<HTMLButtonElement>('bench-export').disabled = true;
  $('bench-status').textContent = BENCH_HELP;
  renderBench(demo.imported);
  const foreign = sniffed === 'msgpack' ? unrecognised(head, f.size) : undefined;
  if (foreign) {
    format = demo.format = undefined;
    $('fileinfo').hidden = false;
    $('filename').textContent = f.name;
    $('format').textContent = 'not recognised';
    $('size').textContent = `${f.size.toLocaleString('en-US')} bytes (${fmtBytes(f.size)})`;
    $('status').textContent = `${f.name}: not opened`;
    demo.busy = false;
    return showError(`${f.name} is not a MessagePack, TsFile or HDF5 file: ${foreign}.`, true);
  }
  // The peers can be benchmarked on the file even when Arrowsmith cannot open it.
  format = demo.format = sniffed;
  $('fileinfo').hidden = false;
  $('filename').textContent = f.name;
  $('format').textContent = FORMAT_LABEL[sniffed];
  $('size').textContent = `${f.size.toLocaleString('en-US')} bytes (${fmtBytes(f.size)})`;
  $('status').textContent = `Opening ${f.name} in a worker…`;
  const reply = await main.request({ type: 'open', file: f, name: f.name }, progress);
  if (gen !== generation) return;
  demo.workerUsed = true;
  $('progress-box').hidden = true;
  $<HTMLButtonElement>('bench-run').disabled = false;
  if (reply.type === 'error') {
    demo.busy = false;
    $('status').textContent = `${f.name}: ${reply.error.name === 'UnsupportedError' ? 'not supported yet' : 'failed'}`;
    return showError(errorMessage(f.name, reply.error), reply.error.name === 'UnsupportedError');
  }
  if (reply.type !== 'opened') return;
  format = demo.format = reply.format;
  $('open-h5web').hidden = reply.format !== 'hdf5';
  timeColumn = reply.timeColumn;
  timeFilterPushed = !!reply.timeFilterPushed;
  $('format').textContent = FORMAT_LABEL[reply.format];
  seriesColumns = reply.seriesColumns ?? [];
  opened = reply;
  $('status').textContent = `${f.name}: ${FORMAT_LABEL[reply.format]}, opening…`;
  sel.path = reply.initial.path;
  renderTree(reply.tree);
  $('workspace').hidden = false;
  demo.treeShownAt = performance.now();
  if (f.size >= BIG_BYTES && (reply.format === 'hdf5' || reply.format === 'tsfile')) {
    // A big file: the first read is a preview (the rows field says so); its series streams.
    $<HTMLInputElement>('sel-limit').value = String(PREVIEW_ROWS);
    describeSelection();
    $('stream-panel').hidden = false;
    $('stream-label').textContent = '';
    clearCanvas($<HTMLCanvasElement>('stream-chart'));
  }
  firstShown = false;
  await read();
  demo.busy = false;
}

// ---------------------------------------------------------------- structure tree
function renderTree(tree: TreeNode[]) {
  const li = (n: TreeNode): string => {
    const pickable = n.path !== undefined;
    const box =
      n.column !== undefined
        ? `<input type="checkbox" data-column="${esc(n.column)}"${sel.columns.has(n.column) ? ' checked' : ''}> `
        : n.device !== undefined
          ? `<input type="checkbox" data-device="${esc(n.device)}"> `
          : '';
    const label = `<span class="node${pickable ? ' pickable' : ''}${pickable && n.path === sel.path ? ' current' : ''}"${pickable ? ` data-path="${esc(n.path!)}"` : ''}><span class="kind ${n.kind}">${n.kind}</span>${esc(n.label)}</span>`;
    const detail = n.detail ? `<span class="detail">${esc(n.detail)}</span>` : '';
    if (n.children?.length) {
      // Nodes with children fold (native <details>); long lists start folded.
      return `<li><details${n.collapsed ? '' : ' open'}><summary>${box}<label>${label}</label>${detail}</summary><ul>${n.children.map(li).join('')}</ul></details></li>`;
    }
    return `<li>${box}<label>${label}</label>${detail}</li>`;
  };
  $('tree').innerHTML = tree.length ? `<ul>${tree.map(li).join('')}</ul>` : '<p class="muted">(empty)</p>';
  describeSelection();
}

$('tree').addEventListener('change', (ev) => {
  const box = ev.target as HTMLInputElement;
  const set = box.dataset.column !== undefined ? sel.columns : sel.devices;
  const key = box.dataset.column ?? box.dataset.device!;
  box.checked ? set.add(key) : set.delete(key);
  describeSelection();
});
$('tree').addEventListener('click', (ev) => {
  const node = (ev.target as HTMLElement).closest<HTMLElement>('[data-path]');
  if (!node) return;
  ev.preventDefault();
  sel.path = node.dataset.path;
  sel.start = sel.end = undefined;
  $('tree').querySelectorAll('.current').forEach((e) => e.classList.remove('current'));
  node.classList.add('current');
  describeSelection();
  void read();
});
$('read').addEventListener('click', () => void read());
for (const id of ['sel-offset', 'sel-limit']) $(id).addEventListener('change', describeSelection);
$('clear-sel').addEventListener('click', () => {
  sel.columns.clear();
  sel.devices.clear();
  sel.start = sel.end = undefined;
  $('tree').querySelectorAll<HTMLInputElement>('input[type=checkbox]').forEach((b) => (b.checked = false));
  describeSelection();
  void read();
});

function describeSelection() {
  const parts = [];
  if (sel.path) parts.push(`reading ${sel.path}`);
  parts.push(sel.columns.size ? `columns: ${[...sel.columns].join(', ')}` : 'all columns');
  if (sel.devices.size) parts.push(`devices: ${[...sel.devices].join(', ')}`);
  const from = $<HTMLInputElement>('sel-offset').value;
  const max = $<HTMLInputElement>('sel-limit').value;
  if (from || max) parts.push(`rows ${from || 0}${max ? ` + ${max}` : '…'}`);
  if (sel.start !== undefined) parts.push(`time ${new Date(sel.start).toISOString()} → ${new Date(sel.end!).toISOString()}`);
  $('selection').textContent = parts.join(' · ');
}

// ---------------------------------------------------------------- reading and showing
async function read() {
  const gen = generation;
  const num = (id: string) => {
    const v = $<HTMLInputElement>(id).value;
    return v === '' || !(Number(v) >= 0) ? undefined : Math.floor(Number(v));
  };
  const s: Selection = { path: sel.path, columns: [...sel.columns], devices: [...sel.devices], start: sel.start, end: sel.end, offset: num('sel-offset'), limit: num('sel-limit') };
  $('status').textContent = `Reading ${sel.path ?? file?.name ?? ''}…`;
  const reply = await main.request({ type: 'read', sel: s });
  if (gen !== generation) return;
  if (reply.type === 'error') {
    $('status').textContent = 'read failed';
    return showError(errorMessage(file?.name ?? 'file', reply.error), reply.error.name === 'UnsupportedError');
  }
  if (reply.type !== 'table') return;
  $('error').hidden = true;
  const table = tableFromIPC(reply.ipc);
  demo.table = table;
  sqlIpc.set(table, reply.ipc);
  shownSel.set(table, s);
  $('status').textContent = timingLine(table, reply.ms);
  $('about').textContent = reply.about ?? '';
  $('about-box').hidden = !reply.about;
  showTable(table, format === 'tsfile' ? 0 : (s.offset ?? 0));
}

/**
 * The status line: the first read (with the module's init before it, when this file loaded
 * it), then what later reads cost. MessagePack decodes the whole file when it is opened, so
 * its first read is the open, and later selections are cut from the decoded table.
 */
function timingLine(table: Table, readMs: number): string {
  const o = opened!;
  const rows = `${table.numRows.toLocaleString('en-US')} rows`;
  const build = `${o.simd ? 'SIMD' : 'scalar'} build, in a worker`;
  const init = o.initMs !== undefined ? `; the module's init before it: ${o.initMs.toFixed(1)} ms` : '';
  const cold = o.firstOfFormat ? ' (first read of this format in the worker: its code compiles on first use)' : '';
  const warm = demo.bench ? warmText() : '; warm median: run the benchmark';
  const head = `${file?.name}: ${FORMAT_LABEL[o.format]}, ${rows}`;
  const first = !firstShown;
  firstShown = true;
  if (o.format === 'msgpack') {
    if (first) return `${head}; first read ${o.ms.toFixed(1)} ms (decoded when opened${init})${cold}${warm} · ${build}`;
    return `${head}; cut from the decoded table in ${readMs.toFixed(1)} ms (the file was decoded when opened, ${o.ms.toFixed(1)} ms)${warm} · ${build}`;
  }
  if (first) return `${head}; opened in ${o.ms.toFixed(1)} ms${init}, first read ${readMs.toFixed(1)} ms${cold}${warm} · ${build}`;
  return `${head}; read in ${readMs.toFixed(1)} ms${warm} · ${build}`;
}

/** This host's Arrowsmith warm median for the open file, from the last benchmark. */
function warmText(): string {
  const r = demo.bench?.results.find((x) => x.decoder === (opened?.simd ? 'arrowsmith-simd' : 'arrowsmith-scalar'));
  const st = r && stats(r);
  return st ? `; warm median ${st.median.toFixed(1)} ms (benchmark)` : '';
}

function showTable(table: Table, base = 0) {
  $('rows').textContent = `${table.numRows.toLocaleString('en-US')} rows × ${table.numCols} columns`;
  $('schema').textContent = table.schema.fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '' : ' not null'}`).join('\n');
  $('result').hidden = false;
  $('cellplot-panel').hidden = true;
  grid.setTable(table, base);
  drawChart(table);
  showSqlPanel(table);
}

// ---------------------------------------------------------------- SQL
/**
 * The DuckDB table `data`: the shown table when it is the whole selection, else the whole
 * selection (the row window aside: a big file's preview, or offset/limit) streamed from the
 * worker batch by batch, with progress, and cancellable. `sqlRegistered` says what is in it.
 */
let sqlTable: Table | undefined;
let sqlRegistered: unknown;
let sqlAbort: AbortController | undefined;
/** The IPC bytes each shown table came in, and the selection it was read with. */
const sqlIpc = new WeakMap<Table, Uint8Array>();
const shownSel = new WeakMap<Table, Selection>();
const quoteId = (s: string) => `"${s.replaceAll('"', '""')}"`;
/** Rows per batch of a stream into DuckDB (`?sqlRows=N`; default: the reader's, about 16 MiB). */
const SQL_ROWS = Number(new URLSearchParams(location.search).get('sqlRows')) || undefined;

/** A few queries for the shown table, by what its columns are. */
function sqlExamples(table: Table): string[] {
  const fields = table.schema.fields;
  const num = fields.find((f) => isNumeric(f.type));
  const key = fields.find((f) => DataType.isUtf8(f.type) || DataType.isDictionary(f.type));
  const time = fields.find((f) => DataType.isTimestamp(f.type));
  const out = ['SELECT count(*) AS rows FROM data'];
  if (key && num && time && format === 'tsfile') out.unshift(`SELECT ${quoteId(key.name)}, date_trunc('hour', ${quoteId(time.name)}) AS hour, avg(${quoteId(num.name)}) AS mean FROM data GROUP BY 1, 2 ORDER BY 1, 2`);
  else if (key && num) out.push(`SELECT ${quoteId(key.name)}, count(*) AS n, avg(${quoteId(num.name)}) AS mean FROM data GROUP BY 1 ORDER BY n DESC LIMIT 20`);
  if (num) out.push(`SELECT min(${quoteId(num.name)}) AS lo, max(${quoteId(num.name)}) AS hi, avg(${quoteId(num.name)}) AS mean FROM data`);
  if (format === 'hdf5') out.push('SELECT * FROM data LIMIT 10 OFFSET 10');
  return out;
}

function showSqlPanel(table: Table) {
  sqlTable = table;
  $('sql-panel').hidden = false;
  const s = shownSel.get(table);
  const windowed = s?.offset !== undefined || s?.limit !== undefined;
  $('sql-scope').textContent = windowed ? 'the whole selection, streamed from the file batch by batch (not only the rows shown)' : 'the rows shown above';
  const own = sqlName(s);
  $('sql-name').textContent = own ? ` (also ${quoteId(own)})` : '';
  const examples = sqlExamples(table);
  const box = $('sql-examples');
  box.replaceChildren(
    ...examples.map((q, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary sql-example';
      b.textContent = `Example ${i + 1}`;
      b.title = q;
      b.onclick = () => ($<HTMLTextAreaElement>('sql-query').value = q);
      return b;
    }),
  );
  const ta = $<HTMLTextAreaElement>('sql-query');
  if (!ta.value || ta.dataset.auto === '1') {
    ta.value = examples[0]!;
    ta.dataset.auto = '1';
  }
}

/**
 * The worker's feed of `s` as IPC streams, one per batch. Taking one lets the worker send
 * another, so at most FEED_AHEAD batches wait here while DuckDB inserts.
 */
async function* feedBatches(s: Selection, signal: AbortSignal, onBatch: (m: Extract<WorkerReply, { type: 'batch' }>) => void): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let end: WorkerReply | undefined;
  let wake: (() => void) | undefined;
  const { id, reply } = main.start({ type: 'feed', sel: s, rows: SQL_ROWS }, undefined, (m) => {
    if (m.type !== 'batch') return;
    onBatch(m);
    queue.push(m.ipc);
    wake?.();
  });
  void reply.then((r) => {
    end = r;
    wake?.();
  });
  const stop = () => main.send({ type: 'stop-feed' });
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const ipc = queue.shift();
      if (ipc) {
        main.send({ type: 'pull', of: id });
        yield ipc;
      } else if (end) {
        if (end.type === 'error') throw Object.assign(new Error(end.error.message), { name: end.error.name ?? 'Error' });
        return;
      } else {
        await new Promise<void>((r) => (wake = r));
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    if (!end) stop();
  }
}

/**
 * The name the shown table is also queried by: the TsFile table, the HDF5 dataset (the last
 * part of its path), the MessagePack file (without its extension).
 */
function sqlName(s: Selection | undefined): string | undefined {
  const name = format === 'msgpack' ? file?.name.replace(/\.[^.]*$/, '') : s?.path?.split('/').filter(Boolean).pop();
  return name && name.toLowerCase() !== 'data' ? name : undefined;
}

/** Puts the shown table, or its whole selection, into DuckDB as `data` (and its own name, a view); returns its rows. */
async function registerSql(engine: typeof import('./sql.js'), table: Table): Promise<number> {
  const s = shownSel.get(table);
  const windowed = s?.offset !== undefined || s?.limit !== undefined;
  const key = windowed ? `${generation} ${JSON.stringify({ ...s, offset: undefined, limit: undefined })}` : table;
  if (sqlRegistered === key) return -1;
  sqlRegistered = undefined;
  if (!windowed) {
    $('sql-status').textContent = 'Loading DuckDB-wasm and registering the table…';
    const ipc = sqlIpc.get(table);
    if (!ipc) throw new Error('this table came without its Arrow IPC bytes');
    const rows = await engine.register('data', ipc);
    sqlRegistered = key;
    return rows;
  }
  const ac = (sqlAbort = new AbortController());
  const t0 = performance.now();
  const feed: NonNullable<typeof demo.sqlFeed> = (demo.sqlFeed = { state: 'running', progress: [], rows: 0, peakWasmBytes: 0, maxBatchBytes: 0 });
  const bar = $<HTMLProgressElement>('sql-progress');
  const show = (rows: number) => {
    feed.rows = rows;
    feed.progress.push(rows);
    bar.max = Math.max(feed.total ?? rows, rows, 1);
    bar.value = rows;
    const of = feed.total === undefined ? '' : ` of ${feed.total.toLocaleString('en-US')}`;
    $('sql-status').textContent = `Streaming the selection into DuckDB: ${rows.toLocaleString('en-US')}${of} rows…`;
  };
  $('sql-progress-box').hidden = false;
  $<HTMLButtonElement>('sql-cancel').disabled = false;
  show(0);
  try {
    const batches = feedBatches({ ...s, offset: undefined, limit: undefined }, ac.signal, (m) => {
      feed.total = m.total;
      feed.peakWasmBytes = Math.max(feed.peakWasmBytes, m.wasmBytes);
      feed.maxBatchBytes = Math.max(feed.maxBatchBytes, m.ipc.byteLength);
    });
    const rows = await engine.registerStream('data', batches, { signal: ac.signal, onProgress: show });
    feed.state = 'done';
    sqlRegistered = key;
    return rows;
  } catch (e) {
    feed.state = ac.signal.aborted ? 'cancelled' : 'failed';
    throw e;
  } finally {
    feed.ms = performance.now() - t0;
    if (sqlAbort === ac) sqlAbort = undefined;
    $<HTMLButtonElement>('sql-cancel').disabled = true;
    $('sql-progress-box').hidden = true;
  }
}

async function runSql() {
  const sql = $<HTMLTextAreaElement>('sql-query').value;
  const table = sqlTable;
  if (!table || !sql.trim()) return;
  $('sql-error').hidden = true;
  $<HTMLButtonElement>('sql-run').disabled = true;
  const t0 = performance.now();
  try {
    // Its own bundle, by URL (see build.mjs).
    const engine = (await import(new URL('sql-engine.js', document.baseURI).href)) as typeof import('./sql.js');
    const rows = await registerSql(engine, table);
    const own = sqlName(shownSel.get(table));
    if (rows >= 0 && own) await engine.alias(own, 'data');
    if (rows >= 0) $('sql-status').textContent = `${rows.toLocaleString('en-US')} rows registered as data; querying…`;
    const t1 = performance.now();
    const r = await engine.query(sql);
    const ms = performance.now() - t1;
    demo.sql = { sql, columns: r.columns, rows: r.rows, total: r.total, ms };
    $('sql-status').textContent = `${r.total.toLocaleString('en-US')} rows in ${ms.toFixed(1)} ms${r.total > r.rows.length ? ` (first ${r.rows.length} shown)` : ''}; ${(performance.now() - t0).toFixed(0)} ms with loading and registering`;
    const head = `<tr>${r.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
    const body = r.rows.map((row) => `<tr>${row.map((v) => `<td>${esc(cellText(v))}</td>`).join('')}</tr>`).join('');
    $('sql-result').innerHTML = `<table class="sql-table"><thead>${head}</thead><tbody>${body}</tbody></table>`;
    // A chart of the last numeric column when there is more than one row.
    const k = r.numeric.lastIndexOf(true);
    const chart = $<HTMLCanvasElement>('sql-chart');
    chart.hidden = !(k >= 0 && r.rows.length > 1);
    if (!chart.hidden) plotSequence(chart, r.rows.map((row) => Number(row[k])), `${r.columns[k]} by result row`);
  } catch (e) {
    const cancelled = (e as Error)?.name === 'AbortError';
    demo.sql = { sql, error: String((e as Error)?.message ?? e) };
    $('sql-status').textContent = cancelled ? 'cancelled: the partly streamed table was dropped' : 'failed';
    $('sql-error').hidden = cancelled;
    $('sql-error').textContent = `DuckDB: ${String((e as Error)?.message ?? e)}`;
  } finally {
    $<HTMLButtonElement>('sql-run').disabled = false;
  }
}
$('sql-run').onclick = () => void runSql();
$('sql-cancel').onclick = () => sqlAbort?.abort(new DOMException('cancelled', 'AbortError'));

function drawChart(table: Table) {
  // The time-series chart: selected numeric columns against time. The adapter names the
  // time column; when the table has no such column, a time-like one is looked for.
  if (timeColumn === undefined || !table.getChild(timeColumn)) timeColumn = findTimeColumn(table) ?? timeColumn;
  const hasTime = timeColumn !== undefined && table.getChild(timeColumn) !== null;
  $('chart-panel').hidden = !hasTime;
  if (hasTime) {
    const numeric = table.schema.fields.filter((f) => isNumeric(f.type) && f.name !== timeColumn).map((f) => f.name);
    // Ticked columns, else the first numeric one (series of unrelated scales share one axis).
    const wanted = sel.columns.size ? numeric.filter((c) => sel.columns.has(c)) : [];
    chart.draw(table, timeColumn!, wanted.length ? wanted : numeric.slice(0, 1), seriesColumns);
    const panels = seriesColumns.some((c) => table.getChild(c)) ? ' Each device has its own panel and value range.' : '';
    $('chart-help').textContent = `Drag across the chart to zoom into a time range: ${timeFilterPushed ? 'the time filter is pushed into the reader' : 'the rows in that range are cut from the decoded table in the worker (sorted time column)'}. Tick numeric columns in the structure panel to plot them.${panels}`;
    $('zoom-reset').hidden = sel.start === undefined;
    $('zoom-info').textContent = sel.start !== undefined ? `${new Date(sel.start).toISOString()} → ${new Date(sel.end!).toISOString()}` : '';
  }
}

chart.onZoom = (start, end) => {
  sel.start = Math.floor(start);
  sel.end = Math.ceil(end);
  describeSelection();
  void read();
};
$('zoom-reset').addEventListener('click', () => {
  sel.start = sel.end = undefined;
  describeSelection();
  void read();
});

grid.onCell = (row, col, value) => {
  const t = demo.table;
  if (!t) return;
  const field = t.schema.fields[col]!;
  const ys = DataType.isList(field.type) || DataType.isFixedSizeList(field.type) ? numericSequence(value) : undefined;
  if (!ys) {
    $('cellplot-panel').hidden = false;
    $('cellplot-title').textContent = `${field.name}[${row}] = ${cellText(value, field.type).slice(0, 200)}`;
    $<HTMLCanvasElement>('cellplot').hidden = true;
    return;
  }
  $('cellplot-panel').hidden = false;
  $('cellplot-title').textContent = `${field.name}[${row}]: ${ys.length} values`;
  $<HTMLCanvasElement>('cellplot').hidden = false;
  plotSequence($<HTMLCanvasElement>('cellplot'), ys, `${field.name}[${row}]`);
};

// ---------------------------------------------------------------- streaming a series
const STREAM_MARGIN = { left: 64, right: 12 };
let streamId = 0;
/** The file generation of the last stream started. */
let streamGen = 0;

function clearCanvas(c: HTMLCanvasElement) {
  c.getContext('2d')?.clearRect(0, 0, c.width, c.height);
}

function stopStream() {
  if (demo.stream?.state !== 'running') return;
  main.send({ type: 'cancel' });
}

function streamProgress(st: StreamState, done: number, total: number) {
  st.progress.push(done);
  const p = $<HTMLProgressElement>('stream-progress');
  p.max = total || 1;
  p.value = done;
  $('stream-progress-text').textContent = `${((100 * done) / (total || 1)).toFixed(0)}% (${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows)`;
}

function drawStream(plot: SeriesPlot) {
  const what = plot.xKind === 'row' ? 'rows' : 'time';
  drawMinMax($<HTMLCanvasElement>('stream-chart'), plot, STREAM_MARGIN, `${plot.label}: min/max per pixel over ${what} (${plot.rows.toLocaleString('en-US')} rows, ${plot.batches} batches)`);
}

async function streamSeries() {
  // A stream of a previous file may still be winding down (aborted already): go ahead.
  if (!file || (demo.stream?.state === 'running' && streamGen === generation)) return;
  streamGen = generation;
  const gen = generation;
  const id = ++streamId;
  const canvas = $<HTMLCanvasElement>('stream-chart');
  const width = Math.max(1, (canvas.clientWidth || 800) - STREAM_MARGIN.left - STREAM_MARGIN.right);
  const st: StreamState = (demo.stream = { state: 'running', startedAt: performance.now(), progress: [] });
  $<HTMLButtonElement>('stream-run').disabled = true;
  $<HTMLButtonElement>('stream-stop').disabled = false;
  $('stream-progress-box').hidden = false;
  streamProgress(st, 0, 0);
  const s: Selection = { path: sel.path, columns: [...sel.columns], devices: [...sel.devices] };
  const live = () => gen === generation && id === streamId;
  const reply = await main.request(
    { type: 'stream', sel: s, width },
    (done, total) => live() && streamProgress(st, done, total),
    (r) => {
      if (!live() || r.type !== 'series') return;
      st.plot = r.plot;
      $('stream-label').textContent = r.plot.label;
      drawStream(r.plot);
    },
  );
  st.endedAt = performance.now();
  if (live()) {
    $<HTMLButtonElement>('stream-run').disabled = false;
    $<HTMLButtonElement>('stream-stop').disabled = true;
  }
  if (reply.type === 'series') {
    st.plot = reply.plot;
    st.state = 'done';
    if (!live()) return;
    streamProgress(st, reply.plot.total, reply.plot.total);
    $('stream-label').textContent = reply.plot.label;
    drawStream(reply.plot);
    $('stream-progress-text').textContent += ` in ${(reply.plot.ms / 1000).toFixed(1)} s`;
  } else if (reply.type === 'error') {
    const aborted = reply.error.name === 'AbortError';
    st.state = aborted ? 'stopped' : 'failed';
    st.error = reply.error.message;
    if (!live()) return;
    if (aborted) $('stream-progress-text').textContent += ' (stopped)';
    else showError(errorMessage(file.name, reply.error));
  }
}

$('stream-run').addEventListener('click', () => void streamSeries());
$('stream-stop').addEventListener('click', stopStream);

// ---------------------------------------------------------------- input
$<HTMLInputElement>('file').addEventListener('change', (ev) => {
  const f = (ev.target as HTMLInputElement).files?.[0];
  if (f) void open(f);
});
// dragenter/dragleave fire for every child crossed: count them to know when the drag left the page.
let dragDepth = 0;
document.addEventListener('dragenter', (ev) => {
  ev.preventDefault();
  dragDepth++;
  document.body.classList.add('dragging');
});
document.addEventListener('dragover', (ev) => ev.preventDefault());
document.addEventListener('dragleave', () => {
  if (--dragDepth <= 0) (dragDepth = 0), document.body.classList.remove('dragging');
});
document.addEventListener('drop', (ev) => {
  ev.preventDefault();
  dragDepth = 0;
  document.body.classList.remove('dragging');
  const f = ev.dataTransfer?.files?.[0];
  if (f) void open(f);
});

// ---------------------------------------------------------------- h5web
let unmountViewer: (() => void) | undefined;
function closeViewer() {
  unmountViewer?.();
  unmountViewer = undefined;
  $('h5web-panel').hidden = true;
}
/** The open HDF5 file in h5web (@h5web/app, loaded now: its own chunk), read through Arrowsmith's provider. */
async function openViewer() {
  const f = file;
  if (!f) return;
  closeViewer();
  $('h5web-panel').hidden = false;
  try {
    const { mountViewer } = await import('./h5web-view.js');
    if (file !== f) return;
    unmountViewer = await mountViewer($('h5web-root'), { file: f });
    $('h5web-panel').scrollIntoView({ block: 'start' });
  } catch (e) {
    showError(`Could not open h5web: ${String((e as Error)?.message ?? e)}`);
  }
}
$('open-h5web').onclick = () => void openViewer();
$('h5web-close').onclick = () => closeViewer();

async function loadSamples() {
  const res = await fetch('samples/index.json');
  if (!res.ok) return;
  const list = (await res.json()) as { file: string; label: string; format?: string }[];
  for (const s of list) {
    const b = fileButton('sample', s.label, s.file, async () => {
      const r = await fetch(`samples/${s.file}`);
      if (!r.ok) return showError(`Could not fetch the sample ${s.file}: HTTP ${r.status}`);
      void open(new File([await r.blob()], s.file));
    });
    $('samples').append(b);
  }
}

/** A button naming a file of the demo's folder (a sample, a reference result). */
function fileButton(className: string, label: string, file: string, onclick: () => unknown): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = label;
  b.dataset.file = file;
  b.onclick = () => void onclick();
  return b;
}

// ---------------------------------------------------------------- benchmark
async function runBenchmark() {
  if (!file || !format || demo.busy) return;
  const runs = Math.max(1, Math.min(100, Number($<HTMLInputElement>('bench-runs').value) || 5));
  demo.busy = true;
  $<HTMLButtonElement>('bench-run').disabled = true;
  const set: BenchSet = { arrowsmithBench: 2, date: new Date().toISOString(), host: demo.host ?? (await hostInfo()), file: { name: file.name, size: file.size, format }, runs, results: [] };
  demo.bench = undefined;
  for (const d of DECODERS[format]) {
    $('bench-status').textContent = `Running ${d.label} in a fresh worker (init, first read, ${runs} warm runs)…`;
    const w = new WorkerClient(d.worker === 'simd' ? '?simd=1' : '?simd=0');
    const reply = await w.request({ type: 'bench', file, format, decoder: d.id, label: d.label, runs });
    w.terminate();
    set.results.push(reply.type === 'bench' ? reply.result : { decoder: d.id, label: d.label, times: [], bytes: file.size, rows: 0, error: reply.type === 'error' ? reply.error.message : 'no reply' });
    renderBench([set, ...demo.imported]);
  }
  demo.bench = set;
  $('bench-status').textContent = `${file.name}: each decoder in a fresh worker: its init, its first read (cold), then ${runs} warm runs (median, min, max).`;
  $<HTMLButtonElement>('bench-run').disabled = false;
  $<HTMLButtonElement>('bench-export').disabled = false;
  if (demo.table && opened) $('status').textContent = $('status').textContent!.replace(/; warm median: run the benchmark|; warm median [\d.]+ ms \(benchmark\)/, warmText());
  demo.busy = false;
}

const seriesName = (s: BenchSet, all: BenchSet[]) => {
  const label = hostLabel(s.host);
  const sameHost = all.filter((x) => hostLabel(x.host) === label).length > 1;
  return sameHost ? `${label} · ${s.file.name} · ${s.date.slice(0, 16).replace('T', ' ')}` : label;
};

const ms = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(2));

let lastBenchSets: BenchSet[] = [];
function renderBench(sets: BenchSet[]) {
  lastBenchSets = sets;
  const select = $<HTMLSelectElement>('bench-metric');
  // Several hosts: normalised per decoder unless the reader picked a metric.
  if (!select.dataset.touched) select.value = sets.filter((x) => !x.host.emulated).length > 1 ? 'rel' : 'mbs';
  const metric = select.value as Metric;
  const bars: Bar[] = [];
  let rows = '';
  for (const s of sets) {
    const series = seriesName(s, sets);
    for (const r of s.results) {
      const st = stats(r);
      const value = metricValue(s, r, metric, sets);
      bars.push({ group: r.label, series, value, note: s.host.emulated ? EMULATED : st && value === undefined ? 'no figure' : undefined, error: st ? undefined : (r.error ?? 'no runs') });
      // A SIMD worker on an engine without wasm SIMD runs the scalar build: say so.
      const label = r.decoder === 'arrowsmith-simd' && r.simd === false ? `${r.label} (no SIMD here: scalar ran)` : r.label;
      rows += `<tr data-decoder="${esc(r.decoder)}"${s.host.emulated ? ' class="emulated"' : ''}><td class="name">${esc(series)}</td><td class="name">${esc(label)}</td><td class="name">${esc(s.file.name)}</td>`;
      if (s.host.emulated) rows += `<td class="emu" colspan="8">${EMULATED}${st ? ' (decoded)' : `: ${esc(r.error ?? 'no runs')}`}</td><td>${r.rows.toLocaleString('en-US')}</td></tr>`;
      else if (st) {
        rows += `<td>${ms(st.initMs)}</td><td class="first">${ms(st.firstMs)}</td><td class="warm">${st.median.toFixed(2)}</td><td>${st.min.toFixed(2)}</td><td>${st.max.toFixed(2)}</td>`;
        rows += `<td class="mbs">${st.mbs.toFixed(1)}</td><td>${Math.round(st.rowsPerSec).toLocaleString('en-US')}</td><td class="rel">${value === undefined || !metric.startsWith('rel') ? '' : `${value.toFixed(2)}×`}</td><td>${r.rows.toLocaleString('en-US')}</td></tr>`;
      } else rows += `<td class="err" colspan="9">error: ${esc(r.error ?? 'no runs')}</td></tr>`;
    }
  }
  const relHead = metric.startsWith('rel') ? `× first host (${metric === 'rel' ? 'warm' : 'first read'})` : '';
  $('bench-table').innerHTML = sets.length
    ? `<div class="scroll"><table class="bench"><thead><tr><th>Host</th><th>Decoder</th><th>File</th><th>init ms</th><th>first read ms</th><th>warm median ms</th><th>min ms</th><th>max ms</th><th>MB/s (warm)</th><th>rows/s (warm)</th><th>${relHead}</th><th>rows</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : '';
  const canvas = $<HTMLCanvasElement>('bench-chart');
  canvas.hidden = !bars.length;
  if (bars.length) barChart(canvas, bars, METRIC_UNIT[metric]);
}

/** Adds result sets beside this host's (import, `?results=`, reference buttons). */
function addSets(sets: BenchSet[], from: string) {
  demo.imported.push(...sets);
  renderBench([...(demo.bench ? [demo.bench] : []), ...demo.imported]);
  $('bench-status').textContent = `${demo.imported.length} imported result set(s) shown beside this host's (latest from ${from}).`;
}

async function loadResultsUrl(url: string) {
  try {
    const res = await fetch(new URL(url, location.href));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    addSets(parseSets(await res.text()), url);
  } catch (e) {
    showError(`Could not load the results ${url}: ${(e as Error).message}`);
  }
}

$('bench-run').addEventListener('click', () => void runBenchmark());
$('bench-metric').addEventListener('change', () => {
  $('bench-metric').dataset.touched = '1';
  renderBench(lastBenchSets);
});
$('bench-export').addEventListener('click', () => {
  if (!demo.bench) return;
  const blob = new Blob([JSON.stringify(demo.bench, null, 1)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  const h = demo.bench.host;
  a.download = `arrowsmith-bench-${demo.bench.file.name.replace(/[^\w.-]+/g, '_')}-${h.arch}-${h.cores}c.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
});
$<HTMLInputElement>('bench-import').addEventListener('change', async (ev) => {
  const input = ev.target as HTMLInputElement;
  for (const f of Array.from(input.files ?? [])) {
    try {
      addSets(parseSets(await f.text()), f.name);
    } catch (e) {
      showError(`Could not import ${f.name}: ${(e as Error).message}`);
    }
  }
  input.value = '';
});
$('bench-clear').addEventListener('click', () => {
  demo.imported = [];
  renderBench(demo.bench ? [demo.bench] : []);
});

/** Reference results committed with the demo (results/index.json), one button each. */
async function loadReferenceList() {
  const res = await fetch('results/index.json').catch(() => undefined);
  if (!res?.ok) return;
  const list = (await res.json()) as { file: string; label: string }[];
  for (const r of list) $('bench-references').append(fileButton('secondary reference', r.label, r.file, () => loadResultsUrl(`results/${r.file}`)));
  $('bench-references-box').hidden = list.length === 0;
}

// ---------------------------------------------------------------- host
async function showHost() {
  const h = (demo.host = await hostInfo());
  const rows: [string, string][] = [
    ['CPU architecture', archText(h)],
    ['Logical cores', String(h.cores || 'unknown')],
    ['Browser', h.browser],
    ['Platform', [h.platform, h.platformVersion].filter(Boolean).join(' ') || 'unknown'],
    ['WebAssembly SIMD', h.wasmSimd ? 'supported' : 'not supported (the scalar build is used)'],
    ['Cross-origin isolated', h.crossOriginIsolated ? 'yes (COOP/COEP)' : 'no'],
  ];
  $('host-info').innerHTML = rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd data-key="${esc(k)}">${esc(v)}</dd>`).join('');
}

try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) demo.longestTask = Math.max(demo.longestTask, e.duration);
  }).observe({ type: 'longtask', buffered: false });
} catch {
  // Long-task timing is not available in every browser.
}
// Canvases are drawn at their pixel size: redraw them when the page width changes.
let resizeTimer = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(() => {
    if (demo.table && !$('result').hidden) drawChart(demo.table);
    if (lastBenchSets.length) renderBench(lastBenchSets);
  }, 150);
});
window.addEventListener('error', (ev) => showError(`Unexpected error: ${ev.message}`));
window.addEventListener('unhandledrejection', (ev) => showError(`Unexpected error: ${String((ev.reason as Error)?.message ?? ev.reason)}`));
void loadSamples();
void showHost();
void loadReferenceList();
for (const u of new URLSearchParams(location.search).getAll('results')) void loadResultsUrl(u);
// Touch screens have nothing to drop: the prompt says choose.
if (matchMedia('(pointer: coarse)').matches && !matchMedia('(pointer: fine)').matches) {
  $('intro').textContent = 'MessagePack, TsFile and HDF5 decoded by Rust/wasm straight into Apache Arrow tables. Choose a file or try a sample.';
  $('drop-hint').hidden = true;
}
