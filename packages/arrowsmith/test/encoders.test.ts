// MessagePack as real encoders write it (fixtures/msgpack/encoders, made by the generators
// in scripts/fixtures/msgpack): every fixture, with each of its reads, equals the values
// its writer's own reader gives (and @msgpack/msgpack's, where that reads the bytes too),
// in both builds; the stream decoder and the worker pool give the same table.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instantiateVariant } from '../src/cli/bench-file.js';
import { decodeMsgpackStreamWith, decodeWith } from '../src/formats/msgpack/decode.js';
import { decodeMsgpack, decodeMsgpackAsync } from '../src/node.js';
import { type EncoderFixture, fixtureMismatches, fromTyped, tableDiff } from './encoders.js';
import { reference } from './helpers.js';
import { FIXTURES } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const DIR = join(FIXTURES, 'msgpack/encoders');
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => {
    const name = f.slice(0, -5);
    return { name, bytes: new Uint8Array(readFileSync(join(DIR, `${name}.msgpack`))), meta: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as EncoderFixture };
  });

usePools();

it('has a fixture from every encoder', () => {
  const writers = fixtures.map((f) => f.meta.writer).join('\n');
  for (const w of ['msgpackr', '@msgpack/msgpack', 'notepack.io 3', 'notepack.io 2', 'msgpack-lite', 'PyPI msgpack', 'ormsgpack', 'msgpack-numpy', 'srsly', 'rmp-serde', 'Go github.com/vmihailenco/msgpack', 'fluent-logger', 'msgspec', 'php-msgpack']) {
    expect(writers, w).toContain(w);
  }
});

for (const variant of ['simd', 'scalar'] as const) {
  describe(`real encoders (${variant} build)`, () => {
    const w = instantiateVariant(variant);
    for (const { name, bytes, meta } of fixtures) {
      const values = fromTyped(meta.expected);
      for (const read of meta.reads) {
        const label = `${name} ${JSON.stringify(read.options ?? {})} (${meta.writer})`;
        if (read.error) {
          it(`${label} is a ${read.error} error in every verb`, async () => {
            expect(() => decodeWith(w, bytes, read.options)).toThrow(expect.objectContaining({ code: read.error }));
            const stream = async () => {
              for await (const _ of decodeMsgpackStreamWith(w, [bytes], read.options));
            };
            await expect(stream()).rejects.toMatchObject({ code: read.error });
          });
          continue;
        }
        it(`${label} equals its writer's reader`, () => {
          const t = decodeWith(w, bytes, read.options);
          expect(fixtureMismatches(t, values, read)).toEqual([]);
          if (meta.msgpack) expect(fixtureMismatches(t, reference(bytes), read), '@msgpack/msgpack').toEqual([]);
        });
        it(`${label}: the stream decoder gives the same table`, async () => {
          const whole = decodeWith(w, bytes, read.options);
          for (const size of [bytes.length, 997]) {
            const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
            const batches = [];
            for await (const b of decodeMsgpackStreamWith(w, chunks, read.options)) batches.push(b);
            expect(batches.length, 'one batch (fewer rows than batchRows)').toBeLessThanOrEqual(1);
            const { Table: T } = await import('apache-arrow');
            expect(tableDiff(whole, new T(batches)), `chunks of ${size}`).toEqual([]);
          }
        });
      }
    }
  });
}

describe('real encoders on the worker pool', () => {
  for (const { name, bytes, meta } of fixtures) {
    for (const read of meta.reads) {
      for (const { mode, options } of MODES.slice(1)) {
        if (read.error) {
          it(`${name} ${JSON.stringify(read.options ?? {})}, ${mode}: the calling thread's error`, async () => {
            await expect(decodeMsgpackAsync(bytes, { ...read.options, ...options() })).rejects.toMatchObject({ code: read.error });
          });
          continue;
        }
        it(`${name} ${JSON.stringify(read.options ?? {})}, ${mode}: the calling thread's table`, async () => {
          const t = await decodeMsgpackAsync(bytes, { ...read.options, ...options() });
          expect(tableDiff(decodeMsgpack(bytes, read.options), t)).toEqual([]);
        });
      }
    }
  }
});
