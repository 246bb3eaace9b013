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
  const text = `# ${title}\n\n${intro}\n\nMachine: ${machine()}\nDate: ${new Date().toISOString().slice(0, 10)}\n\n${table}\n`;
  writeFileSync(path, text);
  return text;
}

export function mdTable(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
