// Loading and build selection, each in a fresh Node process (module state is per process).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '../dist/node.js');
const wasmDir = join(import.meta.dirname, '../wasm');

function run(code: string, env: Record<string, string> = {}): unknown {
  const out = execFileSync('node', ['--input-type=module', '-e', `import * as a from ${JSON.stringify(dist)};\n${code}`], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.toString());
}

const DECODE = `const t = a.decodeMsgpack(new Uint8Array([0x93, 0x01, 0xd0, 0x80, 0xcd, 0x01, 0x00]));`;

describe('init and build selection (Node)', () => {
  it('loads on first use without init() and prefers SIMD', () => {
    expect(run(`${DECODE} console.log(JSON.stringify([a.simdActive(), Array.from(t.getChild('value').toArray())]))`)).toEqual([true, [1, -128, 256]]);
  });

  it('ARROWSMITH_SIMD=0 forces the scalar build, =1 the SIMD build', () => {
    expect(run(`${DECODE} console.log(JSON.stringify(a.simdActive()))`, { ARROWSMITH_SIMD: '0' })).toBe(false);
    expect(run(`${DECODE} console.log(JSON.stringify(a.simdActive()))`, { ARROWSMITH_SIMD: '1' })).toBe(true);
  });

  it('init({ simd: false }) picks the scalar build', () => {
    expect(run(`console.log(JSON.stringify(await a.init({ simd: false })))`)).toEqual({ simd: false });
  });

  it('init accepts bytes, a URL and a Response', () => {
    const scalar = JSON.stringify(join(wasmDir, 'arrowsmith_scalar.wasm'));
    const simd = JSON.stringify(join(wasmDir, 'arrowsmith_simd.wasm'));
    const fs = `const fs = await import('node:fs');`;
    expect(run(`${fs} const r = await a.init(fs.readFileSync(${scalar})); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`)).toEqual([false, 3]);
    expect(run(`const r = await a.init(new URL('file://' + ${simd})); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`)).toEqual([true, 3]);
    expect(
      run(`${fs} const r = await a.init(new Response(fs.readFileSync(${simd}), { headers: { 'content-type': 'application/wasm' } })); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`),
    ).toEqual([true, 3]);
  });
});
