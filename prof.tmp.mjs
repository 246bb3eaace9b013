import { createPool, openTsFile } from 'arrowsmith';
import { readFileSync } from 'node:fs';
const tf = readFileSync('target/bench-data/tsfile_A10.tsfile');
const pool = await createPool({ size: 2 });
const f = await openTsFile(tf, { pool });
for (let i = 0; i < 5; i++) { const s = performance.now(); await f.read(); console.log('total', (performance.now() - s).toFixed(1)); }
pool.close();
