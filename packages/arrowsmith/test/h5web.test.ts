// The h5web provider against h5web's own h5wasm provider on every HDF5 fixture (see
// h5web-diff.ts): equal entities, attribute values, values and N-D selections, except the
// differences docs/h5web.md documents, each with its reason.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the vendored reference is plain JavaScript
import { createReference } from '../../../tests/vendor/h5web-h5wasm/api.mjs';
import { ArrowsmithApi } from '../src/h5web/node.js';
import { FIXTURES } from './fixtures.js';
import { compareFile, type Diff, type RefApi } from './h5web-diff.js';
import { explain } from './h5web-reasons.js';

/** h5wasm's Node build, imported afresh for each file (a URL with a query is a new module instance). */
const H5WASM = pathToFileURL(join(import.meta.dirname, '../../../node_modules/h5wasm/dist/node/hdf5_hl.js')).href;
let instances = 0;
const freshReference = async (): Promise<RefApi> => createReference(await import(`${H5WASM}?instance=${++instances}`)) as RefApi;

/**
 * h5wasm's Node build works on the real file system: the reference writes each file it opens
 * to /tmp (see scripts/vendor/h5web-reference.mjs) and creates an empty `plugins` folder in
 * the working directory, both removed here.
 */
function removeReferenceFiles(): void {
  for (const f of readdirSync(tmpdir())) if (f.startsWith('h5web-ref-')) rmSync(join(tmpdir(), f), { force: true });
  try {
    rmdirSync('plugins');
  } catch {
    // not there, or not empty (then not ours)
  }
}

const HDF5 = /\.(h5|hdf5|nc|h5ad|mat)$/;
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : HDF5.test(f) ? [p] : [];
  });
}
const ALL = files(join(FIXTURES, 'hdf5')).sort();

describe('h5web provider = h5web h5wasm provider', () => {
  it('gives the same entities, attributes, values and selections for every HDF5 fixture, but for documented differences', async () => {
    const all: Diff[] = [];
    let datasets = 0;
    let selections = 0;
    for (const p of ALL) {
      const bytes = new Uint8Array(readFileSync(p));
      const name = relative(join(FIXTURES, 'hdf5'), p);
      // External links, virtual datasets' sources and external storage in the fixture's folder.
      const here = dirname(p);
      const resolve = (f: string) => {
        const q = join(here, f);
        return existsSync(q) ? new Uint8Array(readFileSync(q)) : undefined;
      };
      const api = new ArrowsmithApi(bytes, { filepath: name, resolve });
      const r = await compareFile(name, bytes, api, await freshReference(), explain);
      await api.close();
      removeReferenceFiles();
      all.push(...r.diffs);
      datasets += r.datasets;
      selections += r.selections;
    }
    const out = join(import.meta.dirname, '../../../target/artifacts');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'h5web-diffs.json'), JSON.stringify(all, null, 1));
    const counts: Record<string, number> = {};
    for (const d of all) counts[d.reason ?? 'UNEXPLAINED'] = (counts[d.reason ?? 'UNEXPLAINED'] ?? 0) + 1;
    console.log(`h5web differential: ${ALL.length} files, ${datasets} datasets, ${selections} selections; documented differences:`, counts);
    expect(ALL.length).toBeGreaterThan(40);
    expect(all.filter((d) => !d.reason).slice(0, 5)).toEqual([]);
  }, 180_000);
});
