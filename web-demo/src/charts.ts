// Canvas charts, no library: a time-series line chart with drag-to-zoom, a plot of one
// numeric sequence, and the benchmark bar chart (one bar per decoder and host).
import { DataType, type Table } from 'apache-arrow';
import { doubles, texts } from './columns.js';

const FONT = '11px system-ui, sans-serif';
export const COLORS = ['#2d6cdf', '#e0662d', '#2a9d5b', '#a63fc2', '#c29a1f', '#d1345b', '#3aa6b9', '#6b6b6b'];

/** Sizes a canvas to its CSS width (device pixels) and a CSS height; returns its cleared 2D context. */
export function setup(canvas: HTMLCanvasElement, cssHeight: number) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.parentElement?.clientWidth || 800;
  canvas.style.height = `${cssHeight}px`;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(cssHeight * dpr);
  const g = canvas.getContext('2d')!;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, cssHeight);
  g.font = FONT;
  return { g, w, h: cssHeight };
}

export const fmt = (v: number) => (Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(2) : +v.toFixed(3) + '');

function axes(g: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number, lo: number, hi: number, ticks = 4) {
  g.strokeStyle = '#c8ccd6';
  g.fillStyle = '#5a6270';
  g.beginPath();
  g.moveTo(x0, y0);
  g.lineTo(x0, y1);
  g.lineTo(x1, y1);
  g.stroke();
  g.textAlign = 'right';
  for (let i = 0; i <= ticks; i++) {
    const v = lo + ((hi - lo) * i) / ticks;
    const y = y1 - ((y1 - y0) * i) / ticks;
    g.fillText(fmt(v), x0 - 4, y + 4);
  }
}

export function isNumeric(t: DataType) {
  return DataType.isInt(t) || DataType.isFloat(t) || DataType.isDecimal(t);
}

/** A time-series chart of numeric columns against a time column. Drag to pick a time range. */
export class TimeChart {
  private range?: [number, number];
  private xs: Float64Array = new Float64Array();
  private plotted = false;
  /** Panels drawn last (one per device with `groupBy`), and the boxes of the text under them (for tests). */
  panels = 0;
  labels: { text: string; x: number; y: number; w: number }[] = [];
  onZoom?: (start: number, end: number) => void;

  constructor(private readonly canvas: HTMLCanvasElement) {
    let dragFrom: number | undefined;
    const xOf = (ev: MouseEvent) => ev.offsetX;
    canvas.addEventListener('mousedown', (ev) => (dragFrom = xOf(ev)));
    canvas.addEventListener('mouseup', (ev) => {
      if (dragFrom === undefined || !this.range || !this.plotted) return;
      const a = Math.min(dragFrom, xOf(ev));
      const b = Math.max(dragFrom, xOf(ev));
      dragFrom = undefined;
      if (b - a < 4) return;
      this.onZoom?.(this.timeAt(a), this.timeAt(b));
    });
  }

  private left = 56;
  private right = 12;

  /** The time under pixel x (ms since the epoch). */
  timeAt(x: number): number {
    const [t0, t1] = this.range!;
    const w = (this.canvas.clientWidth || 800) - this.left - this.right;
    return t0 + ((Math.min(Math.max(x, this.left), this.left + w) - this.left) / w) * (t1 - t0);
  }

