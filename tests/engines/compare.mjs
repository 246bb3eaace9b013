// Compare digests (tests/engines/digest.ts) with the reference, x86-64 Node's SIMD build.
import { readFileSync } from 'node:fs';

function canon(v) {
  return JSON.stringify(v, Object.keys(v).sort());
}

/** Differences between two digests' items, as lines (empty when equal). */
export function differences(want, got) {
  const out = [];
  for (const k of new Set([...Object.keys(want.items), ...Object.keys(got.items)])) {
    const a = want.items[k];
    const b = got.items[k];
    if (!a) out.push(`${k}: only here`);
    else if (!b) out.push(`${k}: missing here`);
    else if (canon(a) !== canon(b)) out.push(`${k}: ${JSON.stringify(b)} != ${JSON.stringify(a)}`);
  }
  return out;
}

/** One check line per digest: "✓ name: N items equal x86-64 Node" or the first differences. */
export function report(name, want, got, log = console.log) {
  const diff = differences(want, got);
  const n = Object.keys(want.items).length;
  const decoded = Object.values(want.items).filter((i) => i.ipc).length;
  if (diff.length === 0) log(`  ✓ cross-check ${name}: ${n} digests (${decoded} tables) equal x86-64 Node's`);
  else log(`  ✗ cross-check ${name}: ${diff.length} of ${n} digests differ from x86-64 Node's\n      ${diff.slice(0, 5).join('\n      ')}`);
  return diff.length === 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ref, got, name] = process.argv.slice(2);
  process.exit(report(name ?? got, JSON.parse(readFileSync(ref, 'utf8')), JSON.parse(readFileSync(got, 'utf8'))) ? 0 : 1);
}
