#!/usr/bin/env node
/**
 * `arrowsmith cat FILE`   schema and first rows of a decoded file
 * `arrowsmith bench FILE` our decode time vs the JS peers on that file
 */
import { readFile } from 'node:fs/promises';
import { DecodeError, decodeMsgpack, simdActive } from './node.js';
import { rowsText, schemaText } from './format.js';

const USAGE = `usage: arrowsmith <command> FILE [options]
  cat FILE [--rows N]        print the schema and the first N rows (default 10)
  bench FILE [--runs N]      time Arrowsmith (SIMD and scalar) against msgpackr and @msgpack/msgpack
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
  if (format !== 'msgpack') {
    console.error(`arrowsmith: ${file} is a ${format} file; this version reads MessagePack only`);
    return 1;
  }
  if (cmd === 'cat') {
    const t = decodeMsgpack(bytes);
    console.log(`${file}: MessagePack, ${bytes.length} bytes, ${t.numRows} rows (${simdActive() ? 'SIMD' : 'scalar'} build)`);
    console.log(`schema:\n${schemaText(t)}`);
    console.log(rowsText(t, flag(rest, '--rows', 10)));
    return 0;
  }
  if (cmd === 'bench') {
    const { benchFile } = await import('./bench-file.js');
    console.log(await benchFile(bytes, flag(rest, '--runs', 20)));
    return 0;
  }
  console.error(`arrowsmith: unknown command '${cmd}'\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof DecodeError) console.error(`arrowsmith: ${e.message}`);
    else console.error(`arrowsmith: ${(e as Error).message ?? e}`);
    process.exit(1);
  },
);
