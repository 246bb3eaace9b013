// Locks the published shape of package.json (hyparquet-style): entries, exports, files.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

describe('package.json', () => {
  it('has the expected entry points', () => {
    expect(pkg.name).toBe('arrowsmith');
    expect(pkg.type).toBe('module');
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', node: './dist/node.js', default: './dist/index.js' });
    expect(pkg.exports['./esbuild']).toEqual({ types: './dist/esbuild.d.ts', default: './dist/esbuild.js' });
    expect(pkg.exports['./duckdb']).toEqual({ types: './dist/duckdb.d.ts', default: './dist/duckdb.js' });
    expect(pkg.exports['./flechette']).toEqual({ types: './dist/flechette.d.ts', default: './dist/flechette.js' });
    expect(pkg.exports['./h5web']).toEqual({ types: './dist/h5web/index.d.ts', node: './dist/h5web/node.js', default: './dist/h5web/index.js' });
    expect(Object.keys(pkg.exports)).toEqual(['.', './esbuild', './duckdb', './flechette', './h5web', './wasm/*.wasm', './pool-worker.js', './package.json']);
    expect(pkg.bin).toEqual({ arrowsmith: './dist/cli/main.js' });
    // One Arrow: the app's own (tests/consumers checks the oldest and newest of the range).
    expect(pkg.dependencies).toBeUndefined();
    // The integrations' libraries are optional: only their own entries name them.
    expect(pkg.peerDependencies).toEqual({ 'apache-arrow': '>=15.0.0 <22', '@duckdb/duckdb-wasm': '>=1.32.0 <2', '@uwdata/flechette': '>=2.6.0 <3', '@h5web/app': '>=17.0.0 <18' });
    expect(pkg.peerDependenciesMeta).toEqual({ '@duckdb/duckdb-wasm': { optional: true }, '@uwdata/flechette': { optional: true }, '@h5web/app': { optional: true } });
    // React is @h5web/app's peer, not ours: a React 19 app installs arrowsmith without conflict.
    expect(pkg.peerDependencies.react).toBeUndefined();
    // What tests/consumers runs: Node 20.20 (this machine) and 22.12.0 (the oldest 22 with require(esm)).
    expect(pkg.engines).toEqual({ node: '^20.19.0 || >=22.12.0' });
    expect(pkg.files).toEqual(['dist', 'wasm/*.wasm', 'wasm/*.js', 'README.md', 'LICENSE']);
    expect(pkg.license).toBe('Apache-2.0');
    for (const k of ['repository', 'homepage', 'bugs', 'keywords', 'description']) expect(pkg[k], k).toBeTruthy();
  });

  it('points only at files the build produces', () => {
    const wasm = ['msgpack', 'tsfile', 'hdf5'].flatMap((f) => ['simd', 'scalar'].map((b) => pkg.exports['./wasm/*.wasm'].replace('*', `arrowsmith_${f}_${b}`)));
    const plain = Object.values(pkg.exports).filter((v) => typeof v === 'string' && !v.includes('*'));
    for (const target of [pkg.exports['.'].types, pkg.exports['.'].node, pkg.exports['.'].default, pkg.bin.arrowsmith, ...plain, ...wasm]) {
      expect(existsSync(join(dir, target as string)), target as string).toBe(true);
    }
  });

  it('the tarball holds exactly: the build of every source module, the six wasm modules and their three glues, README, LICENSE', { timeout: 60_000 }, () => {
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir }).toString())[0];
    const files = (packed.files as { path: string }[]).map((f) => f.path).sort();
    const sources = (d: string): string[] =>
      readdirSync(join(dir, 'src', d), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name.slice(0, -3))] : []));
    const want = [
      'LICENSE',
      'README.md',
      'package.json',
      ...sources('').flatMap((m) => [`dist/${m}.js`, `dist/${m}.d.ts`]),
      ...['msgpack', 'tsfile', 'hdf5'].flatMap((f) => [`wasm/arrowsmith_${f}.js`, `wasm/arrowsmith_${f}_simd.wasm`, `wasm/arrowsmith_${f}_scalar.wasm`]),
    ].sort();
    expect(files).toEqual(want);
    // The license is the repository's.
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(dir, '../../LICENSE'), 'utf8'));
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
  });

  it('the main entries never load the integrations or their libraries', () => {
    // Every module dist/index.js and dist/node.js load (relative imports followed).
    const reach = (entries: string[]) => {
      const seen = new Set<string>();
      const todo = [...entries];
      while (todo.length) {
        const f = todo.pop()!;
        if (seen.has(f)) continue;
        seen.add(f);
        for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+\.js)'/g)) todo.push(join(dirname(f), m[1]!));
      }
      return seen;
    };
    const main = reach(['dist/index.js', 'dist/node.js']);
    expect(main).toContain('dist/formats/hdf5/file.js');
    for (const f of main) {
      expect(f).not.toMatch(/duckdb|flechette|arrow-ipc|h5web/);
      expect(readFileSync(join(dir, f), 'utf8'), f).not.toMatch(/@duckdb\/|@uwdata\/|apache-arrow\/ipc|@h5web\/|'react'/);
    }
    // The integrations' own entries do reach them (the check above can fail).
    expect([...reach(['dist/duckdb.js'])]).toEqual(expect.arrayContaining(['dist/duckdb.js', 'dist/arrow/duckdb-types.js', 'dist/arrow/ipc.js']));
    expect(readFileSync(join(dir, 'dist/flechette.js'), 'utf8')).toMatch(/from '@uwdata\/flechette'/);
    const h5web = reach(['dist/h5web/index.js']);
    expect(h5web).toContain('dist/formats/hdf5/file.js');
    expect([...h5web].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n')).toMatch(/from '@h5web\/app'[\s\S]*from 'react'|from 'react'[\s\S]*from '@h5web\/app'/);
    // The Node flavour adds the Node entry's loading and nothing else.
    expect(reach(['dist/h5web/node.js'])).toContain('dist/node.js');
  });

  it('the published types, as far as the entry points reach, hold no internals', () => {
    // Every .d.ts a consumer's compiler reads from the two entries (relative imports followed).
    const seen = new Set<string>();
    const todo = ['dist/index.d.ts', 'dist/esbuild.d.ts', 'dist/duckdb.d.ts', 'dist/flechette.d.ts', 'dist/h5web/index.d.ts'];
    while (todo.length) {
      const f = todo.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/from '(\.[^']+)\.js'|import\('(\.[^']+)\.js'\)/g)) {
        todo.push(join(dirname(f), `${m[1] ?? m[2]}.d.ts`));
      }
    }
    expect(seen).toContain('dist/formats/hdf5/file.d.ts');
    expect(seen).toContain('dist/file/reader.d.ts');
    for (const f of seen) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/@internal/);
      const dts = text.replace(/\/\*[\s\S]*?\*\//g, '');
      // No module instances, wasm-bindgen glue, WebAssembly types (they need the DOM lib), wasm
      // readers, internal members, or the generic machinery of the file classes.
      expect(dts, f).not.toMatch(/\bLoaded\b|\bGlues?\b|WebAssembly\.|\bWasmModule\b|arrowsmith_\w+\.js|\bWasm\w*Reader\b|\bByteHost\b|\bSupplyTarget\b|\bPrepared\b|FileReaderBase</);
      expect(dts, f).not.toMatch(/^\s*(private|protected) /m);
    }
    // What a file class shows: its own methods over close() and the dispose members.
    const base = readFileSync(join(dir, 'dist/file/reader.d.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(base.match(/export declare class FileReaderBase \{([^}]*)\}/)?.[1]?.split('\n').map((l) => l.trim()).filter(Boolean)).toEqual([
      '#private;',
      'close(): Promise<void>;',
      '[Symbol.dispose](): void;',
      '[Symbol.asyncDispose](): Promise<void>;',
    ]);
  });

  it('pools and files type-check with `using` in a program without esnext.disposable and without @types/node', { timeout: 120_000 }, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'arrowsmith-dispose-'));
    try {
      writeFileSync(
        join(tmp, 'use.ts'),
        `import type { Pool } from ${JSON.stringify(join(dir, 'dist/pool/pool.js'))};
import type { FileReaderBase } from ${JSON.stringify(join(dir, 'dist/file/reader.js'))};
export async function use(pool: Pool, file: FileReaderBase): Promise<void> {
  using p = pool;
  await using f = file;
  void p;
  void f;
}
`,
      );
      const options = { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [], strict: true, noEmit: true, skipLibCheck: false };
      writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['use.ts'] }));
      const tsc = join(dir, '../../node_modules/.bin/tsc');
      let out: string;
      try {
        out = execFileSync(tsc, ['-p', tmp, '--listFiles'], { cwd: tmp }).toString();
      } catch (e) {
        throw new Error(`tsc: ${(e as { stdout?: Buffer }).stdout?.toString()}`);
      }
      // Passing through @types/node (which declares Symbol.dispose) would prove nothing.
      expect(out).not.toMatch(/@types\/node/);
      expect(out).toMatch(/lib\.esnext\.disposable\.d\.ts/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the CLI starts with a shebang', () => {
    expect(readFileSync(join(dir, 'dist/cli/main.js'), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });
});
