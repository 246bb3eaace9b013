// Wasm memory never shrinks, so a leak shows as growth: after a warm-up, thousands of
// open/read/close cycles of each file reader must not grow it.
import { describe, expect, it } from 'vitest';
import { instantiateVariant } from '../src/cli/bench-file.js';
import { Hdf5File } from '../src/formats/hdf5/file.js';
import { TsFile } from '../src/formats/tsfile/file.js';
import { fixturePairs } from './fixtures.js';

describe('memory stays flat across calls', () => {
  const ts = instantiateVariant('simd', 'tsfile');
  const h5 = instantiateVariant('simd', 'hdf5');

  it('TsFile: 2,000 open + read + close cycles', { timeout: 120_000 }, async () => {
    const { data, json } = fixturePairs('tsfile', '.tsfile').find((f) => f.name === 'cpp_gorilla_lz4.tsfile')!;
    const cycle = async () => {
      const f = await TsFile.openWith(ts, data);
      expect((await f.read({ table: json.table })).numRows).toBeGreaterThan(0);
      f.close();
    };
    for (let i = 0; i < 50; i++) await cycle();
    const before = ts.memory.buffer.byteLength;
    for (let i = 0; i < 2000; i++) await cycle();
    expect(ts.memory.buffer.byteLength).toBe(before);
  });

  it('HDF5: 2,000 open + read + close cycles', { timeout: 120_000 }, async () => {
    const { data } = fixturePairs('hdf5', '.h5').find((f) => f.name === 'vl_latest.h5')!;
    const cycle = async () => {
      const f = await Hdf5File.openWith(h5, data);
      expect((await f.read('/vlstr_utf8')).numRows).toBe(8);
      f.close();
    };
    for (let i = 0; i < 50; i++) await cycle();
    const before = h5.memory.buffer.byteLength;
    for (let i = 0; i < 2000; i++) await cycle();
    expect(h5.memory.buffer.byteLength).toBe(before);
  });

  it('HDF5: 2,000 reads of datasets over 64 KiB, whose output buffers are recycled', { timeout: 120_000 }, async () => {
    const { data, json } = fixturePairs('hdf5', '.h5').find((f) => f.name === 'vl_big.h5')!;
    const paths = Object.keys(json.datasets);
    const f = await Hdf5File.openWith(h5, data);
    const cycle = async (i: number) => {
      const p = paths[i % paths.length]!;
      expect((await f.read(p)).numRows).toBe(json.datasets[p].shape[0]);
    };
    for (let i = 0; i < 50; i++) await cycle(i);
    const before = h5.memory.buffer.byteLength;
    for (let i = 0; i < 2000; i++) await cycle(i);
    expect(h5.memory.buffer.byteLength).toBe(before);
    f.close();
  });
});
