// Instantiate each wasmcheck build and run its self-check; exit 1 on any disagreement.
import { readFileSync } from 'node:fs';
let failed = false;
for (const f of process.argv.slice(2)) {
  const { instance } = await WebAssembly.instantiate(readFileSync(f), {});
  const simd = instance.exports.simd_enabled();
  const result = instance.exports.check();
  console.log(`${f}: simd128=${simd} check=${result}`);
  if (result !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
