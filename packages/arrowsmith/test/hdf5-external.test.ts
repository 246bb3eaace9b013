// HDF5 external links (fixtures/hdf5/external, written by h5py; expected values read by h5py
// through main.h5, which libhdf5 follows to target.h5 and on to third.h5).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../src/errors.js';
import { openHdf5 } from '../src/node.js';
import { FIXTURES, parseExact } from './fixtures.js';
import { fileProblems } from './hdf5-compare.js';
import { MODES, usePools } from './pools.js';

const dir = join(FIXTURES, 'hdf5/external');
const bytes = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
/** main.json (scripts/fixtures/hdf5/gen_external.py). */
interface Expected {
  datasets: Record<string, { shape: number[]; rows: unknown[] }>;
  links: Record<string, [string, string]>;
  unresolved: Record<string, string>;
}
const json = parseExact(readFileSync(join(dir, 'main.json'), 'utf8')) as Expected;
const numbers = (p: string) => json.datasets[p]!.rows as number[];
const main = bytes('main.h5');

/** A resolver over the fixture folder that records what it was asked for. */
function folder(asked: string[] = []) {
  return (name: string) => {
    asked.push(name);
    return name === 'missing.h5' ? undefined : bytes(name);
  };
}

describe('HDF5 external links', () => {
  usePools();

  for (const { mode, options } of MODES) {
    it(`every dataset reached through a link equals h5py's read through main.h5 (${mode})`, async () => {
      const asked: string[] = [];
      await using f = await openHdf5(main, { ...options(), resolve: folder(asked) });
      expect(await fileProblems(f, json)).toEqual([]);
      // Each linked file is opened once, however many links lead to it.
      expect(asked.sort()).toEqual(['target.h5', 'third.h5']);
    });
  }

  it('the resolver gives any source kind: a path, a Blob, a promise', async () => {
    const sources = [(n: string) => join(dir, n), (n: string) => new Blob([bytes(n)]), async (n: string) => bytes(n)];
    for (const resolve of sources) {
      await using f = await openHdf5(main, { resolve });
      expect((await f.read('/ext_chain_group/vals')).getChild('vals')!.toArray()).toEqual(Uint16Array.from(numbers('/ext_chain_group/vals')));
    }
  });

  it('lists, infos, attributes and batches go through links; list shows where each link leads', async () => {
    await using f = await openHdf5(main, { resolve: folder() });
    const links = Object.fromEntries((await f.list('/')).filter((e) => e.kind === 'link').map((e) => [e.name, e.target]));
    for (const [p, [file, path]] of Object.entries(json.links)) {
      if (p.split('/').length === 2) expect(links[p.slice(1)]).toBe(`${file}:${path}`);
    }
    expect((await f.list('/ext_group')).map((e) => e.name).sort()).toEqual(['inner', 'sub']);
    expect((await f.info('/ext_data')).shape).toEqual(json.datasets['/ext_data']!.shape);
    expect(await f.attrs('/ext_group/sub/deep')).toEqual({});
    const rows: number[] = [];
    for await (const b of f.batches('/ext_group/sub/deep', { rows: 4 })) rows.push(...b.getChildAt(0)!.toArray());
    expect(rows).toEqual(numbers('/ext_group/sub/deep'));
  });

  it('without a resolver: unsupported, naming the link, the file and the path there', async () => {
    await using f = await openHdf5(main);
    const e = await f.read('/ext_group/inner').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DecodeError);
    expect((e as DecodeError).code).toBe('unsupported');
    expect((e as DecodeError).message).toContain('/ext_group: external link to target.h5:/grp/inner');
    // The file's own datasets read as before.
    expect([...(await f.read('/local')).getChild('local')!]).toEqual(numbers('/local').map(BigInt));
  });

  it('a file the resolver does not have is not-found, naming it', async () => {
    await using f = await openHdf5(main, { resolve: folder() });
    const e = await f.read('/ext_missing').catch((x: unknown) => x);
    expect((e as DecodeError).code).toBe('not-found');
    expect((e as DecodeError).message).toContain(json.unresolved['/ext_missing']);
  });

  it('a file linking to itself ends in too-deep (libhdf5 also gives up)', async () => {
    expect(json.unresolved['loop.h5:/self']).toBeTruthy();
    await using f = await openHdf5(bytes('loop.h5'), { resolve: folder() });
    const e = await f.read('/self').catch((x: unknown) => x);
    expect((e as DecodeError).code).toBe('too-deep');
  });
});
