#!/usr/bin/env node
/**
 * `arrowsmith cat FILE [WHAT]`   the rows: schema and the first rows (TsFile: a table or device; HDF5: a dataset)
 * `arrowsmith info FILE`         the structure: MessagePack layout and columns, TsFile tables/devices/series, HDF5 tree
 * `arrowsmith bench FILE [WHAT]` our time (SIMD and scalar) vs the JS peers on that file
 * The format comes from the file's magic bytes (sniff.ts) unless `--format` names it.
 */
import type { Table } from 'apache-arrow';
import { readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { columnsText, rowsText, schemaText } from './format.js';
import { DecodeError, decodeMsgpack, openHdf5, openTsFile, simdActive, type Hdf5File, type TsFile, type TsFileQuery } from '../node.js';
import { isMsgpackContainer, sniff, type Format } from '../formats/sniff.js';

const USAGE = `usage: arrowsmith <command> FILE [WHAT] [options]
commands:
  cat FILE [WHAT]    the rows: schema and the first rows. WHAT: a TsFile table or device path,
                     an HDF5 dataset path (default: the first table, device or dataset)
  info FILE          the structure: MessagePack layout and columns; TsFile tables, devices and
                     series; HDF5 groups, datasets and attributes
  bench FILE [WHAT]  time Arrowsmith (SIMD and scalar builds) against the JavaScript peers;
                     exit 1 when any of them fails to read the file
options:
  --format F         msgpack, tsfile or hdf5 (default: recognised from the file's bytes)
  --rows N           cat: rows to print (default 10)
  --runs N           bench: timed runs per decoder (default 20)
  -h, --help         this text
  -v, --version      the version
environment: ARROWSMITH_SIMD=0 forces the scalar build`;

const FORMATS: Record<Format, string> = { msgpack: 'MessagePack', tsfile: 'TsFile', hdf5: 'HDF5' };

/** A mistake in the command line: usage on stderr, exit 2. */
class UsageError extends Error {}
/** A file that is none of the formats: exit 1. */
class Unrecognised extends Error {}

function count(v: string | undefined, name: string, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} needs a positive whole number, not '${v}'`);
  return n;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (e) {
    // Node's wording ("Unknown option '--x'. To specify a positional argument…"), first sentence.
    throw new UsageError((e as Error).message.replace(/^Unknown/, 'unknown').replace(/\. .*$/s, ''));
  }
  const { values: o, positionals } = args;
  if (o.version || o.help) {
    console.log(o.version ? version() : USAGE);
    return 0;
  }
  const [cmd, file, what, ...extra] = positionals;
  if (!cmd) {
    console.error(USAGE);
    return 2;
  }
  if (!['cat', 'info', 'bench'].includes(cmd)) throw new UsageError(`unknown command '${cmd}'`);
  if (!file) throw new UsageError(`${cmd} needs a FILE`);
  if (extra.length > 0 || (cmd === 'info' && what !== undefined)) throw new UsageError(`unexpected argument '${extra[0] ?? what}'`);
  if (o.rows !== undefined && cmd !== 'cat') throw new UsageError(`--rows is an option of cat, not ${cmd}`);
  if (o.runs !== undefined && cmd !== 'bench') throw new UsageError(`--runs is an option of bench, not ${cmd}`);
  if (o.format !== undefined && !(o.format in FORMATS)) throw new UsageError(`--format must be msgpack, tsfile or hdf5, not '${o.format}'`);
  const rows = count(o.rows, 'rows', 10);
  const runs = count(o.runs, 'runs', 20);
  const format = (o.format as Format | undefined) ?? (await detect(file));

  if (cmd === 'bench') {
    const { benchFile } = await import('./bench-file.js');
    const bytes = new Uint8Array(await readFile(file));
    let target = what;
    if (format === 'hdf5' && !target) {
      await using f = await openHdf5(bytes);
      target = await firstDataset(f, '/');
      if (!target) throw new DecodeError('HDF5', undefined, 'not-found', 'the file holds no dataset');
    }
    const r = await benchFile(bytes, runs, format, target);
    console.log(r.text);
    if (r.failed.length) console.error(`arrowsmith: ${r.failed.join(', ')} failed on ${file}`);
    return r.failed.length ? 1 : 0;
  }
  const build = `${simdActive() ? 'SIMD' : 'scalar'} build`;
  if (format === 'msgpack') {
    if (what !== undefined) throw new UsageError(`a MessagePack file has no tables, devices or datasets to choose ('${what}')`);
    const bytes = new Uint8Array(await readFile(file));
    const t = decodeMsgpack(bytes);
    console.log(`${file}: MessagePack, ${bytes.length} bytes, ${t.numRows} rows (${build})`);
    if (cmd === 'info') console.log(`layout: ${msgpackLayout(bytes, t)}\ncolumns (${t.numCols}):\n${columnsText(t)}`);
    else show(t, rows);
    return 0;
  }
  if (format === 'tsfile') {
    await using f = await openTsFile(file);
    if (cmd === 'info') {
      console.log(await tsfileInfo(f));
      return 0;
    }
    const t = await f.read(tsfileQuery(f, what));
    console.log(`${file}: TsFile v${f.version}, ${t.numRows} rows (${build})`);
    show(t, rows);
    return 0;
  }
  await using f = await openHdf5(file);
  if (cmd === 'info') {
    console.log(await hdf5Tree(f, '/', ''));
    return 0;
  }
  const skipped: string[] = [];
  const path = what ?? (await firstDataset(f, '/', skipped));
  for (const s of skipped) console.error(`arrowsmith: skipped ${s}`);
  if (!path) throw new DecodeError('HDF5', undefined, skipped.length ? 'unsupported' : 'not-found', skipped.length ? 'the file holds no dataset this reader can read' : 'the file holds no dataset');
  const [info, t] = await Promise.all([f.info(path), f.read(path, { count: rows })]);
  console.log(`${file}: HDF5 ${path}, ${info.shape.length ? info.shape.join(' × ') : 'scalar'} ${info.dtype} (${build})`);
  show(t, rows);
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: 'string' },
      rows: { type: 'string' },
      runs: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

function show(t: Table, rows: number): void {
  console.log(`schema:\n${schemaText(t)}`);
  console.log(rowsText(t, rows));
}

/**
 * The file's format from its magic bytes, reading only those; a MessagePack candidate is
 * MessagePack only when the whole input decodes (a structural failure means it is not).
 */
async function detect(file: string): Promise<Format> {
  const fh = await open(file, 'r');
  let format: Format | undefined;
  let size = 0;
  try {
    size = (await fh.stat()).size;
    format = await sniff(size, async (offset, length) => {
      const b = new Uint8Array(length);
      const { bytesRead } = await fh.read(b, 0, length, offset);
      return b.subarray(0, bytesRead);
    });
  } finally {
    await fh.close();
  }
  if (format === 'msgpack') {
    try {
      decodeMsgpack(new Uint8Array(await readFile(file)));
    } catch (e) {
      // Broken structure: not MessagePack after all. A value that parses but has no Arrow
      // form (mixed kinds in a column, too deep) is MessagePack: its error is the answer.
      if (e instanceof DecodeError && ['truncated', 'invalid', 'out-of-bounds'].includes(e.code)) {
        throw new Unrecognised(`${file}: unrecognised format (${size} bytes; not TsFile or HDF5, and not MessagePack: ${e.message}); --format forces one`);
      }
    }
    return 'msgpack';
  }
  if (!format) {
    const what = size === 0 ? 'an empty file' : `${size} bytes starting ${hexHead(file)}`;
    throw new Unrecognised(`${file}: unrecognised format (${what}; not MessagePack, TsFile or HDF5); --format forces one`);
  }
  return format;
}

function hexHead(file: string): string {
  const b = readFileSync(file).subarray(0, 8);
  return Buffer.from(b).toString('hex').replace(/(..)/g, '$1 ').trim();
}

/** How the rows are laid out: one top-level array, one map, or a stream of values. */
function msgpackLayout(bytes: Uint8Array, t: Table): string {
  const b = bytes[0]!;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = b >= 0x90 && b <= 0x9f ? b & 0x0f : b === 0xdc ? dv.getUint16(1) : b === 0xdd ? dv.getUint32(1) : undefined;
  if (declared !== undefined && declared === t.numRows) return `one top-level array of ${declared} rows`;
  if (t.numRows === 1 && isMsgpackContainer(b)) return 'one top-level map (one row)';
  return `a stream of ${t.numRows} top-level values (one row each)`;
}

/** A table name or a device path (tree model) → the query for `cat`. */
function tsfileQuery(f: TsFile, what?: string): TsFileQuery {
  const tables = f.tables();
  if (what && tables.some((t) => t.name.toLowerCase() === what.toLowerCase())) return { table: what };
  if (what) return { devices: [what] };
  if (tables.length) return { table: tables[0]!.name };
  const first = f.devices()[0];
  return first ? { devices: [first.path] } : {};
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
  const attrs = await f.attrs(path).catch((e: Error) => {
    lines.push(`${indent}@ [attributes not readable: ${e.message}]`);
    return {};
  });
  for (const [k, v] of Object.entries(attrs)) lines.push(`${indent}@${k} = ${JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x))?.slice(0, 80)}`);
  for (const e of await f.list(path)) {
    const child = `${path === '/' ? '' : path}/${e.name}`;
    if (e.kind === 'group') {
      lines.push(`${indent}${e.name}/`);
      lines.push(await hdf5Tree(f, child, indent + '  '));
    } else {
      const why = e.unsupported ? ` [not readable: ${e.unsupported}]` : '';
      lines.push(`${indent}${e.name}: ${e.kind} ${e.shape.length ? `(${e.shape.join(' × ')}) ` : ''}${e.dtype}${why}`);
    }
  }
  return lines.filter((l) => l !== '').join('\n');
}

/** The first readable dataset in depth-first order, or undefined; the ones before it that
 * cannot be read are named in `skipped`. */
async function firstDataset(f: Hdf5File, path: string, skipped: string[] = []): Promise<string | undefined> {
  for (const e of await f.list(path)) {
    const child = `${path === '/' ? '' : path}/${e.name}`;
    if (e.kind === 'dataset' && e.unsupported) skipped.push(`${child} (${e.unsupported})`);
    else if (e.kind === 'dataset') return child;
    if (e.kind === 'group') {
      const d = await firstDataset(f, child, skipped);
      if (d) return d;
    }
  }
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof UsageError) {
      console.error(`arrowsmith: ${e.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(e instanceof DecodeError || e instanceof Unrecognised ? `arrowsmith: ${e.message}` : `arrowsmith: ${(e as Error).message ?? e}`);
    process.exit(1);
  },
);
