// DecodeError as users meet it: `not-found` (no offset) for every unknown name, one
// thread or pool; the offset stated once in a message; internal codes never public.
import { encode } from '@msgpack/msgpack';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DecodeError, decodeMsgpack, openHdf5, openTsFile, type DecodeErrorCode } from '../src/node.js';
import { FIXTURES } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const ts = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile/cpp_plain_snappy.tsfile')));
const tsJson = JSON.parse(readFileSync(join(FIXTURES, 'tsfile/cpp_plain_snappy.json'), 'utf8'));
const tree = new Uint8Array(readFileSync(join(FIXTURES, 'tsfile/java_tree_nonaligned.tsfile')));
const h5 = new Uint8Array(readFileSync(join(FIXTURES, 'hdf5/types_earliest.h5')));

async function failure(p: Promise<unknown> | (() => unknown)): Promise<DecodeError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(DecodeError);
    return e as DecodeError;
  }
  throw new Error('expected a DecodeError, got a result');
}

function expectNotFound(e: DecodeError, format: string, name: string): void {
  expect([e.format, e.code, e.offset]).toEqual([format, 'not-found', undefined]);
  expect(e.message).toContain(name);
  expect(e.message).not.toMatch(/byte/);
}

describe('not-found: unknown names, no byte offset', { timeout: 30_000 }, () => {
  usePools();
  for (const { mode, options } of MODES) {
    it(`TsFile device, table, column and tag (${mode})`, async () => {
      const f = await openTsFile(ts, options());
      expectNotFound(await failure(f.read({ devices: ['nosuchdevice'] })), 'TsFile', 'nosuchdevice');
      expectNotFound(await failure(f.read({ table: tsJson.table, devices: ['nosuchdevice'] })), 'TsFile', 'nosuchdevice');
      expectNotFound(await failure(f.read({ table: 'nosuchtable' })), 'TsFile', 'nosuchtable');
      expectNotFound(await failure(f.read({ table: tsJson.table, columns: ['nosuchcolumn'] })), 'TsFile', 'nosuchcolumn');
      expectNotFound(await failure(f.read({ table: tsJson.table, tags: { nosuchtag: 'x' } })), 'TsFile', 'nosuchtag');
      expectNotFound(await failure(() => f.devices('nosuchtable')), 'TsFile', 'nosuchtable');
      expectNotFound(await failure(f.batches({ devices: ['nosuchdevice'] }).next()), 'TsFile', 'nosuchdevice');
      // A known device next to an unknown one is still an error, not a partial table.
      const t = await openTsFile(tree, options());
      const known = t.devices()[0]!.path;
      expect((await t.read({ devices: [known] })).numRows).toBeGreaterThan(0);
      expectNotFound(await failure(t.read({ devices: [known, 'root.nosuch.device'] })), 'TsFile', 'root.nosuch.device');
    });

    it(`HDF5 path (${mode})`, async () => {
      const f = await openHdf5(h5, options());
      expectNotFound(await failure(f.read('/nosuchdataset')), 'HDF5', 'nosuchdataset');
      expectNotFound(await failure(f.info('/nosuchdataset')), 'HDF5', 'nosuchdataset');
      expectNotFound(await failure(f.list('/nosuchgroup')), 'HDF5', 'nosuchgroup');
    });
  }
});

describe('messages', () => {
  it('state the offset once', async () => {
    const bad = encode([1, 2, 3]);
    bad[2] = 0xc1;
    const e = await failure(() => decodeMsgpack(bad));
    expect([e.code, e.offset]).toEqual(['invalid', 2]);
    expect(e.message.match(/\bbyte 2\b/g)).toHaveLength(1);
    const cut = await failure(openTsFile(ts.subarray(0, 3)));
    expect(cut.message.match(new RegExp(`\\bbyte ${cut.offset}\\b`, 'g'))).toHaveLength(1);
  });
});

// Checked by the tsc gate: the readers' internal "fetch these bytes" signal is not a public code.
type Internal = 'need-bytes' extends DecodeErrorCode ? never : true;
export const needBytesIsInternal: Internal = true;
