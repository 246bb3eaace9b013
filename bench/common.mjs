// Shared bits of the benchmarks: the machine description, medians, and the results file.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

export function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    cpu = execSync("lscpu | sed -n 's/^Model name: *//p'").toString().trim() || cpu;
  } catch {}
  return `${cpu}, ${os.cpus().length} logical cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.arch()} ${os.platform()}, Node ${process.version}`;
}

/** Median of a tinybench task's samples in ms. */
export function median(task) {
  const r = task.result;
  if (!r || r.error || r.state === 'errored') return NaN;
  if (r.latency?.p50 !== undefined) return r.latency.p50;
  return medianOf(r.samples ?? []);
}

/** Median of numbers (the mean of the middle two for an even count). */
export function medianOf(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function writeResults(path, title, intro, table) {
  return writeReport(path, { title, intro, sections: [{ text: table }] });
}

/**
 * A results file: title, intro, the machine (plus `machineExtra`: browser, peers' versions,
 * the load while it ran), then each section (an optional `## title` and its text).
 */
export function writeReport(path, { title, intro, machineExtra = [], sections }) {
  const head = [`# ${title}`, intro, [`Machine: ${machine()}`, ...machineExtra, `Date: ${new Date().toISOString().slice(0, 10)}`].join('\n')];
  const body = sections.map((s) => (s.title ? `## ${s.title}\n\n${s.text}` : s.text));
  const text = [...head, ...body].join('\n\n') + '\n';
  writeFileSync(path, text);
  return text;
}

export function mdTable(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
