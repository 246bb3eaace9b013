// Loading and build selection, each in a fresh Node process (module state is per process).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './child.js';

const dist = join(import.meta.dirname, '../dist/node.js');
const wasmDir = join(import.meta.dirname, '../wasm');

function run(code: string, env: Record<string, string> = {}): unknown {
  const out = execFileSync('node', ['--input-type=module', '-e', `import * as a from ${JSON.stringify(dist)};\n${code}`], {
    env: cleanEnv(env),
  });
  return JSON.parse(out.toString());
}

const DECODE = `const t = a.decodeMsgpack(new Uint8Array([0x93, 0x01, 0xd0, 0x80, 0xcd, 0x01, 0x00]));`;

// Each test spawns fresh Node processes that compile wasm: slow on a loaded machine, never timed.
describe('init and build selection (Node)', { timeout: 120_000 }, () => {
  it('loads on first use without init() and prefers SIMD', () => {
    expect(run(`${DECODE} console.log(JSON.stringify([a.simdActive(), Array.from(t.getChild('value').toArray())]))`)).toEqual([true, [1, -128, 256]]);
  });

  it('ARROWSMITH_SIMD=0 forces the scalar build, =1 the SIMD build', () => {
    expect(run(`${DECODE} console.log(JSON.stringify(a.simdActive()))`, { ARROWSMITH_SIMD: '0' })).toBe(false);
    expect(run(`${DECODE} console.log(JSON.stringify(a.simdActive()))`, { ARROWSMITH_SIMD: '1' })).toBe(true);
  });

  it('init({ simd: false }) picks the scalar build', () => {
    expect(run(`console.log(JSON.stringify((await a.init({ simd: false })).simd))`)).toBe(false);
  });

  it('loads one module per format, each on the first use of its format', () => {
    const FIX = JSON.stringify(join(import.meta.dirname, '../../../fixtures/hdf5/vl_latest.h5'));
    const got = run(`const m0 = a.memory(); ${DECODE} const m1 = a.memory();
      const f = await a.openHdf5((await import('node:fs')).readFileSync(${FIX})); const m2 = a.memory();
      console.log(JSON.stringify([m0, m1, m2, (await f.read('/vlstr_utf8')).numRows]))`) as [Record<string, number>, Record<string, number>, Record<string, number>, number];
    expect(got[0]).toEqual({ msgpack: 0, tsfile: 0, hdf5: 0 });
    expect(got[1].msgpack).toBeGreaterThan(0);
    expect([got[1].tsfile, got[1].hdf5]).toEqual([0, 0]);
    expect(got[2].hdf5).toBeGreaterThan(0);
    expect(got[2].tsfile).toBe(0);
    expect(got[3]).toBe(8);
  });

  it('init() loads the MessagePack module; init({ formats }) loads those', () => {
    expect(run(`await a.init(); console.log(JSON.stringify(Object.values(a.memory()).map((b) => b > 0)))`)).toEqual([true, false, false]);
    expect(run(`await a.init({ formats: ['tsfile', 'hdf5'] }); console.log(JSON.stringify(Object.values(a.memory()).map((b) => b > 0)))`)).toEqual([false, true, true]);
    expect(run(`try { await a.init({ formats: ['parquet'] }); } catch (e) { console.log(JSON.stringify(e.message)); }`)).toMatch(/unknown format "parquet"/);
  });

  it('init({ source }) takes each module from a function of format and build: bytes, a URL or a Response', () => {
    const fs = `const fs = await import('node:fs'); const dir = ${JSON.stringify(wasmDir)};`;
    // Bytes of the scalar build, whatever build was asked: the module says which it is.
    expect(run(`${fs} const asked = []; const r = await a.init({ source: (f, b) => (asked.push([f, b]), fs.readFileSync(dir + '/arrowsmith_' + f + '_scalar.wasm')) });
      ${DECODE} console.log(JSON.stringify([r.simd, asked, t.numRows]))`)).toEqual([false, [['msgpack', 'simd']], 3]);
    expect(run(`const r = await a.init({ source: (f, b) => new URL('file://' + ${JSON.stringify(wasmDir)} + '/arrowsmith_' + f + '_' + b + '.wasm') }); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`)).toEqual([true, 3]);
    expect(
      run(`${fs} const r = await a.init({ source: (f) => new Response(fs.readFileSync(dir + '/arrowsmith_' + f + '_simd.wasm'), { headers: { 'content-type': 'application/wasm' } }) }); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`),
    ).toEqual([true, 3]);
    // undefined: the package's own file.
    expect(run(`const r = await a.init({ simd: false, source: () => undefined }); ${DECODE} console.log(JSON.stringify([r.simd, t.numRows]))`)).toEqual([false, 3]);
  });

  it('init(bytes) is a TypeError that says what init takes', () => {
    expect(run(`try { await a.init(new Uint8Array(8)); } catch (e) { console.log(JSON.stringify([e.name, e.message])); }`)).toEqual([
      'TypeError',
      expect.stringMatching(/init\(\) takes options/),
    ]);
    expect(run(`try { await a.init(new Response('x')); } catch (e) { console.log(JSON.stringify(e.name)); }`)).toBe('TypeError');
  });

  it("reading bytes never loads Node's fetch (its first use compiles an HTTP parser)", () => {
    const FIX = JSON.stringify(join(import.meta.dirname, '../../../fixtures/hdf5/vl_latest.h5'));
    expect(
      run(`await a.init(); ${DECODE} const f = await a.openHdf5((await import('node:fs')).readFileSync(${FIX})); await f.read('/vlstr_utf8'); f.close();
        console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))))`),
    ).toEqual([]);
  });
});
