// Benchmark result sets: what the export writes and the import reads, their statistics, and
// the figures the table and chart show (absolute, or normalised per decoder across hosts).
import type { BenchResult } from './bench.js';
import type { HostInfo } from './host.js';
import type { FormatName } from './sniff.js';

export interface BenchSet {
  /** 2: with init and first-read (cold) figures; 1: warm figures only (still imported). */
  arrowsmithBench: 1 | 2;
  date: string;
  host: HostInfo;
  file: { name: string; size: number; format: FormatName };
  /** Warm runs per decoder (after the first read). */
  runs: number;
  results: BenchResult[];
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface Stats {
  median: number;
  min: number;
  max: number;
  /** Warm throughput (MB/s and rows/s at the median). */
  mbs: number;
  rowsPerSec: number;
  initMs?: number;
  firstMs?: number;
  /** First-read throughput, MB/s. */
  firstMbs?: number;
}

export function stats(r: BenchResult): Stats | undefined {
  if (r.error || !r.times.length) return undefined;
  const med = median(r.times);
  return {
    median: med,
    min: Math.min(...r.times),
    max: Math.max(...r.times),
    mbs: r.bytes / 1e6 / (med / 1000),
    rowsPerSec: r.rows / (med / 1000),
    initMs: r.initMs,
    firstMs: r.firstMs,
    firstMbs: r.firstMs === undefined ? undefined : r.bytes / 1e6 / (r.firstMs / 1000),
  };
}

/** A results file: one set or a list of sets. Throws when it is not an Arrowsmith export. */
export function parseSets(text: string): BenchSet[] {
  const json = JSON.parse(text) as unknown;
  const list = Array.isArray(json) ? json : [json];
  for (const s of list as BenchSet[]) {
    if ((s?.arrowsmithBench !== 1 && s?.arrowsmithBench !== 2) || !Array.isArray(s.results) || !s.host || !s.file) throw new Error('not an Arrowsmith benchmark export');
  }
  return list as BenchSet[];
}

export type Metric = 'mbs' | 'rows' | 'ms' | 'first' | 'rel' | 'rel-first';

export const METRIC_UNIT: Record<Metric, string> = { mbs: 'MB/s', rows: 'rows/s', ms: 'ms (warm median)', first: 'ms (first read)', rel: '× (warm)', 'rel-first': '× (first read)' };

/**
 * The chart's figure for one result. Relative metrics divide a host's throughput by the
 * first host's for the same decoder (per decoder, so files of different sizes compare).
 * Emulated runs have no speed figure.
 */
export function metricValue(set: BenchSet, r: BenchResult, metric: Metric, sets: BenchSet[]): number | undefined {
  if (set.host.emulated) return undefined;
  const st = stats(r);
  if (!st) return undefined;
  switch (metric) {
    case 'mbs':
      return st.mbs;
    case 'rows':
      return st.rowsPerSec;
    case 'ms':
      return st.median;
    case 'first':
      return st.firstMs;
    case 'rel':
    case 'rel-first': {
      const base = baseline(sets, r.decoder);
      const b = base && stats(base);
      const mine = metric === 'rel' ? st.mbs : st.firstMbs;
      const theirs = b && (metric === 'rel' ? b.mbs : b.firstMbs);
      return mine !== undefined && theirs ? mine / theirs : undefined;
    }
  }
}

/** The first non-emulated set's result for a decoder: what relative figures divide by. */
function baseline(sets: BenchSet[], decoder: string): BenchResult | undefined {
  for (const s of sets) {
    if (s.host.emulated) continue;
    const r = s.results.find((x) => x.decoder === decoder && stats(x));
    if (r) return r;
  }
  return undefined;
}
