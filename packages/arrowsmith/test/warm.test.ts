// init({ warm: true }): idle-time reads of the built-in input (src/warm.ts), in fresh Node
// processes (module state is per process). The speed it buys is measured by the cold
// benchmarks (bench/results/cold.md), never asserted here.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './child.js';

const dist = join(import.meta.dirname, '../dist/node.js');
const FIX = JSON.stringify(join(import.meta.dirname, '../../../fixtures/tsfile/cpp_multipage_gorilla_lz4.tsfile'));

function run(code: string): unknown {
  const out = execFileSync('node', ['--input-type=module', '-e', `import * as a from ${JSON.stringify(dist)};\n${code}`], { env: cleanEnv({}) });
  return JSON.parse(out.toString());
}

describe('init({ warm: true })', { timeout: 120_000 }, () => {
  it('reads the built-in TsFile input in idle time, and reads after it are unchanged', () => {
    // A ref'd timer keeps the process up: the warm-up's own timers never do.
    const got = run(`const keep = setTimeout(() => {}, 60000); const text = (r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v));
      const bytes = (await import('node:fs')).readFileSync(${FIX});
      const cold = await a.openTsFile(bytes); const before = (await cold.read()).toArray().map(text); cold.close();
      const { warmed } = await a.init({ formats: ['tsfile'], warm: true });
      const reads = await warmed;
      const f = await a.openTsFile(bytes); const again = (await f.read()).toArray().map(text); f.close();
      clearTimeout(keep);
      console.log(JSON.stringify({ same: JSON.stringify(before) === JSON.stringify(again), rows: again.length, reads }))`) as { same: boolean; rows: number; reads: number };
    expect(got.same).toBe(true);
    expect(got.rows).toBeGreaterThan(0);
    expect(got.reads).toBe(12);
  });

  it('the built-in input holds what scripts/fixtures/tsfile/gen_warm.py writes', () => {
    // Values from the generator's formulas (the PyPI writer wrote them), row by row.
    const got = run(`const { builtInInput } = await import(${JSON.stringify(join(import.meta.dirname, '../dist/warm.js'))});
      const f = await a.openTsFile(await builtInInput('tsfile'));
      const t = await f.read(); f.close();
      const rows = t.toArray().map((r) => [Number(r.time), r.id1, Number(r.s1), r.s2, r.s3, r.s4, r.s5, r.s6]);
      console.log(JSON.stringify(rows))`) as [number, string, number, number, number, number, boolean, string | null][];
    expect(got).toHaveLength(2000);
    got.forEach(([time, id1, s1, s2, s3, s4, s5, s6], r) => {
      expect(time).toBe(1_700_000_000_000 + r * 1000);
      expect(id1).toBe('device00');
      expect(s1).toBe(r * 7 + (r % 13));
      expect(s2).toBeCloseTo(Math.sin(r / 50) * 100, 3);
      expect(s3).toBe((r % 97) / 4);
      expect(s4).toBe(((r * 31) % 1000) - 500);
      expect(s5).toBe(r % 3 === 0);
      expect(s6).toBe(r % 5 ? `s${r % 17}` : null);
    });
  });
});
