// MessagePack → Arrow, in Node, against both wasm builds. Every corpus is written by an
// independent encoder (Python msgpack, @msgpack/msgpack, msgpackr) and compared value by
// value with what @msgpack/msgpack decodes from the same bytes.
import { encode } from '@msgpack/msgpack';
import { Packr } from 'msgpackr';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instantiateVariant } from '../src/cli/bench-file.js';
import { DecodeError } from '../src/errors.js';
import { decodeMsgpackStreamWith, decodeWith, type MsgpackOptions } from '../src/formats/msgpack/decode.js';
import { expectTableMatches, reference, referenceMulti, rng, valueAt } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/msgpack');
const corpora = readdirSync(FIXTURES).filter((f) => f.endsWith('.msgpack')).sort();

function jsCorpora(): [string, Uint8Array][] {
  const r = rng(42);
  const int = () => Math.floor(r() * 2 ** 32) - 2 ** 31;
  const small = () => Math.floor(r() * 160) - 32;
  const fixintsWithBreaks = Array.from({ length: 4000 }, (_, i) => (i % 97 === 0 ? int() : i % 41 === 0 ? 300 : small()));
  const records = Array.from({ length: 1500 }, (_, i) => ({ a: i, b: r() * 100, c: `s${i % 13}`, d: i % 2 === 0, e: i % 7 === 0 ? null : int() }));
  // Keys that come and go: f0-f3 each in some rows, `late` only in rows 700-709 (null
  // after its last value to the end of the table).
  const sparse = Array.from({ length: 1200 }, (_, i) => {
    const o: Record<string, unknown> = {};
    for (let k = 0; k < 4; k++) if ((i * (k + 2)) % 7 < 3) o[`f${k}`] = i * 10 + k;
    if (i >= 700 && i < 710) o.late = `l${i}`;
    return o;
  });
  const packr = new Packr({ useRecords: false });
  const floats32 = new Packr({ useRecords: false, useFloat32: 1 });
  return [
    ['@msgpack/msgpack fixints with breaks', encode(fixintsWithBreaks)],
    ['@msgpack/msgpack records', encode(records)],
    ['@msgpack/msgpack floats', encode(Array.from({ length: 3000 }, () => (r() - 0.5) * 1e9), { forceFloat32: false })],
    ['@msgpack/msgpack bigints', encode([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n], { useBigInt64: true })],
    ['msgpackr ints', packr.pack(Array.from({ length: 4000 }, () => (r() < 0.5 ? small() : int())))],
    ['msgpackr records', packr.pack(records)],
    ['@msgpack/msgpack records with missing keys', encode(sparse)],
    ['msgpackr float32', floats32.pack(Array.from({ length: 2000 }, () => Math.fround(r() * 1000 + 0.5)))],
    ['msgpackr strings', packr.pack(Array.from({ length: 2000 }, (_, i) => 'é'.repeat(i % 40) + String(i)))],
    ['every int encoding in random order, nil among them (Int32)', everyIntEncoding(r, 5000, false)],
    ['every int encoding in random order, nil among them (Int64)', everyIntEncoding(r, 5000, true)],
  ];
}

/**
 * An array32 of `n` values written byte by byte: every int encoding (fixints, uint8–64,
 * int8–64; small values written wide too) in random order, one in six nil. `wide`: values
 * past i32 (up to ±2^53), else all within i32.
 */
