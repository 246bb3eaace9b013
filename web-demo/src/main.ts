// The demo page: pick/drop a file or a sample, decode it in a worker, show schema and rows.
import { tableFromIPC, type Table } from 'apache-arrow';
import type { DecodeReply, DecodeRequest } from './worker.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map<number, (r: DecodeReply) => void>();
worker.onmessage = (ev: MessageEvent<DecodeReply>) => {
  pending.get(ev.data.id)?.(ev.data);
  pending.delete(ev.data.id);
};
(window as unknown as { arrowsmithDemo: object }).arrowsmithDemo = { workerUsed: false };

function decodeInWorker(bytes: ArrayBuffer): Promise<DecodeReply> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, bytes } satisfies DecodeRequest, [bytes]);
  });
}

function showError(text: string) {
  const el = $('error');
  el.textContent = text;
  el.hidden = false;
  $('result').hidden = true;
}

function renderTable(table: Table, limit = 100) {
  const names = table.schema.fields.map((f) => f.name);
  const rows = Math.min(limit, table.numRows);
  const cell = (v: unknown) => {
    if (v === null || v === undefined) return '∅';
    if (typeof v === 'object' && v !== null && 'toJSON' in v) return JSON.stringify((v as { toJSON(): unknown }).toJSON(), (_, x) => (typeof x === 'bigint' ? x.toString() : x));
    return String(v);
  };
  let html = '<table><thead><tr><th>#</th>' + names.map((n) => `<th>${escape(n)}</th>`).join('') + '</tr></thead><tbody>';
  const cols = names.map((_, i) => table.getChildAt(i)!);
  for (let r = 0; r < rows; r++) {
    html += `<tr><td>${r}</td>` + cols.map((c) => `<td>${escape(cell(c.get(r)))}</td>`).join('') + '</tr>';
  }
  $('table').innerHTML = html + '</tbody></table>';
}

function escape(s: string) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

async function open(name: string, bytes: ArrayBuffer) {
  $('error').hidden = true;
  $('status').textContent = `Decoding ${name} (${bytes.byteLength.toLocaleString()} bytes)…`;
  const reply = await decodeInWorker(bytes);
  (window as unknown as { arrowsmithDemo: { workerUsed: boolean } }).arrowsmithDemo.workerUsed = true;
  if (!reply.ok) {
    const e = reply.error;
    $('status').textContent = `${name}: failed`;
    return showError(e.offset !== undefined ? `${e.format} error at byte ${e.offset} (${e.code}): ${e.message}` : e.message);
  }
  const table = tableFromIPC(reply.ipc);
  $('status').textContent = `${name}: ${reply.format}, decoded in ${reply.ms.toFixed(2)} ms (${reply.simd ? 'SIMD' : 'scalar'} build, in a worker)`;
  $('rows').textContent = `${table.numRows.toLocaleString()} rows`;
  $('schema').textContent = table.schema.fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '' : ' not null'}`).join('\n');
  $('result').hidden = false;
  renderTable(table);
}

$<HTMLInputElement>('file').addEventListener('change', async (ev) => {
  const f = (ev.target as HTMLInputElement).files?.[0];
  if (f) await open(f.name, await f.arrayBuffer());
});
document.addEventListener('dragover', (ev) => {
  ev.preventDefault();
  document.body.classList.add('dragging');
});
document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
document.addEventListener('drop', async (ev) => {
  ev.preventDefault();
  document.body.classList.remove('dragging');
  const f = ev.dataTransfer?.files?.[0];
  if (f) await open(f.name, await f.arrayBuffer());
});

async function loadSamples() {
  const res = await fetch('samples/index.json');
  if (!res.ok) return;
  const list = (await res.json()) as { file: string; label: string }[];
  for (const s of list) {
    const b = document.createElement('button');
    b.className = 'sample';
    b.textContent = s.label;
    b.onclick = async () => open(s.file, await (await fetch(`samples/${s.file}`)).arrayBuffer());
    $('samples').append(b);
  }
}
loadSamples();
