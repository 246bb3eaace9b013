// The three MessagePack verbs agree on every input: each MessagePack fixture (fixtures/msgpack
// and the encoder corpus, under its default options and each of its sidecar's reads) gives
// the same table, or the same error, through decodeMsgpack, decodeMsgpackStream (whole, and
// in small chunks) and decodeMsgpackAsync on a worker pool.
import { Table } from 'apache-arrow';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MsgpackDecodeOptions } from '../src/wasm/msgpack-options.js';
import { decodeMsgpack, decodeMsgpackAsync, decodeMsgpackStream } from '../src/node.js';
import { type EncoderFixture, tableDiff } from './encoders.js';
import { FIXTURES } from './fixtures.js';
import { MODES, usePools } from './pools.js';

const inputs: { name: string; bytes: Uint8Array; options: MsgpackDecodeOptions }[] = [];
for (const sub of ['msgpack', 'msgpack/encoders']) {
  const dir = join(FIXTURES, sub);
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.msgpack')).sort()) {
    const bytes = new Uint8Array(readFileSync(join(dir, f)));
    const sidecar = join(dir, `${f.slice(0, -8)}.json`);
    let reads: MsgpackDecodeOptions[] = [{}];
    try {
      const meta = JSON.parse(readFileSync(sidecar, 'utf8')) as EncoderFixture;
      reads = [{}, ...meta.reads.map((r) => r.options ?? {}).filter((o) => Object.keys(o).length > 0)];
    } catch {
      // No sidecar of the encoder corpus' kind: default options only.
    }
    for (const options of reads) inputs.push({ name: `${sub}/${f}`, bytes, options });
  }
}

type Outcome = { table: Table } | { error: string };

async function outcome(f: () => Table | Promise<Table>): Promise<Outcome> {
  try {
    return { table: await f() };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? String(e) };
  }
}

async function streamed(bytes: Uint8Array, size: number, options: MsgpackDecodeOptions & { batchRows?: number }): Promise<Table> {
  const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  const batches = [];
  for await (const b of decodeMsgpackStream(chunks, options)) batches.push(b);
  return new Table(batches);
}

function same(a: Outcome, b: Outcome): string[] {
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b && a.error === b.error ? [] : [`${JSON.stringify('error' in b ? b : 'a table')} != ${JSON.stringify('error' in a ? a : 'a table')}`];
  return tableDiff(a.table, b.table);
}

usePools();

describe('decodeMsgpack, decodeMsgpackStream and decodeMsgpackAsync agree', () => {
  it('reads every fixture', () => expect(inputs.length).toBeGreaterThan(40));
  for (const { name, bytes, options } of inputs) {
    it(`${name} ${JSON.stringify(options)}`, async () => {
      const whole = await outcome(() => decodeMsgpack(bytes, options));
      for (const size of [bytes.length, 61]) {
        expect(same(whole, await outcome(() => streamed(bytes, size, options))), `stream, chunks of ${size}`).toEqual([]);
      }
      for (const { mode, options: pool } of MODES.slice(1)) {
        expect(same(whole, await outcome(() => decodeMsgpackAsync(bytes, { ...options, ...pool() }))), mode).toEqual([]);
      }
    });
  }
});

// Concatenated top-level arrays (Fluentd message and forward modes, Fluent Bit chunks) under
// layout 'auto', fed in small chunks with a batchRows smaller than, equal to and larger than
// the first array's length: decodeMsgpack reads each top-level array as a row, as layout
// 'stream' does. The stream agrees (batch by batch with layout 'stream', whose batches infer
// their schemas from their own rows) whenever no batch was taken before the first array
// ended; otherwise the elements of that array were already rows, and it refuses with a typed
// error that names the shape and the advice (never 'invalid': the input is valid).
async function batchesOf(bytes: Uint8Array, size: number, options: MsgpackDecodeOptions & { batchRows: number }): Promise<Table[] | string> {
  const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  const out = [];
  try {
    for await (const b of decodeMsgpackStream(chunks, options)) out.push(new Table([b]));
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  return out;
}

describe('concatenated top-level arrays with a small batchRows', () => {
  const fluent = inputs.filter(({ name, options }) => /\/fluent-.*\.msgpack$/.test(name) && !('layout' in options));
  it('finds the Fluentd fixtures', () => expect(fluent.length).toBeGreaterThanOrEqual(4));
  for (const { name, bytes, options } of fluent) {
    it(`${name} ${JSON.stringify(options)}`, async () => {
      const whole = decodeMsgpack(bytes, options);
      expect(whole.numRows).toBeGreaterThan(1);
      expect(bytes[0]! >> 4).toBe(0x9);
      const first = bytes[0]! & 0x0f; // a fixarray: the first message's element count
      for (const batchRows of [1, first - 1, first, first + 1, 16]) {
        for (const size of [5, 61, bytes.length]) {
          const what = `batchRows ${batchRows}, chunks of ${size}`;
          const want = await batchesOf(bytes, size, { ...options, batchRows, layout: 'stream' });
          const got = await batchesOf(bytes, size, { ...options, batchRows });
          // One-row batches in chunks of 5 bytes of 3-element messages: the first two
          // elements end before the array does, so a batch is always taken before it ends.
          const taken = batchRows + 1 < first && size === 5;
          if (typeof got === 'string' || taken) {
            // Allowed only when a batch of the first array's elements may have been taken
            // before its end: a first array longer than batchRows, fed in pieces.
            if (batchRows < first && size < bytes.length) {
              expect(typeof got === 'string' ? got : 'batches', what).toMatch(/^(unsupported|type-mismatch): .*pass layout: 'stream'/s);
              continue;
            }
          }
          expect(typeof want === 'string' ? want : want.length, what).toBe(typeof got === 'string' ? got : got.length);
          if (typeof want === 'string' || typeof got === 'string') continue;
          want.forEach((w, i) => expect(tableDiff(got[i]!, w), `${what}, batch ${i}`).toEqual([]));
          expect(got.reduce((n, t) => n + t.numRows, 0), what).toBe(whole.numRows);
        }
      }
    });
  }
});
