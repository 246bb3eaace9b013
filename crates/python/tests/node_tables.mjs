// The Node package's reading of every fixture, for the wheel's cross-check
// (test_cross_check.py): each table (a MessagePack file, a TsFile table, an HDF5 dataset)
// written as an Arrow IPC file, and an index of them with row counts or the DecodeError.
//   node crates/python/tests/node_tables.mjs FIXTURES OUT
// The walk is the engine matrix's (tests/engines/digest.ts), which holds every engine and
// browser to x86-64 Node's values; this holds the wheel to them too.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tableToIPC } from 'apache-arrow';
import * as arrowsmith from 'arrowsmith';

const [fixtures, out] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
await arrowsmith.init({ formats: ['msgpack', 'tsfile', 'hdf5'] });
const EXT = ['.msgpack', '.tsfile', '.h5'];
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : EXT.some((x) => e.name.endsWith(x)) ? [join(dir, e.name)] : []))
    .sort();

const index = {};
let n = 0;
async function item(key, read) {
  try {
    const t = await read();
    const file = `${n++}.arrow`;
    writeFileSync(join(out, file), tableToIPC(t, 'file'));
    index[key] = { file, rows: t.numRows };
  } catch (e) {
    index[key] = e?.name === 'DecodeError' ? { error: [e.format, e.code, e.offset] } : { error: [e?.name ?? 'Error', String(e?.message ?? e)] };
  }
}

async function withFile(key, open, use) {
  let f;
  try {
    f = await open();
  } catch (e) {
    return item(key, () => Promise.reject(e));
  }
  try {
    await use(f);
  } finally {
    f.close();
  }
}

for (const path of files(fixtures)) {
  const name = relative(fixtures, path);
  const bytes = new Uint8Array(readFileSync(path));
  if (name.endsWith('.msgpack')) await item(name, () => arrowsmith.decodeMsgpack(bytes));
  else if (name.endsWith('.tsfile')) {
    await withFile(name, () => arrowsmith.openTsFile(bytes), async (f) => {
      const tables = f.tables();
      if (!tables.length) await item(`${name}:*`, () => f.read());
      for (const t of tables) await item(`${name}:${t.name}`, () => f.read({ table: t.name }));
    });
  } else {
    await withFile(name, () => arrowsmith.openHdf5(bytes), async (f) => {
      const walk = async (p, depth) => {
        for (const e of await f.list(p)) {
          const q = p === '/' ? `/${e.name}` : `${p}/${e.name}`;
          if (e.kind === 'group' && depth < 16) await walk(q, depth + 1);
          else if (e.kind === 'dataset') await item(`${name}:${q}`, () => f.read(q));
        }
      };
      await walk('/', 0);
    });
  }
}
writeFileSync(join(out, 'index.json'), JSON.stringify(index));
console.log(`${Object.keys(index).length} tables or errors`);
