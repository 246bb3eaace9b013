/**
 * The cross-engine check's runtime entry (Node, Bun, Deno): digests every fixture with the
 * build asked for and writes them as JSON.
 *   <engine> digest-run.mjs --simd=0|1 --fixtures=DIR --out=FILE
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import * as arrowsmith from 'arrowsmith';
import { type Api, type Digest, digestAll, EXTENSIONS } from './digest.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const { simd } = await arrowsmith.init({ simd: args.simd !== '0', formats: ['msgpack', 'tsfile', 'hdf5'] });

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : EXTENSIONS.some((x) => e.name.endsWith(x)) ? [join(dir, e.name)] : []))
    .sort();
}

const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
const engine = g.Bun ? `Bun ${g.Bun.version}` : g.Deno ? `Deno ${g.Deno.version.deno}` : `Node ${process.version}`;
const list = files(args.fixtures!).map((p) => ({ name: relative(args.fixtures!, p), bytes: async () => new Uint8Array(readFileSync(p)) }));
const digest: Digest = { engine, arch: process.arch, simd, items: await digestAll(arrowsmith as unknown as Api, list) };
writeFileSync(args.out!, JSON.stringify(digest, null, 1));
console.log(`digest: ${Object.keys(digest.items).length} items, ${engine} ${process.arch}, ${simd ? 'SIMD' : 'scalar'} build`);
