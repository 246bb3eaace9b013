// Locks the published shape of package.json (hyparquet-style): entries, exports, files.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

describe('package.json', () => {
  it('has the expected entry points', () => {
    expect(pkg.name).toBe('arrowsmith');
    expect(pkg.type).toBe('module');
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', node: './dist/node.js', default: './dist/index.js' });
    expect(Object.keys(pkg.exports)).toEqual(['.', './wasm/*.wasm', './pool-worker.js', './package.json']);
    expect(pkg.bin).toEqual({ arrowsmith: './dist/cli.js' });
    expect(pkg.dependencies).toEqual({ 'apache-arrow': '^21.0.0' });
    expect(pkg.files).toEqual(['dist', 'wasm/*.wasm', 'wasm/*.js', 'wasm/*.d.ts', 'README.md']);
  });

  it('points only at files the build produces', () => {
    const wasm = ['msgpack', 'tsfile', 'hdf5'].flatMap((f) => ['simd', 'scalar'].map((b) => pkg.exports['./wasm/*.wasm'].replace('*', `arrowsmith_${f}_${b}`)));
    const plain = Object.values(pkg.exports).filter((v) => typeof v === 'string' && !v.includes('*'));
    for (const target of [pkg.exports['.'].types, pkg.exports['.'].node, pkg.exports['.'].default, pkg.bin.arrowsmith, ...plain, ...wasm]) {
      expect(existsSync(join(dir, target as string)), target as string).toBe(true);
    }
  });

  it('the CLI starts with a shebang', () => {
    expect(readFileSync(join(dir, 'dist/cli.js'), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });
});
