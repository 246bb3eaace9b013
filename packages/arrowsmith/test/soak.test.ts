// The long run: 10,000 mixed calls through the public API (MessagePack decodes, TsFile and
// HDF5 opens, reads and closes, good inputs and damaged ones that fail) keep wasm memory flat,
// and after a read that grew a module past `recycleBytes` the next call is back at its
// baseline. Wasm memory never shrinks, so a leak shows as growth.
import { encode } from '@msgpack/msgpack';
import { afterAll, describe, expect, it } from 'vitest';
import { DecodeError, decodeMsgpack, init, memory, openHdf5, openTsFile } from '../src/node.js';
import { DEFAULT_RECYCLE_BYTES } from '../src/wasm/instance.js';
import { rng } from './helpers.js';
import { fixtureFile, fixtureFiles, mutant } from './hostile.js';

afterAll(() => init({ recycleBytes: DEFAULT_RECYCLE_BYTES }));

const CALLS = 10_000;

/** One call; its result is checked (rows, or a typed error for a damaged input). */
type Call = () => Promise<void> | void;

function calls(): Call[] {
  const r = rng(7);
  const out: Call[] = [];
  const failsTyped = async (f: () => Promise<unknown> | unknown) => {
    try {
      await f();
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
  };
  for (const { data } of fixtureFiles('msgpack', 50_000)) {
    const rows = decodeMsgpack(data).numRows;
    out.push(() => void expect(decodeMsgpack(data).numRows).toBe(rows));
    const m = mutant(data, r);
    out.push(() => failsTyped(() => decodeMsgpack(m)));
  }
  const ts = fixtureFile('tsfile', 'cpp_gorilla_lz4.tsfile');
  const tsBad = mutant(ts, r);
  out.push(async () => {
    const f = await openTsFile(ts);
    expect((await f.read()).numRows).toBeGreaterThan(0);
    f.close();
  });
  out.push(() =>
    failsTyped(async () => {
      await using f = await openTsFile(tsBad);
      await f.read();
    }),
  );
  const h5 = fixtureFile('hdf5', 'vl_latest.h5');
  const h5Bad = mutant(h5, r);
  out.push(async () => {
    const f = await openHdf5(h5);
    expect((await f.read('/vlstr_utf8')).numRows).toBe(8);
    f.close();
  });
  out.push(() =>
    failsTyped(async () => {
      await using f = await openHdf5(h5Bad);
      await f.read('/vlstr_utf8');
    }),
  );
  return out;
}

describe('soak', () => {
  it(`${CALLS.toLocaleString('en')} mixed calls keep wasm memory flat`, { timeout: 600_000 }, async () => {
    const all = calls();
    // Warm-up: every call once, twice (first use grows each module to its working size).
    for (let k = 0; k < 2; k++) for (const c of all) await c();
    const before = memory();
    for (let i = 0; i < CALLS; i++) await all[i % all.length]!();
    expect(memory()).toEqual(before);
  });

  it('a read that grows a module past recycleBytes: the next call is back at the baseline', { timeout: 120_000 }, async () => {
    await init({ recycleBytes: 64 << 20 });
    const small = encode([{ a: 1 }, { a: 2 }]);
    expect(decodeMsgpack(small).numRows).toBe(2);
    const baseline = memory().msgpack;
    // 4M rows of a double: 36 MB in, 32 MB out, copied into wasm memory: past 64 MiB.
    const big = encode(Array.from({ length: 4_000_000 }, (_, i) => i + 0.5));
    expect(decodeMsgpack(big).numRows).toBe(4_000_000);
    const grown = memory().msgpack;
    expect(grown).toBeGreaterThan(64 << 20);
    expect(decodeMsgpack(small).numRows).toBe(2);
    expect(memory().msgpack).toBeLessThanOrEqual(baseline);
  });
});