function everyIntEncoding(r: () => number, n: number, wide: boolean): Uint8Array {
  const out = [0xdd, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  const big = wide ? 2 ** 53 : 2 ** 31 - 1;
  // [tag (undefined: fixint), payload bytes, lowest, highest]
  const encodings: [number | undefined, number, number, number][] = [
    [undefined, 0, 0, 127],
    [undefined, 0, -32, -1],
    [0xcc, 1, 0, 255],
    [0xcd, 2, 0, 65535],
    [0xce, 4, 0, wide ? 2 ** 32 - 1 : big],
    [0xcf, 8, 0, big],
    [0xd0, 1, -128, 127],
    [0xd1, 2, -32768, 32767],
    [0xd2, 4, -(2 ** 31), 2 ** 31 - 1],
    [0xd3, 8, wide ? -big : -big - 1, big],
  ];
  for (let i = 0; i < n; i++) {
    if (r() < 1 / 6) {
      out.push(0xc0);
      continue;
    }
    const [tag, bytes, lo, hi] = encodings[Math.floor(r() * encodings.length)]!;
    const v = lo + Math.floor(r() * (hi - lo + 1));
    if (tag === undefined) {
      out.push(v & 0xff);
      continue;
    }
    out.push(tag);
    const u = BigInt.asUintN(8 * bytes, BigInt(v));
    for (let k = bytes - 1; k >= 0; k--) out.push(Number((u >> BigInt(8 * k)) & 0xffn));
  }
  return Uint8Array.from(out);
}

for (const variant of ['simd', 'scalar'] as const) {
  describe(`MessagePack (${variant} build)`, () => {
    const w = instantiateVariant(variant);
    const decode = (b: Uint8Array, o?: MsgpackOptions) => decodeWith(w, b, o);

    it('runs the build it was asked for', () => {
      expect(w.glue.simdEnabled()).toBe(variant === 'simd');
    });

    it('a bad option value is an invalid DecodeError naming the option (the wasm side validates the options object)', () => {
      const bytes = encode([{ a: 1 }]);
      const bad = (o: object, message: string) => {
        const e = (() => {
          try {
            decode(bytes, o as MsgpackOptions);
          } catch (x) {
            return x;
          }
        })();
        expect(e).toBeInstanceOf(DecodeError);
        expect(e).toMatchObject({ format: 'MessagePack', code: 'argument' });
        expect((e as Error).message).toContain(message);
      };
      bad({ layout: 'rows' }, `option layout must be one of 'auto', 'array', 'stream', not 'rows'`);
      bad({ maps: 1 }, 'option maps must be a string, not 1');
      bad({ fastPath: 'no' }, 'option fastPath must be true or false, not "no"');
      bad({ maxDepth: -1 }, 'option maxDepth must be a whole number from 0 to 2^32-1, not -1');
      bad({ columns: ['a', 2] }, 'option columns must be an array of strings, not an array');
      bad({ extensions: { 5: 'date' } }, `option extensions[5] must be one of 'struct', 'binary', 'timestamp-ms', 'timestamp-ns', 'undefined', 'eventtime', not 'date'`);
      bad({ extensions: { '-1': 'binary' } }, 'option extensions must be keyed by ext types (-128..127; -1, the timestamp, is built in), not -1');
      bad({ manyKeys: 'drop' }, `option manyKeys must be one of 'map', 'error', not 'drop'`);
      // Good values decode.
      expect(decode(bytes, { layout: 'array', maps: 'map', manyKeys: 'error' }).numRows).toBe(1);
    });

    for (const file of corpora) {
      it(`matches @msgpack/msgpack on Python corpus ${file}`, () => {
        const bytes = new Uint8Array(readFileSync(join(FIXTURES, file)));
        const stream = file.includes('stream');
        const rows = stream ? referenceMulti(bytes) : (reference(bytes) as unknown[]);
        expectTableMatches(decode(bytes), rows);
        // Same values with every fast path switched off.
        expectTableMatches(decode(bytes, { fastPath: false }), rows);
      });
    }

    for (const [name, bytes] of jsCorpora()) {
      it(`matches @msgpack/msgpack on ${name}`, () => {
        expectTableMatches(decode(bytes), reference(bytes) as unknown[]);
      });
    }

    it('infers the narrowest column types', () => {
      const t = (v: unknown[]) => String(decode(encode(v, { useBigInt64: true })).schema.fields[0]!.type);
      expect(t([1, -5, 127])).toBe('Int32');
      expect(t([1, 2 ** 31])).toBe('Int64');
      expect(t([1, 2n ** 64n - 1n])).toBe('Uint64');
      expect(t([1.5, 2])).toBe('Float64');
      expect(t([true, false, null])).toBe('Bool');
      expect(t(['a', null])).toBe('Utf8');
      expect(t([new Uint8Array([1])])).toBe('Binary');
      expect(t([[1, 2], []])).toMatch(/^List/);
      const f32 = new Packr({ useFloat32: 1 }).pack([1.5, 2.25]);
      expect(String(decode(f32).schema.fields[0]!.type)).toBe('Float32');
    });

    it('keeps nulls in the validity bitmap', () => {
      const t = decode(encode([1, null, 3, null]));
      const col = t.getChildAt(0)!;
      expect(col.nullCount).toBe(2);
      expect([0, 1, 2, 3].map((i) => valueAt(col, i))).toEqual([1, null, 3, null]);
    });

    it('reports malformed input as DecodeError with the offset', () => {
      const cases: [string, number[], string, number][] = [
        ['reserved byte 0xc1', [0x93, 0x01, 0xc1, 0x02], 'invalid', 2],
        ['uint16 cut short', [0x92, 0x01, 0xcd, 0x01], 'truncated', 2],
        ['array with more elements than bytes left', [0x93, 0x01, 0x02], 'out-of-bounds', 0],
        ['str8 longer than input', [0x91, 0xd9, 0x20, 0x41], 'out-of-bounds', 1],
        ['array32 count beyond input', [0xdd, 0xff, 0xff, 0xff, 0xff, 0x01], 'out-of-bounds', 0],
        ['timestamp beyond the range of Timestamp(ns)', [0x91, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff, 0xff], 'unsupported', 1],
        ['invalid UTF-8 in str', [0x92, 0xa1, 0x41, 0xa2, 0xc3, 0x28], 'invalid-utf8', 3],
        ['float map key in records', [0x91, 0x81, 0xca, 0, 0, 0, 0, 0x02], 'invalid', 2],
      ];
      for (const [what, bytes, code, offset] of cases) {
        let err: unknown;
        try {
          decode(new Uint8Array(bytes));
        } catch (e) {
          err = e;
        }
        expect(err, what).toBeInstanceOf(DecodeError);
        const d = err as DecodeError;
        expect([d.format, d.code], what).toEqual(['MessagePack', code]);
        expect(d.offset, `${what}: ${d.message}`).toBe(offset);
      }
    });

    it('rejects nesting deeper than maxDepth without overflowing the stack', () => {
      const deep = new Uint8Array(100_000).fill(0x91);
      expect(() => decode(deep)).toThrow(DecodeError);
      expect(() => decode(new Uint8Array([0x91, 0x91, 0x91, 0x91, 0x01]), { maxDepth: 3 })).toThrow(/dep|nest/i);
      expect(decode(new Uint8Array([0x91, 0x91, 0x91, 0x91, 0x01]), { maxDepth: 8 }).numRows).toBe(1);
    });

    it('returns JS-owned buffers by default and lends views only on request', () => {
      const bytes = encode(Array.from({ length: 1000 }, (_, i) => i));
      const owned = decode(bytes);
      const values = owned.getChildAt(0)!.data[0]!.values as Int32Array;
      expect(values.buffer).not.toBe(w.memory.buffer);
      const lent = decode(bytes, { copy: false });
      expect((lent.getChildAt(0)!.data[0]!.values as Int32Array).buffer).toBe(w.memory.buffer);
      // The owned table survives later calls (which free the lent batch and reuse memory).
      decode(encode(Array.from({ length: 5000 }, (_, i) => -i)));
      expect(Array.from(values.subarray(0, 5))).toEqual([0, 1, 2, 3, 4]);
    });

    it('keeps wasm memory flat over 10,000 calls', { timeout: 120_000 }, () => {
      const bytes = encode(Array.from({ length: 500 }, (_, i) => ({ id: i, name: `n${i}`, v: i / 3 })));
      for (let i = 0; i < 100; i++) decode(bytes);
      const before = w.memory.buffer.byteLength;
      for (let i = 0; i < 10_000; i++) decode(bytes);
      expect(w.memory.buffer.byteLength).toBe(before);
    });

    it('streams: batches as rows arrive, any chunking, same values as whole decoding', async () => {
      const r = rng(7);
      const records = Array.from({ length: 5000 }, (_, i) => ({ id: i, s: 'x'.repeat(i % 50), f: r(), n: i % 9 ? i : null }));
      const bytes = encode(records);
      const whole = decode(bytes);
      let pushed = 0;
      const seenAt: number[] = [];
      async function* source() {
        let at = 0;
        while (at < bytes.length) {
          const n = 1 + Math.floor(r() * 3000);
          yield bytes.subarray(at, at + n);
          at += n;
          pushed = at;
        }
      }
      const rows: unknown[] = [];
      for await (const batch of decodeMsgpackStreamWith(w, source(), { batchRows: 500 })) {
        seenAt.push(pushed);
        expect(batch.numRows).toBeLessThanOrEqual(500);
        for (let i = 0; i < batch.numRows; i++) rows.push(batch.get(i)!.toJSON());
      }
      expect(rows.length).toBe(whole.numRows);
      // The first batch came out long before the last byte was pushed.
      expect(seenAt[0]!).toBeLessThan(bytes.length / 2);
      rows.forEach((row, i) => expect(row).toEqual(whole.get(i)!.toJSON()));
    });

    it('streams a concatenation of top-level values and reports a value cut at the end', async () => {
      const parts = [encode({ a: 1 }), encode({ a: 2, b: 'x' }), encode({ a: 3 })];
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) all.set(p, (at += p.length) - p.length);
      const out: unknown[] = [];
      for await (const b of decodeMsgpackStreamWith(w, [all.subarray(0, 5), all.subarray(5)], { batchRows: 2 })) {
        for (let i = 0; i < b.numRows; i++) out.push(b.get(i)!.toJSON());
      }
      expect(out.map((o) => (o as { a: number }).a)).toEqual([1, 2, 3]);
      const cut = async () => {
        for await (const _ of decodeMsgpackStreamWith(w, [all.subarray(0, all.length - 1)])) void _;
      };
      await expect(cut()).rejects.toBeInstanceOf(DecodeError);
    });
  });
}
