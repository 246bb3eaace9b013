// A virtualized table: fixed row height, a tall spacer, and only the visible rows in the
// DOM, so millions of rows scroll smoothly. Past the browser's maximum element height the
// scroll position is mapped proportionally onto the rows.
import { DataType, type Table, type Vector } from 'apache-arrow';

export const ROW_H = 24;
const MAX_PX = 8_000_000;
const OVERSCAN = 6;
const IDX_W = 96;

export function cellText(v: unknown, type?: DataType): string {
  if (v === null || v === undefined) return '∅';
  if (type && (DataType.isTimestamp(type) || DataType.isDate(type))) {
    const ms = v instanceof Date ? v.getTime() : Number(v);
    return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `0x${Array.from(v.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')}${v.length > 16 ? '…' : ''}`;
  if (typeof v === 'object' && 'toJSON' in (v as object)) return JSON.stringify((v as { toJSON(): unknown }).toJSON(), (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  return String(v);
}

/** Numbers of a list cell (a numeric VL sequence), or undefined when it is not one. */
export function numericSequence(v: unknown): number[] | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const arr = typeof (v as Vector).toArray === 'function' ? (v as Vector).toArray() : ArrayBuffer.isView(v) ? v : Array.isArray(v) ? v : undefined;
  if (!arr || !('length' in arr) || (arr as ArrayLike<unknown>).length < 2) return undefined;
  const out: number[] = [];
  for (const x of Array.from(arr as ArrayLike<unknown>)) {
    if (typeof x === 'number') out.push(x);
    else if (typeof x === 'bigint') out.push(Number(x));
    else return undefined;
  }
  return out;
}

export class Grid {
  private table?: Table;
  private cols: Vector[] = [];
  private types: DataType[] = [];
  private readonly scroller: HTMLDivElement;
  private readonly head: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly rowsEl: HTMLDivElement;
  private frame = 0;
  private template = '';
  private align: string[] = [];
  /** Called with (row, column, value) when a cell is clicked. */
  onCell?: (row: number, col: number, value: unknown) => void;

  constructor(host: HTMLElement) {
    host.innerHTML = '';
    this.scroller = document.createElement('div');
    this.scroller.className = 'grid';
    this.scroller.tabIndex = 0; // keyboard scrolling (arrows, Page Up/Down)
    this.scroller.setAttribute('role', 'grid');
    this.head = document.createElement('div');
    this.head.className = 'grid-head';
    this.spacer = document.createElement('div');
    this.spacer.className = 'grid-spacer';
    this.rowsEl = document.createElement('div');
    this.rowsEl.className = 'grid-rows';
    this.spacer.append(this.rowsEl);
    this.scroller.append(this.head, this.spacer);
    host.append(this.scroller);
    this.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.rowsEl.addEventListener('click', (ev) => {
      const cell = (ev.target as HTMLElement).closest<HTMLElement>('.cell[data-col]');
      const row = cell?.parentElement?.dataset.row;
      if (!cell || row === undefined || !this.table) return;
      const r = Number(row);
      const c = Number(cell.dataset.col);
      this.rowsEl.querySelectorAll('.selected').forEach((e) => e.classList.remove('selected'));
      cell.classList.add('selected');
      this.selected = [r, c];
      this.onCell?.(r, c, this.cols[c]!.get(r));
    });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  /** Row numbers shown start at `base` (a read that began at row `base` of the dataset). */
  private base = 0;
  /** The clicked cell [row, column], kept across re-renders. */
  private selected?: [number, number];

  setTable(table: Table, base = 0) {
    this.table = table;
    this.base = base;
    this.cols = table.schema.fields.map((_, i) => table.getChildAt(i)!);
    this.types = table.schema.fields.map((f) => f.type);
    this.align = this.types.map((t) => (DataType.isInt(t) || DataType.isFloat(t) || DataType.isDecimal(t) || DataType.isTimestamp(t) || DataType.isDate(t) ? '' : ' left'));
    const widths = table.schema.fields.map((f) => (DataType.isTimestamp(f.type) || DataType.isDate(f.type) ? 240 : DataType.isList(f.type) || DataType.isStruct(f.type) ? 220 : 130));
    this.template = `${IDX_W}px ${widths.map((w) => `${w}px`).join(' ')}`;
    const total = IDX_W + widths.reduce((a, b) => a + b, 0);
    this.head.style.gridTemplateColumns = this.template;
    this.head.style.width = this.rowsEl.style.width = `${total}px`;
    this.head.innerHTML = `<div class="cell idx">#</div>` + table.schema.fields.map((f) => `<div class="cell${this.align[table.schema.fields.indexOf(f)]}" title="${esc(String(f.type))}">${esc(f.name)}</div>`).join('');
    this.spacer.style.height = `${Math.min(MAX_PX, table.numRows * ROW_H)}px`;
    this.spacer.style.width = `${total}px`;
    this.selected = undefined;
    this.scroller.scrollTop = 0;
    this.render();
  }

  /** Index of the first row the current scroll position shows. */
  private firstRow(view: number): { first: number; top: number } {
    const n = this.table!.numRows;
    const full = n * ROW_H;
    const st = this.scroller.scrollTop;
    if (full <= MAX_PX) return { first: Math.floor(st / ROW_H), top: Math.floor(st / ROW_H) * ROW_H };
    const visible = Math.ceil(view / ROW_H);
    const frac = Math.min(1, st / Math.max(1, MAX_PX - view));
    return { first: Math.round(frac * Math.max(0, n - visible)), top: st };
  }

  private schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.render()));
  }

  render() {
    const t = this.table;
    if (!t) return;
    const view = this.scroller.clientHeight || 480;
    const { first, top } = this.firstRow(view);
    const start = Math.max(0, first - OVERSCAN);
    const end = Math.min(t.numRows, first + Math.ceil(view / ROW_H) + OVERSCAN);
    let html = '';
    for (let r = start; r < end; r++) {
      html += `<div class="grid-row${r % 2 ? ' odd' : ''}" data-row="${r}" style="top:${top + (r - first) * ROW_H}px;grid-template-columns:${this.template}"><div class="cell idx">${(this.base + r).toLocaleString('en-US')}</div>`;
      for (let c = 0; c < this.cols.length; c++) html += `<div class="cell${this.align[c]}${this.selected?.[0] === r && this.selected[1] === c ? ' selected' : ''}" data-col="${c}">${esc(cellText(this.cols[c]!.get(r), this.types[c]))}</div>`;
      html += '</div>';
    }
    this.rowsEl.innerHTML = html;
  }

  /** Scroll so that `row` is at the top (used by tests and the "go to row" box). */
  scrollToRow(row: number) {
    const t = this.table;
    if (!t) return;
    const full = t.numRows * ROW_H;
    const view = this.scroller.clientHeight || 480;
    this.scroller.scrollTop = full <= MAX_PX ? row * ROW_H : (row / Math.max(1, t.numRows - Math.ceil(view / ROW_H))) * (MAX_PX - view);
    this.render();
  }
}

export function esc(s: string) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
