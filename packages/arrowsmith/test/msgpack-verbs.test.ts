// The three MessagePack verbs agree on every input: each MessagePack fixture (fixtures/msgpack
// and the encoder corpus, under its default options and each of its sidecar's reads) gives
// the same table, or the same error, through decodeMsgpack, decodeMsgpackStream (whole, and
// in small chunks) and decodeMsgpackAsync on a worker pool.
import { Table } from 'apache-arrow';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MsgpackDecodeOptions } from '../src/msgpack-options.js';
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

async function streamed(bytes: Uint8Array, size: number, options: MsgpackDecodeOptions): Promise<Table> {
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
