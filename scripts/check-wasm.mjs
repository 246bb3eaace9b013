#!/usr/bin/env node
// CI guard: the scalar build must contain no v128 instruction (it is the fallback for
// engines without SIMD128), and the SIMD build must actually use SIMD.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dis = (v) =>
  execFileSync(join(root, 'node_modules/.bin/wasm-dis'), ['--all-features', join(root, `packages/arrowsmith/wasm/arrowsmith_${v}.wasm`)], {
    maxBuffer: 1 << 30,
  }).toString();
const count = (text) => (text.match(/v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2/g) ?? []).length;
const scalar = count(dis('scalar'));
const simd = count(dis('simd'));
console.log(`SIMD instructions: scalar build ${scalar}, simd build ${simd}`);
if (scalar !== 0) {
  console.error('FAIL: the scalar .wasm contains v128 instructions');
  process.exit(1);
}
if (simd === 0) {
  console.error('FAIL: the SIMD .wasm contains no v128 instruction (is +simd128 applied?)');
  process.exit(1);
}
