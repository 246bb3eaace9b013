/**
 * How TsFile reads are cut: a query into device jobs (time slices of the devices when they
 * are fewer than twice the workers), a device into time windows of about `rows` rows each.
 */
import { checkAborted } from '../../io/abort.js';
import type { FileRef, Given, Job } from '../../pool/protocol.js';
import type { TimeValue } from '../../types.js';
import { toBig, type JobQuery, type TsReads } from './core.js';
import { selection } from './select.js';

/** A pool job reading one device of a query (optionally a time slice of it). */
export function deviceJob(file: FileRef, q: JobQuery, device: string, start = q.start, end = q.end, given?: Given<Uint8Array>): Job {
  const { signal: _, limit: __, ...query } = q;
  return { kind: 'tsfile', file, query: { ...query, devices: [device], start, end }, given };
}

/**
 * Parallel jobs for a query on `f`'s pool: one per device, or time slices of the devices
 * when they are fewer than twice the workers. Undefined when one thread should read it (a
 * limit, an ambiguous table, an unknown tag or device: the single-thread path gives the
 * answer or error).
 */
export async function queryJobs(f: TsReads, q: JobQuery): Promise<Job[] | undefined> {
  q = { ...q, maxReadBytes: f.core.readLimit(q.maxReadBytes) };
  const { pool, ref } = f.core.pooled!;
  if (q.limit !== undefined) return undefined;
  const devices = selection(f.tables(), f.devices(), q)?.devices;
  if (!devices) return undefined;
  const perDevice = Math.ceil((2 * pool.size) / devices.length);
  const jobs: Job[] = [];
  const qs = toBig(q.start);
  const qe = toBig(q.end);
  for (const d of devices) {
    checkAborted(q.signal);
    const span = perDevice > 1 ? await f.span(d) : undefined;
    const start = span?.length ? (qs !== undefined && qs > span[0]! ? qs : span[0]!) : 0n;
    const end = span?.length ? (qe !== undefined && qe < span[1]! ? qe : span[1]!) : -1n;
    if (!span?.length || end - start < BigInt(perDevice)) {
      jobs.push(deviceJob(ref, q, d));
      continue;
    }
    // Equal time slices (inclusive bounds, no gaps: times are integers).
    const width = (end - start + 1n) / BigInt(perDevice);
    for (let i = 0; i < perDevice; i++) {
      const a = i === 0 ? q.start : start + BigInt(i) * width;
      const b = i === perDevice - 1 ? q.end : start + BigInt(i + 1) * width - 1n;
      jobs.push(deviceJob(ref, q, d, a, b));
    }
  }
  return jobs;
}

/** A time window: inclusive bounds, `undefined` open. */
export type Window = [TimeValue | undefined, TimeValue | undefined];

/**
 * A device's time windows of about `rows` rows each, from its index span (inclusive
 * bounds within the query's start/end). One window (the query's own range) when the span
 * is unknown or small.
 */
export async function windows(f: TsReads, device: string, q: { start?: TimeValue; end?: TimeValue }, rows: number): Promise<Window[]> {
  const whole: Window[] = [[q.start, q.end]];
  let span: BigInt64Array;
  try {
    span = await f.span(device);
  } catch {
    return whole; // an unknown device: the read names it
  }
  if (span.length < 3 || span[2]! <= BigInt(rows)) return whole;
  const qs = toBig(q.start);
  const qe = toBig(q.end);
  const start = qs !== undefined && qs > span[0]! ? qs : span[0]!;
  const end = qe !== undefined && qe < span[1]! ? qe : span[1]!;
  if (end < start) return whole;
  const n = (span[2]! + BigInt(rows) - 1n) / BigInt(rows);
  const width = (end - start + 1n + n - 1n) / n;
  const out: Window[] = [];
  for (let a = start; a <= end; a += width) {
    const b = a + width - 1n < end ? a + width - 1n : end;
    out.push([a === start ? q.start : a, b === end ? q.end : b]);
  }
  return out;
}
