#!/usr/bin/env node
// The names of what failed in this run of scripts/test.sh, read from test-output/: printed just
// before the summary line, so the end of a long log (all a CI excerpt may keep) says what failed.
// Prints nothing when nothing failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'test-output';
const out = [];
const ESC = String.fromCharCode(27);
const text = (f) => readFileSync(f, 'utf8').replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
for (const f of existsSync(dir) ? walk(dir).sort() : []) {
  const name = f.slice(dir.length + 1);
  if (f.endsWith('.json') && name.includes('vitest')) {
    try {
      for (const file of JSON.parse(readFileSync(f, 'utf8')).testResults ?? []) {
        for (const t of file.assertionResults ?? []) {
          if (t.status === 'failed') out.push(`${name}: ${file.name.replace(/.*\/test\//, 'test/')} > ${t.fullName}: ${(t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300)}`);
        }
        if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed')) out.push(`${name}: ${file.name}: ${String(file.message ?? 'failed to run').split('\n')[0].slice(0, 300)}`);
      }
    } catch {}
  } else if (f.endsWith('.log')) {
    const lines = text(f).split('\n');
    lines.forEach((l, i) => {
      // ✗ (browser, engines, consumers), MISMATCH / WRITER CRASH (differential), FAILED (pytest,
      // cargo), "gate failed" never reaches a log (gates print to the console: see test.sh).
      if (/^\s*✗ /.test(l) || /^MISMATCH /.test(l) || /^FAILED /.test(l) || /^test .* \.\.\. FAILED$/.test(l) || /^fuzz-smoke: .* [1-9][0-9]* failed/.test(l)) {
        out.push(`${name}: ${l.trim().slice(0, 300)}${/^\s*✗ /.test(l) && lines[i + 1]?.startsWith('      ') ? ` — ${lines[i + 1].trim().slice(0, 300)}` : ''}`);
      }
    });
  }
}
if (out.length) console.log(`failures (${out.length}):\n${[...new Set(out)].map((l) => `  ${l}`).join('\n')}`);
