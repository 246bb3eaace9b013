#!/usr/bin/env node
/**
 * `arrowsmith cat FILE [WHAT]`   schema and first rows (TsFile: a table or device; HDF5: a dataset)
 * `arrowsmith info FILE`         structure: TsFile tables/devices/series, HDF5 groups/datasets/attributes
 * `arrowsmith bench FILE [WHAT]` our time (SIMD and scalar) vs the JS peers on that file
 */
import type { Table } from 'apache-arrow';
import { readFile } from 'node:fs/promises';
import { DecodeError, decodeMsgpack, openHdf5, openTsFile, simdActive, type Hdf5File, type TsFile } from './node.js';
import { rowsText, schemaText } from './format.js';

const USAGE = `usage: arrowsmith <command> FILE [WHAT] [options]
  cat FILE [WHAT] [--rows N]   schema and the first N rows (default 10); WHAT is a TsFile table or
                               device path, or an HDF5 dataset path
  info FILE                    the file's structure (TsFile tables, devices, series; HDF5 tree)
  bench FILE [WHAT] [--runs N] time Arrowsmith (SIMD and scalar) against the JS peers
environment: ARROWSMITH_SIMD=0 forces the scalar build`;

function sniff(b: Uint8Array): 'tsfile' | 'hdf5' | 'msgpack' {
  const ascii = String.fromCharCode(...b.subarray(0, 8));
  if (ascii.startsWith('TsFile')) return 'tsfile';
  if (ascii === '\x89HDF\r\n\x1a\n') return 'hdf5';
  return 'msgpack';
}

function flag(args: string[], name: string, def: number): number {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v < 1) throw new Error(`${name} needs a positive number`);
  return v;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, file, ...rest] = argv;
  if (!cmd || cmd === '-h' || cmd === '--help' || !file) {
    console.log(USAGE);
    return cmd ? 0 : 2;
  }
  const bytes = new Uint8Array(await readFile(file));
  const format = sniff(bytes);
  const what = rest[0] && !rest[0].startsWith('--') ? rest[0] : undefined;
  const build = () => `${simdActive() ? 'SIMD' : 'scalar'} build`;
  const show = (label: string, t: Table) => {
    console.log(`${file}: ${label}, ${bytes.length} bytes, ${t.numRows} rows (${build()})`);
    console.log(`schema:\n${schemaText(t)}`);
    console.log(rowsText(t, flag(rest, '--rows', 10)));
  };
  if (cmd === 'cat' || cmd === 'info') {
    if (format === 'msgpack') {
      show('MessagePack', decodeMsgpack(bytes));
    } else if (format === 'tsfile') {
      const f = await openTsFile(bytes);
      if (cmd === 'info') console.log(await tsfileInfo(f));
      else show(`TsFile v${f.version}`, await f.read(tsfileQuery(f, what)));
    } else {
      const f = await openHdf5(bytes);
      if (cmd === 'info' || !what) console.log(await hdf5Tree(f, '/', ''));
      else show(`HDF5 ${what}`, await f.read(what, { count: flag(rest, '--rows', 10) }));
    }
    return 0;
  }
  if (cmd === 'bench') {
    const { benchFile } = await import('./bench-file.js');
    console.log(await benchFile(bytes, flag(rest, '--runs', 20), format, what));
    return 0;
  }
  console.error(`arrowsmith: unknown command '${cmd}'\n${USAGE}`);
  return 2;
}

/** A table name or a device path (tree model) → the query for `cat`. */
function tsfileQuery(f: TsFile, what?: string) {
  const tables = f.tables();
  if (what && tables.some((t) => t.name === what)) return { table: what };
  if (what) return { devices: [what] };
  return tables.length ? { table: tables[0]!.name } : { devices: [f.devices()[0]?.path ?? ''] };
}

async function tsfileInfo(f: TsFile): Promise<string> {
  const out = [`TsFile format v${f.version}`];
  for (const t of f.tables()) {
    out.push(`table ${t.name}: ${f.devices(t.name).length} devices`);
    for (const c of t.columns) out.push(`  ${c.name}: ${c.type} ${c.category}${c.encoding ? ` ${c.encoding}` : ''}${c.compression ? ` ${c.compression}` : ''}`);
  }
  const series = await f.timeseries();
  out.push(`${series.length} series:`);
  for (const s of series.slice(0, 50)) out.push(`  ${s.device}.${s.measurement}: ${s.type} ${s.encoding ?? ''} ${s.compression ?? ''}, ${s.count} points, ${s.chunks} chunks`);
  if (series.length > 50) out.push(`  … ${series.length - 50} more`);
  return out.join('\n');
}

async function hdf5Tree(f: Hdf5File, path: string, indent: string): Promise<string> {
  const lines: string[] = [];
  const attrs = await f.attrs(path).catch(() => ({}));
  for (const [k, v] of Object.entries(attrs)) lines.push(`${indent}@${k} = ${JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x))?.slice(0, 80)}`);
  for (const e of await f.list(path)) {
    const child = `${path === '/' ? '' : path}/${e.name}`;
    if (e.kind === 'group') {
      lines.push(`${indent}${e.name}/`);
      lines.push(await hdf5Tree(f, child, indent + '  '));
    } else {
      lines.push(`${indent}${e.name}: ${e.kind} ${e.shape.length ? `(${e.shape.join(' × ')}) ` : ''}${e.dtype}`);
    }
  }
  return lines.filter((l) => l !== '').join('\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof DecodeError) console.error(`arrowsmith: ${e.message}`);
    else console.error(`arrowsmith: ${(e as Error).message ?? e}`);
    process.exit(1);
  },
);