  /**
   * Plots numeric columns against time; returns the names plotted. With `groupBy` columns
   * (TsFile tags: one device per combination) each device gets its own small panel with its
   * own value range, so devices of unrelated ranges stay readable; time is shared.
   */
  draw(table: Table, timeColumn: string, columns: string[], groupBy: string[] = []): string[] {
    const tcol = table.getChild(timeColumn);
    const names = columns.filter((c) => c !== timeColumn && table.getChild(c) && isNumeric(table.schema.fields.find((f) => f.name === c)!.type)).slice(0, COLORS.length);
    this.plotted = false;
    if (!tcol || !names.length || table.numRows < 1) {
      const { g } = setup(this.canvas, 60);
      g.fillStyle = '#5a6270';
      g.fillText('No numeric columns to plot against time for this selection.', 12, 20);
      return [];
    }
    const xs = (this.xs = doubles(tcol));
    let t0 = Infinity;
    let t1 = -Infinity;
    for (const x of xs) if (Number.isFinite(x)) (t0 = Math.min(t0, x)), (t1 = Math.max(t1, x));
    if (t1 === t0) t1 = t0 + 1;
    this.range = [t0, t1];
    const series = names.map((c) => numbers(table, c));
    const groups = rowGroups(table, groupBy.filter((c) => c !== timeColumn && table.getChild(c)));
    const shown = groups.slice(0, MAX_PANELS);
    const multi = shown.length > 1;
    const panelH = multi ? 92 : 180;
    // Lay out the text under the panels first (time labels, legend rows), to size the canvas.
    const m = this.canvas.getContext('2d')!;
    m.font = FONT;
    const cw = this.canvas.clientWidth || this.canvas.parentElement?.clientWidth || 800;
    const a = new Date(t0).toISOString().replace('.000Z', 'Z');
    const b = new Date(t1).toISOString().replace('.000Z', 'Z');
    const fits = m.measureText(a).width + m.measureText(b).width + 16 <= cw - this.left - this.right;
    let legendRows = 1;
    for (let x = this.left, k = 0; k < names.length; k++) {
      const lw = m.measureText(`■ ${names[k]}`).width + 14;
      if (x + lw > cw && x > this.left) (legendRows++, (x = this.left));
      x += lw;
    }
    const below = 18 + (fits ? 0 : 13) + legendRows * 14 + (groups.length > shown.length ? 16 : 0) + 8;
    const { g, w } = setup(this.canvas, shown.length * panelH + below);
    const L = this.left;
    const pw = w - L - this.right;
    shown.forEach((grp, p) => {
      const top = 8 + p * panelH + (multi ? 14 : 0);
      const bottom = 8 + (p + 1) * panelH - (multi ? 6 : 0);
      let lo = Infinity;
      let hi = -Infinity;
      for (const ys of series) for (const i of grp.rows) if (Number.isFinite(ys[i]!)) (lo = Math.min(lo, ys[i]!)), (hi = Math.max(hi, ys[i]!));
      if (!Number.isFinite(lo)) (lo = 0), (hi = 1);
      if (hi === lo) hi = lo + 1;
      axes(g, L, top, L + pw, bottom, lo, hi, multi ? 2 : 4);
      if (multi) {
        g.fillStyle = '#1d2430';
        g.textAlign = 'left';
        g.fillText(grp.label, L + 4, top - 3);
      }
      series.forEach((ys, k) => line(g, COLORS[k]!, xs, ys, grp.rows, t0, t1, L, pw, top, bottom, lo, hi));
    });
    // Time labels: both ends when they fit side by side, else the end on its own line.
    this.panels = shown.length;
    this.labels = [];
    const put = (text: string, x: number, y: number, align: CanvasTextAlign) => {
      g.textAlign = align;
      g.fillText(text, x, y);
      const w = g.measureText(text).width;
      this.labels.push({ text, x: align === 'right' ? x - w : x, y, w });
    };
    const dateY = 8 + shown.length * panelH + 12;
    g.fillStyle = '#5a6270';
    put(a, L, dateY, 'left');
    put(fits ? b : `→ ${b}`, L + pw, fits ? dateY : dateY + 13, 'right');
    // Legend: entries laid out by their measured width, wrapping within the canvas.
    let lx = L;
    let ly = dateY + (fits ? 16 : 29);
    names.forEach((name, k) => {
      const label = `■ ${name}`;
      const lw = g.measureText(label).width + 14;
      if (lx + lw > w && lx > L) (lx = L), (ly += 14);
      g.fillStyle = COLORS[k]!;
      put(label, lx, ly, 'left');
      lx += lw;
    });
    if (groups.length > shown.length) {
      g.fillStyle = '#5a6270';
      put(`first ${shown.length} of ${groups.length} devices shown; tick devices to choose`, L, ly + 16, 'left');
    }
    this.plotted = true;
    return names;
  }
}

/** Small multiples: at most this many device panels. */
const MAX_PANELS = 12;

/** A numeric column as doubles (nulls as NaN). */
function numbers(table: Table, name: string): Float64Array {
  return doubles(table.getChild(name)!);
}

/** Row indices per combination of the `by` columns' values, in order of appearance. */
function rowGroups(table: Table, by: string[]): { label: string; rows: number[] }[] {
  const all = { label: '', rows: Array.from({ length: table.numRows }, (_, i) => i) };
  if (!by.length) return [all];
  const cols = by.map((c) => texts(table.getChild(c)!));
  const map = new Map<string, number[]>();
  for (let i = 0; i < table.numRows; i++) {
    const key = cols.length === 1 ? cols[0]![i]! : cols.map((c) => c[i]!).join('.');
    let rows = map.get(key);
    if (!rows) map.set(key, (rows = []));
    rows.push(i);
  }
  return [...map].map(([label, rows]) => ({ label, rows }));
}

