import { createPool, openHdf5 } from 'arrowsmith';
import { readFileSync } from 'node:fs';
const h = readFileSync('target/bench-data/bench_v0.h5');
const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
async function time(f, n = 40) { for (let i = 0; i < 5; i++) await f(); const t = []; for (let i = 0; i < n; i++) { const s = performance.now(); await f(); t.push(performance.now() - s); } return med(t).toFixed(2); }
const h0 = await openHdf5(h);
const p1 = await createPool({ size: 1 }); const p2 = await createPool({ size: 2 });
const a = await openHdf5(h, { pool: p1 }); const b = await openHdf5(h, { pool: p2 });
for (const ds of ['/str_contig', '/vint_contig', '/str_gzip']) console.log(ds, 'main', await time(() => h0.read(ds)), 'p1', await time(() => a.read(ds)), 'p2', await time(() => b.read(ds)));
p1.close(); p2.close();
