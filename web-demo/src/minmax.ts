// The per-pixel min/max downsample of a streamed series: each x pixel keeps the smallest and
// largest value that fell in it, so a one-sample spike still reaches its pixel. Batches are
// folded in and dropped: memory is a few arrays of the plot's width, whatever the series' length.
import { fmt, setup } from './charts.js';

/** Pixel p covers x in [x0 + p·span/width, x0 + (p+1)·span/width), span = x1 − x0 + 1 (x1 inclusive). */
export class MinMax {
  readonly min: Float64Array;
  readonly max: Float64Array;
  readonly count: Float64Array;
  private readonly span: number;

  constructor(
    readonly width: number,
    readonly x0: number,
    readonly x1: number,
  ) {
    this.min = new Float64Array(width).fill(Infinity);
    this.max = new Float64Array(width).fill(-Infinity);
    this.count = new Float64Array(width);
    this.span = x1 - x0 + 1;
  }

  /**
   * The pixel of x: floor((x − x0) · width / span), clamped. Exact for integers (the product
   * stays below 2^53, so the quotient rounds to the right side of every integer).
   */
  pixel(x: number): number {
    const p = Math.floor(((x - this.x0) * this.width) / this.span);
    return p < 0 ? 0 : p >= this.width ? this.width - 1 : p;
  }

  /** Folds values whose x are consecutive integers from `first` (row numbers). NaN is skipped. */
  addRows(first: number, ys: ArrayLike<number>, valid?: (i: number) => boolean): void {
    const { min, max, count, width } = this;
    // Rows of one pixel are a run: find where the pixel changes instead of dividing per row.
    let i = 0;
    while (i < ys.length) {
      const p = this.pixel(first + i);
      // The first row of pixel p + 1: ceil((p + 1) · span / width) + x0.
      const next = p + 1 >= width ? Infinity : Math.ceil(((p + 1) * this.span) / width) + this.x0;
      const end = Math.min(ys.length, Math.max(i + 1, next - first));
      let lo = min[p]!;
      let hi = max[p]!;
      let n = 0;
      for (let k = i; k < end; k++) {
        if (valid && !valid(k)) continue;
        const v = ys[k]!;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        if (!Number.isNaN(v)) n++;
      }
      min[p] = lo;
      max[p] = hi;
      count[p]! += n;
      i = end;
    }
  }

  /** Folds values at arbitrary x (times). */
  addPoints(xs: ArrayLike<number | bigint>, ys: ArrayLike<number>, valid?: (i: number) => boolean): void {
    const { min, max, count } = this;
    for (let k = 0; k < ys.length; k++) {
      if (valid && !valid(k)) continue;
      const v = ys[k]!;
      if (Number.isNaN(v)) continue;
      const p = this.pixel(Number(xs[k]!));
      if (v < min[p]!) min[p] = v;
      if (v > max[p]!) max[p] = v;
      count[p]!++;
    }
  }
}

/** Draws the downsample: one vertical line per pixel from its min to its max. */
export function drawMinMax(canvas: HTMLCanvasElement, m: { min: ArrayLike<number>; max: ArrayLike<number>; count: ArrayLike<number>; width: number }, margin: { left: number; right: number }, title: string): void {
  const { g, h } = setup(canvas, 220);
  let lo = Infinity;
  let hi = -Infinity;
  for (let p = 0; p < m.width; p++) {
    if (!m.count[p]) continue;
    lo = Math.min(lo, m.min[p]!);
    hi = Math.max(hi, m.max[p]!);
  }
  const top = 18;
  const bottom = h - 18;
  g.fillStyle = '#5a6270';
  g.fillText(title, margin.left, 12);
  if (!(hi >= lo)) return;
  const y = (v: number) => (hi === lo ? (top + bottom) / 2 : bottom - ((v - lo) / (hi - lo)) * (bottom - top));
  g.textAlign = 'right';
  g.fillText(fmt(hi), margin.left - 4, top + 4);
  g.fillText(fmt(lo), margin.left - 4, bottom + 4);
  g.strokeStyle = '#2d6cdf';
  g.lineWidth = 1;
  g.beginPath();
  for (let p = 0; p < m.width; p++) {
    if (!m.count[p]) continue;
    const x = margin.left + p + 0.5;
    g.moveTo(x, y(m.max[p]!));
    g.lineTo(x, y(m.min[p]!) + 1);
  }
  g.stroke();
}
