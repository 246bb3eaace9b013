import { openTsFile } from 'arrowsmith';
import { toRecordBatch } from './packages/arrowsmith/dist/arrow.js';
import { current } from './packages/arrowsmith/dist/wasm.js';
import { readFileSync } from 'node:fs';
const tf = readFileSync('target/bench-data/tsfile_A10.tsfile');
const f = await openTsFile(tf);
for (let i = 0; i < 4; i++) {
  const s = performance.now(); const h = await f.readHandle({}); const t1 = performance.now();
  const b = toRecordBatch(current(), h, true); h.free(); const t2 = performance.now();
  console.log('read', (t1 - s).toFixed(1), 'copyout', (t2 - t1).toFixed(1), 'mem', current().memory.buffer.byteLength >> 20);
}
for (let i = 0; i < 3; i++) {
  const s = performance.now(); let n = 0;
  for (const d of f.devices()) { const h = await f.readHandle({ devices: [d.path] }); n += h.numRows(); h.free(); }
  console.log('per-device reads', (performance.now() - s).toFixed(1), n);
}
