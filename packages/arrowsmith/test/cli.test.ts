// The CLI, run as users run it (node dist/cli.js), on a corpus written by Python msgpack.
import { decode } from '@msgpack/msgpack';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = join(import.meta.dirname, '../dist/cli.js');
const records = join(import.meta.dirname, '../../../fixtures/msgpack/py_records.msgpack');

describe('arrowsmith CLI', () => {
  it('cat prints the row count, the schema and the first rows', () => {
    const out = execFileSync('node', [cli, 'cat', records, '--rows', '3']).toString();
    const rows = decode(readFileSync(records)) as Record<string, unknown>[];
    expect(out).toContain(`${rows.length} rows`);
    expect(out).toMatch(/id: Int32/);
    expect(out).toMatch(/name: Utf8/);
    const lines = out.trimEnd().split('\n');
    const header = lines.at(-4)!.split(/\s+/);
    for (let r = 0; r < 3; r++) {
      const cells = lines.at(-3 + r)!.split(/\s+/);
      expect(cells[header.indexOf('id')]).toBe(String(rows[r]!.id));
      expect(cells[header.indexOf('name')]).toBe(rows[r]!.name);
    }
  });

  it('bench times every decoder on the file', () => {
    const out = execFileSync('node', [cli, 'bench', records, '--runs', '3']).toString();
    for (const name of ['arrowsmith simd', 'arrowsmith scalar', 'msgpackr', '@msgpack/msgpack']) expect(out).toContain(name);
    expect(out).toMatch(/\d+\.\d+ ms/);
  });

  it('reports a corrupt file with its offset and a non-zero exit', () => {
    const r = spawnSync('node', [cli, 'cat', join(import.meta.dirname, 'data/corrupt.msgpack')]);
    expect(r.status).toBe(1);
    expect(r.stderr.toString()).toMatch(/MessagePack decode error at byte 2/);
  });

  it("info and cat read TsFile files: tables, devices, and rows equal to the writer's values", () => {
    const file = join(import.meta.dirname, '../../../fixtures/tsfile/cpp_plain_snappy.tsfile');
    const want = JSON.parse(readFileSync(file.replace(/\.tsfile$/, '.json'), 'utf8'));
    const info = execFileSync('node', [cli, 'info', file]).toString();
    expect(info).toContain(`table ${want.table}: ${want.devices.length} devices`);
    for (const [name, type] of want.fields as [string, string][]) expect(info).toMatch(new RegExp(`${name}: ${type} FIELD`));
    const out = execFileSync('node', [cli, 'cat', file, want.table, '--rows', '2']).toString();
    const lines = out.trimEnd().split('\n');
    const header = lines.at(-3)!.split(/\s+/);
    const first = lines.at(-2)!.split(/\s+/);
    expect(first[header.indexOf('time')]).toBe(String(want.devices[0].columns.time[0]));
  });

  it("info and cat read HDF5 files: the tree and a dataset's rows equal to h5py's", () => {
    const file = join(import.meta.dirname, '../../../fixtures/hdf5/vl_latest.h5');
    const want = JSON.parse(readFileSync(file.replace(/\.h5$/, '.json'), 'utf8'));
    const info = execFileSync('node', [cli, 'info', file]).toString();
    for (const path of Object.keys(want.datasets).filter((p) => p.split('/').length === 2)) expect(info).toContain(`${path.slice(1)}: dataset`);
    const out = execFileSync('node', [cli, 'cat', file, '/vlseq_be', '--rows', '3']).toString().trimEnd().split('\n');
    expect(out.slice(-3).map((l) => JSON.parse(l))).toEqual(want.datasets['/vlseq_be'].rows.slice(0, 3));
  });
});
