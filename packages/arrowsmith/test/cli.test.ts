// The CLI, run as users run it (node dist/cli/main.js), on fixtures written by Python msgpack,
// the official TsFile writers and h5py; expected values come from their JSON dumps.
import { decode } from '@msgpack/msgpack';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './child.js';
import { FIXTURES } from './fixtures.js';

const cli = join(import.meta.dirname, '../dist/cli/main.js');
const records = join(FIXTURES, 'msgpack/py_records.msgpack');
const tsfile = join(FIXTURES, 'tsfile/cpp_plain_snappy.tsfile');
const h5 = join(FIXTURES, 'hdf5/vl_latest.h5');
const tmp = mkdtempSync(join(tmpdir(), 'arrowsmith-cli-'));

function run(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync('node', [cli, ...args], { encoding: 'utf8', env: cleanEnv() });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function file(name: string, bytes: Uint8Array | string): string {
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  return p;
}

/** The rows a `cat` printed: a header line of names, then cells in the names' columns. */
function grid(out: string, rows: number): Record<string, string>[] {
  const lines = out.trimEnd().split('\n').slice(-(rows + 1));
  const cols = [...lines[0]!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.slice(1).map((l) => Object.fromEntries(cols.map((c, i) => [c.name, l.slice(c.at, cols[i + 1]?.at).trim()])));
}

const iso = (ms: number) => new Date(ms).toISOString();
const isoDay = (days: number) => new Date(days * 86_400_000).toISOString().slice(0, 10);

// Each test spawns Node a few times: generous timeouts for a loaded machine.
describe('arrowsmith CLI', { timeout: 60_000 }, () => {
  it('cat prints the row count, the schema and the first rows', () => {
    const { status, out } = run('cat', records, '--rows', '3');
    expect(status).toBe(0);
    const rows = decode(readFileSync(records)) as Record<string, unknown>[];
    expect(out).toContain(`${rows.length} rows`);
    expect(out).toMatch(/id: Int32/);
    expect(out).toMatch(/name: Utf8/);
    grid(out, 3).forEach((cells, r) => {
      expect(cells.id).toBe(String(rows[r]!.id));
      expect(cells.name).toBe(rows[r]!.name);
    });
  });

  it('info gives the structure (layout, columns, null counts), cat the rows', () => {
    const rows = decode(readFileSync(records)) as Record<string, unknown>[];
    const { status, out } = run('info', records);
    expect(status).toBe(0);
    expect(out).toContain(`layout: one top-level array of ${rows.length} rows`);
    const names = Object.keys(rows[0]!);
    for (const n of names) {
      const nulls = rows.filter((r) => r[n] === null || r[n] === undefined).length;
      expect(out).toMatch(new RegExp(`^  ${n}: \\w+.*, ${nulls} nulls$`, 'm'));
    }
    expect(out).not.toContain(String(rows[0]!.name));
  });

  it('bench warms up and times every decoder on the file against its peers', () => {
    const { status, out } = run('bench', records, '--runs', '3');
    expect(status).toBe(0);
    expect(out).toContain('after warm-up');
    for (const name of ['arrowsmith simd', 'arrowsmith scalar', 'msgpackr', '@msgpack/msgpack']) expect(out).toMatch(new RegExp(`${name} +\\d+\\.\\d+ ms`));
  });

  it('bench compares HDF5 with h5wasm and jsfive, and exits 1 when a decoder fails', () => {
    const types = join(FIXTURES, 'hdf5/types_earliest.h5'); // jsfive reads the earliest file format only
    const want = JSON.parse(readFileSync(types.replace(/\.h5$/, '.json'), 'utf8')).datasets['/ck_deflate'].rows.length;
    const ok = run('bench', types, '/ck_deflate', '--runs', '2');
    expect(ok.status).toBe(0);
    for (const name of ['arrowsmith simd', 'arrowsmith scalar', 'h5wasm', 'jsfive']) expect(ok.out).toMatch(new RegExp(`${name} +\\d+\\.\\d+ ms.*, ${want} rows`));
    const bad = run('bench', types, '/nosuch', '--runs', '2');
    expect(bad.status).toBe(1);
    expect(bad.out).toMatch(/arrowsmith simd +failed/);
    expect(bad.err).toMatch(/failed/);
  });

  it('bench times TsFile reads and says there is no JavaScript peer', () => {
    const { status, out } = run('bench', tsfile, '--runs', '2');
    expect(status).toBe(0);
    expect(out).toMatch(/arrowsmith simd +\d+\.\d+ ms/);
    expect(out).toMatch(/no JavaScript TsFile reader/);
  });

  it('a corrupt MessagePack file is unrecognised; with --format msgpack its error states the offset once', () => {
    const corrupt = join(import.meta.dirname, 'data/corrupt.msgpack');
    const sniffed = run('cat', corrupt);
    expect(sniffed.status).toBe(1);
    expect(sniffed.err).toMatch(/unrecognised format/);
    const forced = run('cat', corrupt, '--format', 'msgpack');
    expect(forced.status).toBe(1);
    expect(forced.err).toMatch(/MessagePack decode error/);
    expect(forced.err.match(/byte 2\b/g)).toHaveLength(1);
  });

  it('an empty file, a text file and a PNG are unrecognised (exit 1), not decoded as MessagePack', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89]);
    for (const [cmd, p] of [['cat', file('empty.bin', '')], ['info', file('notes.txt', 'hello world\nthis is text, not data\n')], ['cat', file('pixel.png', png)]]) {
      const r = run(cmd!, p!);
      expect(r.status, `${cmd} ${p}`).toBe(1);
      expect(r.err).toMatch(/unrecognised format/);
      expect(r.out).toBe('');
    }
  });

  it('--format forces a format the bytes do not announce (a stream of scalars)', () => {
    const p = file('scalars.bin', Uint8Array.from([0x01, 0x02, 0xcd, 0x01, 0x00]));
    expect(run('cat', p).status).toBe(1);
    const r = run('cat', p, '--format', 'msgpack');
    expect(r.status).toBe(0);
    expect(r.out).toContain('3 rows');
    expect(grid(r.out, 3).map((c) => c.value)).toEqual(['1', '2', '256']);
  });

  it('finds an HDF5 file behind a user block (signature at 512)', () => {
    const ub = join(FIXTURES, 'hdf5/userblock_latest.h5');
    const want = JSON.parse(readFileSync(ub.replace(/\.h5$/, '.json'), 'utf8'));
    const r = run('info', file('userblock.data', readFileSync(ub)));
    expect(r.status).toBe(0);
    for (const path of Object.keys(want.datasets).filter((p) => p.split('/').length === 2)) expect(r.out).toContain(`${path.slice(1)}: dataset`);
  });

  it('--version prints the package version; unknown flags and misplaced options are rejected', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8'));
    const v = run('--version');
    expect([v.status, v.out.trim()]).toEqual([0, pkg.version]);
    const unknown = run('cat', records, '--bogus');
    expect(unknown.status).toBe(2);
    expect(unknown.err).toMatch(/unknown option '--bogus'/i);
    expect(unknown.out).toBe('');
    const misplaced = run('info', records, '--rows', '3');
    expect(misplaced.status).toBe(2);
    expect(misplaced.err).toMatch(/--rows is an option of cat/);
    expect(run('frobnicate', records).status).toBe(2);
  });

  it("info and cat read TsFile files: tables, devices, and rows (ISO times and dates) equal to the writer's values", () => {
    const want = JSON.parse(readFileSync(tsfile.replace(/\.tsfile$/, '.json'), 'utf8'));
    const info = run('info', tsfile).out;
    expect(info).toContain(`table ${want.table}: ${want.devices.length} devices`);
    for (const [name, type] of want.fields as [string, string][]) expect(info).toMatch(new RegExp(`${name}: ${type} FIELD`));
    const { status, out } = run('cat', tsfile, want.table, '--rows', '2');
    expect(status).toBe(0);
    expect(out).not.toContain('series:');
    const first = grid(out, 2)[0]!;
    const dev = want.devices[0].columns;
    expect(first.time).toBe(iso(dev.time[0]));
    expect(first.dt).toBe(dev.dt[0] === null ? 'null' : isoDay(dev.dt[0]));
    expect(first.ts).toBe(dev.ts[0] === null ? 'null' : iso(dev.ts[0]));
  });

  it('cat of a device the TsFile does not hold is not-found, exit 1, no byte offset', () => {
    const r = run('cat', tsfile, 'nosuchdevice');
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/"nosuchdevice" is not in the file/);
    expect(r.err).not.toMatch(/byte/);
    expect(r.out).toBe('');
  });

  it("info and cat read HDF5 files: the tree, and a dataset's rows equal to h5py's", () => {
    const want = JSON.parse(readFileSync(h5.replace(/\.h5$/, '.json'), 'utf8'));
    const info = run('info', h5).out;
    for (const path of Object.keys(want.datasets).filter((p) => p.split('/').length === 2)) expect(info).toContain(`${path.slice(1)}: dataset`);
    const out = run('cat', h5, '/vlseq_be', '--rows', '3').out.trimEnd().split('\n');
    expect(out.slice(-3).map((l) => JSON.parse(l))).toEqual(want.datasets['/vlseq_be'].rows.slice(0, 3));
    // Without a dataset, cat prints the rows of the first one, not the tree.
    const cat = run('cat', h5, '--rows', '2');
    expect(cat.status).toBe(0);
    expect(cat.out).toMatch(/^\S+: HDF5 \/\S+, /);
    expect(cat.out).toContain('schema:');
    expect(cat.out).not.toBe(info);
  });

  it('info and cat of an HDF5 file holding a dataset we cannot read show the rest and name what was skipped', () => {
    const mixed = join(FIXTURES, 'hdf5/browse_mixed.h5');
    const want = JSON.parse(readFileSync(mixed.replace(/\.h5$/, '.json'), 'utf8'));
    const info = run('info', mixed);
    expect(info.status).toBe(0);
    for (const path of Object.keys(want.datasets)) expect(info.out).toContain(`${path.split('/').pop()}: dataset`);
    expect(info.out).toMatch(/a_blosc2: dataset \(100\) int32le \[not readable: .*blosc2.*\]/);
    // cat without a dataset: the first readable one, the refused one before it named.
    const cat = run('cat', mixed, '--rows', '2');
    expect(cat.status).toBe(0);
    expect(cat.err).toMatch(/skipped \/grp\/a_blosc2 \(.*blosc2.*\)/);
    expect(cat.out).toMatch(/^\S+: HDF5 \/grp\/b_complex, 2 complex<float32le>/);
    expect(cat.out.trimEnd().split('\n').slice(-2).map((l) => JSON.parse(l))).toEqual(want.datasets['/grp/b_complex'].rows);
    // cat of the refused dataset: an unsupported error naming the filter, exit 1.
    const refused = run('cat', mixed, '/grp/a_blosc2');
    expect(refused.status).toBe(1);
    expect(refused.err).toMatch(/blosc2/);
  });
});
