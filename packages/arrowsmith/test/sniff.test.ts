// Format sniffing by magic bytes, on the fixtures and on user blocks of every size h5py allows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hdf5SignatureOffsets, sniff } from '../src/formats/sniff.js';
import { FIXTURES } from './fixtures.js';

const sniffBytes = (b: Uint8Array) => sniff(b.length, async (o, n) => b.subarray(o, o + n));

describe('sniff', () => {
  it('recognises each format’s fixtures', async () => {
    expect(await sniffBytes(readFileSync(join(FIXTURES, 'tsfile/java_v3_aligned.tsfile')))).toBe('tsfile');
    expect(await sniffBytes(readFileSync(join(FIXTURES, 'hdf5/vl_earliest.h5')))).toBe('hdf5');
    expect(await sniffBytes(readFileSync(join(FIXTURES, 'hdf5/userblock_earliest.h5')))).toBe('hdf5');
    expect(await sniffBytes(readFileSync(join(FIXTURES, 'msgpack/py_records.msgpack')))).toBe('msgpack');
  });

  it('finds the HDF5 signature after a user block of 512, 1024, 2048 … bytes, and only there', async () => {
    const h5 = readFileSync(join(FIXTURES, 'hdf5/vl_earliest.h5'));
    for (const block of [512, 1024, 2048, 4096, 65536]) {
      const b = new Uint8Array(block + h5.length);
      b.set(h5, block);
      expect(await sniffBytes(b), `user block ${block}`).toBe('hdf5');
      const off = new Uint8Array(block + 100 + h5.length);
      off.set(h5, block + 100);
      expect(await sniffBytes(off), `signature at ${block + 100}`).toBeUndefined();
    }
    expect(hdf5SignatureOffsets(5000)).toEqual([0, 512, 1024, 2048, 4096]);
  });

  it('says nothing for empty and text bytes; a scalar MessagePack stream is no candidate', async () => {
    for (const b of [new Uint8Array(0), new TextEncoder().encode('hello world\n'), Uint8Array.from([1, 2, 3])]) expect(await sniffBytes(b)).toBeUndefined();
    // A PNG starts with 0x89, a fixmap header: a candidate that the whole-input parse then
    // rejects (the CLI test runs that part).
    expect(await sniffBytes(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('msgpack');
  });
});