/** One series of one panel; min/max per pixel column keeps millions of points fast and faithful. */
function line(g: CanvasRenderingContext2D, color: string, xs: Float64Array, ys: Float64Array, rows: number[], t0: number, t1: number, L: number, pw: number, top: number, bottom: number, lo: number, hi: number) {
  g.strokeStyle = color;
  g.beginPath();
  let lastPx = -1;
  let mn = 0;
  let mx = 0;
  let fresh = true;
  const flush = () => {
    if (lastPx < 0) return;
    const yA = bottom - ((mn - lo) / (hi - lo)) * (bottom - top);
    const yB = bottom - ((mx - lo) / (hi - lo)) * (bottom - top);
    fresh ? g.moveTo(L + lastPx, yA) : g.lineTo(L + lastPx, yA);
    fresh = false;
    if (yA !== yB) g.lineTo(L + lastPx, yB);
  };
  for (const i of rows) {
    const y = ys[i]!;
    if (!Number.isFinite(y) || !Number.isFinite(xs[i]!)) continue;
    const px = Math.round(((xs[i]! - t0) / (t1 - t0)) * pw);
    if (px !== lastPx) {
      flush();
      // Time going back (another device in one panel) starts a new line.
      if (px < lastPx) fresh = true;
      lastPx = px;
      mn = mx = y;
    } else (mn = Math.min(mn, y)), (mx = Math.max(mx, y));
  }
  flush();
  g.stroke();
}

/** A plot of one numeric sequence (a VL cell) against its index. */
export function plotSequence(canvas: HTMLCanvasElement, ys: number[], title: string) {
  const { g, w, h } = setup(canvas, 180);
  let lo = Math.min(...ys.filter(Number.isFinite));
  let hi = Math.max(...ys.filter(Number.isFinite));
  if (!Number.isFinite(lo)) (lo = 0), (hi = 1);
  if (hi === lo) hi = lo + 1;
  const L = 56;
  const top = 18;
  const bottom = h - 20;
  const pw = w - L - 12;
  axes(g, L, top, L + pw, bottom, lo, hi);
  g.fillStyle = '#1d2430';
  g.textAlign = 'left';
  g.fillText(`${title} (${ys.length} values)`, L, 12);
  g.strokeStyle = COLORS[0]!;
  g.fillStyle = COLORS[0]!;
  g.beginPath();
  ys.forEach((y, i) => {
    const x = L + (ys.length === 1 ? 0 : (i / (ys.length - 1)) * pw);
    const yy = bottom - ((y - lo) / (hi - lo)) * (bottom - top);
    i ? g.lineTo(x, yy) : g.moveTo(x, yy);
  });
  g.stroke();
  if (ys.length <= 200) ys.forEach((y, i) => g.fillRect(L + (ys.length === 1 ? 0 : (i / (ys.length - 1)) * pw) - 1.5, bottom - ((y - lo) / (hi - lo)) * (bottom - top) - 1.5, 3, 3));
}

export interface Bar {
  group: string;
  series: string;
  value?: number;
  error?: string;
  /** Shown instead of a bar (e.g. an emulated run: no speed figure). */
  note?: string;
}

/** Horizontal grouped bars: one group per decoder, one bar per host (series). */
export function barChart(canvas: HTMLCanvasElement, bars: Bar[], unit: string) {
  const groups = [...new Set(bars.map((b) => b.group))];
  const series = [...new Set(bars.map((b) => b.series))];
  const barH = 16;
  const groupH = series.length * (barH + 2) + 12;
  const { g, w } = setup(canvas, Math.max(60, groups.length * groupH + 30 + series.length * 16));
  const L = 150;
  const pw = w - L - 90;
  const max = Math.max(1e-9, ...bars.map((b) => b.value ?? 0));
  groups.forEach((grp, gi) => {
    const y0 = 8 + gi * groupH;
    g.fillStyle = '#1d2430';
    g.textAlign = 'right';
    g.fillText(grp, L - 8, y0 + (series.length * (barH + 2)) / 2 + 4);
    series.forEach((s, si) => {
      const b = bars.find((x) => x.group === grp && x.series === s);
      const y = y0 + si * (barH + 2);
      g.textAlign = 'left';
      if (!b) return;
      if (b.note !== undefined) {
        g.fillStyle = '#6b6b6b';
        g.fillText(b.note, L + 4, y + 12);
        return;
      }
      if (b.error !== undefined || b.value === undefined) {
        g.fillStyle = '#b02a2a';
        g.fillText(`error: ${(b.error ?? 'no result').slice(0, 90)}`, L + 4, y + 12);
        return;
      }
      const len = Math.max(1, (b.value / max) * pw);
      g.fillStyle = COLORS[si % COLORS.length]!;
      g.fillRect(L, y, len, barH);
      g.fillStyle = '#1d2430';
      g.fillText(`${fmt(b.value)} ${unit}`, L + len + 4, y + 12);
    });
  });
  const ly = 8 + groups.length * groupH + 6;
  series.forEach((s, si) => {
    g.fillStyle = COLORS[si % COLORS.length]!;
    g.textAlign = 'left';
    g.fillText(`■ ${s}`, L, ly + si * 16 + 8);
  });
}
