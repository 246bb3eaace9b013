#!/usr/bin/env node
// Keeps the docs a true map (issue #37): every repo path a doc names in backticks exists, and no
// doc dates a figure by a work period ("session 4", "this run") instead of a date or a case.
// No dependencies: `node scripts/check-docs.mjs [root]`; exit 1 with the faults listed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));

const docs = [
  'README.md',
  'packages/arrowsmith/README.md',
  ...['docs', 'bench/results'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${dir}/${f}`),
  ),
].filter((f) => existsSync(join(root, f)));

// A backticked span is taken for a repo path when it starts with one of the repo's top folders.
const TOP = /^(crates|packages|bench|scripts|docs|tests|fixtures|web-demo|\.github|\.ci)\//;
// Spans naming a family rather than one path: globs, placeholders, ellipses, alternatives.
const PATTERN = /[*?<>{}[\]…|$ ]|\.\.\./;

/** Diary wording: a figure is dated by its date and placed by its case, not by a work period. */
const DIARY = [
  /\bsessions?\b(?!Storage)/i,
  /\bthis run\b/i,
  /\bwork period/i,
  /\bstop \d+/i,
];
// Real phrases the words above would flag (none needed yet); matched against the whole line.
const ALLOW = [];

const crates = readdirSync(join(root, 'crates'));
/** The crate a doc is about (docs/hdf5.md, bench/results/msgpack-matrix.md), whose folder a
 * crate-relative path such as `tests/robustness.rs` is read against; else every crate's. */
const cratesOf = (doc) => {
  const name = doc.split('/').pop().replace(/[-.].*$/, '');
  return crates.includes(name) ? [name] : crates;
};
// A crate named on the same line (`crates/hdf5/tests/regressions/*` (`tests/regressions.rs`)) counts too.
const exists = (doc, line, path) =>
  existsSync(join(root, path)) ||
  [...cratesOf(doc), ...[...line.matchAll(/crates\/([\w-]+)\//g)].map((m) => m[1])].some((c) => existsSync(join(root, 'crates', c, path)));

const faults = [];
for (const doc of docs) {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n');
  lines.forEach((line, i) => {
    const at = `${doc}:${i + 1}`;
    for (const [, span] of line.matchAll(/`([^`\n]+)`/g)) {
      if (!TOP.test(span) || PATTERN.test(span)) continue;
      // `path:12`, `path#L3`, `path::item`, `path (…)` name a place inside the file.
      const path = span.replace(/(::|#|:\d).*$/, '').replace(/\/$/, '');
      if (!exists(doc, line, path)) faults.push(`${at}: no such path \`${path}\``);
    }
    if (ALLOW.some((re) => re.test(line))) return;
    for (const re of DIARY) {
      const m = re.exec(line);
      if (m) faults.push(`${at}: diary wording "${m[0]}" (name the date or the case instead)`);
    }
  });
}

if (faults.length) {
  console.error(`check-docs: ${faults.length} fault(s) in ${relative(process.cwd(), root) || '.'}:\n${faults.join('\n')}`);
  process.exit(1);
}
console.log(`check-docs: ${docs.length} docs, every backticked path exists, no diary wording`);
