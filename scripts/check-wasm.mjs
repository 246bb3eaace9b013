#!/usr/bin/env node
// CI guard: no scalar module contains a v128 instruction (they are the fallback for engines
// without SIMD128), and every SIMD module that has SIMD kernels uses them. One module per
// format and build: arrowsmith_<format>_<build>.wasm.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FORMATS = ['msgpack', 'tsfile', 'hdf5'];
const dis = (f, b) =>
  execFileSync(join(root, 'node_modules/.bin/wasm-dis'), ['--all-features', join(root, `packages/arrowsmith/wasm/arrowsmith_${f}_${b}.wasm`)], {
    maxBuffer: 1 << 30,
  }).toString();
const count = (text) => (text.match(/v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2/g) ?? []).length;
let ok = true;
for (const f of FORMATS) {
  const scalar = count(dis(f, 'scalar'));
  const simd = count(dis(f, 'simd'));
  console.log(`arrowsmith_${f}: SIMD instructions: scalar build ${scalar}, simd build ${simd}`);
  if (scalar !== 0) {
    console.error(`FAIL: arrowsmith_${f}_scalar.wasm contains v128 instructions`);
    ok = false;
  }
  if (simd === 0) {
    console.error(`FAIL: arrowsmith_${f}_simd.wasm contains no v128 instruction (is +simd128 applied?)`);
    ok = false;
  }
}
process.exit(ok ? 0 : 1);
