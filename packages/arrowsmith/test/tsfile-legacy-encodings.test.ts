// The legacy Java encodings (GORILLA_V1, REGULAR, CAMEL) through the wasm build: every
// FLOAT/DOUBLE bit for bit as the Java reader returned it (the JSON's raw `bits`, NaN payloads
// included), every integer exactly. tsfile.test.ts compares the same files by value.
import type { Vector } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { openTsFile } from '../src/node.js';
import { fixturePairs } from './fixtures.js';
import { valueAt } from './compare.js';

const fixtures = fixturePairs('tsfile', '.tsfile').filter((f) => f.name.includes('_enc_'));

/** A value as the JSON holds it: FLOAT/DOUBLE as hex raw bits, integers as BigInt. */
function cell(v: unknown, type: string): unknown {
  if (v === null) return null;
  if (type === 'FLOAT') {
    const b = new DataView(new ArrayBuffer(4));
    b.setFloat32(0, v as number);
    return b.getUint32(0).toString(16).padStart(8, '0');
  }
  if (type === 'DOUBLE') {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, v as number);
    return b.getBigUint64(0).toString(16).padStart(16, '0');
  }
  return typeof v === 'bigint' ? v : BigInt(v as number);
}

/**
 * A FLOAT/DOUBLE cell's raw bits read from the column's buffer, not through a JS number:
 * JavaScriptCore (Bun) canonicalizes NaN payloads when a float becomes a number.
 */
function cellAt(col: Vector, i: number, type: string): unknown {
  const v = valueAt(col, i);
  if (v === null || (type !== 'FLOAT' && type !== 'DOUBLE')) return cell(v, type);
  let k = i;
  for (const d of col.data) {
    if (k < d.length) {
      const a = d.values as Float32Array | Float64Array;
      if (type === 'FLOAT') return new Uint32Array(a.buffer, a.byteOffset, a.length)[d.offset + k]!.toString(16).padStart(8, '0');
      return new BigUint64Array(a.buffer, a.byteOffset, a.length)[d.offset + k]!.toString(16).padStart(16, '0');
    }
    k -= d.length;
  }
  throw new RangeError(`row ${i} past the column`);
}

const want = (v: unknown, type: string) => (v === null ? null : type === 'FLOAT' || type === 'DOUBLE' ? v : BigInt(v as string | number));

describe('TsFile legacy encodings (wasm, Node)', () => {
  it('has GORILLA_V1, REGULAR and CAMEL fixtures from 0.13 to 2.2', () => {
    const names = fixtures.map((f) => f.name);
    for (const v of ['0134', '100', '110', '210', '221']) expect(names).toContain(`java${v}_enc_aligned.tsfile`);
    expect(names).toContain('java221_enc_table.tsfile');
  });

  for (const { name, data, json } of fixtures) {
    it(`${name}: every value as the Java reader's, floats bit for bit`, async () => {
      const f = await openTsFile(data);
      let n = 0;
      if (json.model === 'tree') {
        for (const dev of json.devices) {
          for (const [s, series] of Object.entries(dev.series as Record<string, { type: string; times: unknown[]; values: unknown[]; bits?: string[] }>)) {
            const t = await f.read({ devices: [dev.path], columns: [s] });
            const col = t.getChild(s)!;
            const time = t.getChild('time')!;
            const rows = [...Array(t.numRows).keys()].filter((i) => valueAt(col, i) !== null);
            // DATE columns read as days: compare those by value.
            const type = series.type === 'DATE' ? 'INT32' : series.type;
            expect(rows.map((i) => valueAt(time, i)), `${dev.path}.${s} times`).toEqual(series.times.map((x) => BigInt(x as number)));
            const got = rows.map((i) => cellAt(col, i, type));
            expect(got, `${dev.path}.${s}`).toEqual((series.bits ?? series.values).map((x) => want(x, type)));
            n += got.length;
          }
        }
      } else {
        const t = await f.read({ table: json.table });
        const site = t.getChild('site')!;
        const types = Object.fromEntries((json.fields as [string, string][]).map(([c, ty]) => [c, ty]));
        for (const dev of json.devices) {
          const rows = [...Array(t.numRows).keys()].filter((i) => valueAt(site, i) === dev.tags[0]);
          for (const [c, values] of Object.entries(dev.columns as Record<string, unknown[]>)) {
            if (c === 'time') continue;
            const type = types[c] === 'DATE' ? 'INT32' : types[c]!;
            const got = rows.map((i) => cellAt(t.getChild(c)!, i, type));
            expect(got, `${dev.tags[0]}.${c}`).toEqual((dev.bits[c] ?? values).map((x: unknown) => want(x, type)));
            n += got.length;
          }
        }
      }
      expect(n).toBeGreaterThan(1000);
    }, 60_000);
  }
});
