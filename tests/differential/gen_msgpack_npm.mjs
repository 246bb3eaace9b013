// Random MessagePack documents from the npm encoders (msgpackr, with and without its record
// extension, and @msgpack/msgpack), each read back by the encoder's own decoder; the Node half of
// gen_msgpack.py (same JSON, same shapes). Document k of seed S depends on (S, k) alone.
//
// JavaScript numbers do not say int or float: each decoded value is tagged by how the encoder
// wrote the original (see `tag`), so a float field holding 3 or −0 is an int in the file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import { Packr, Unpackr } from 'msgpackr';

const ENCODERS = ['msgpackr', 'msgpackr-records', '@msgpack/msgpack'];
const SCALAR_KINDS = ['i32', 'i64', 'u64', 'f64', 'num', 'bool', 'str', 'bin', 'ts', 'nil'];
const WORDS = ['', 'a', 'hello', 'héllo ✓', '日本語', 'x'.repeat(40), 'tab\t', 'null'];

/** mulberry32 seeded from a string (FNV-1a). */
function rngOf(text) {
  let h = 0x811c9dc5;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
  let a = h;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    big: (lo, hi) => lo + (BigInt(Math.floor(next() * 2 ** 32)) * 2n ** 32n + BigInt(Math.floor(next() * 2 ** 32))) % (hi - lo + 1n),
  };
}

const frac = (r) => {
  const x = (r.random() - 0.5) * 10 ** r.int(-20, 20);
  return Number.isInteger(x) ? x + 0.5 : x;
};

function gen(r, kind) {
  if (Array.isArray(kind)) {
    if (kind[0] === 'list') return Array.from({ length: r.int(0, 4) }, () => gen(r, kind[1]));
    const o = {};
    for (const [n, k] of kind[1]) if (r.random() < 0.9) o[n] = gen(r, k);
    return o;
  }
  switch (kind) {
    case 'i32': return r.pick([0, 1, -1, 127, -32, 128, 255, -129, 65535, r.int(-(2 ** 31), 2 ** 31 - 1), -(2 ** 31), 2 ** 31 - 1]);
    case 'i64': return r.pick([r.big(-(2n ** 63n), 2n ** 63n - 1n), -(2n ** 63n), 2n ** 63n - 1n, 2 ** 31, -(2 ** 31) - 1, r.int(-100, 100), 2 ** 53 - 1]);
    case 'u64': return r.pick([2n ** 64n - 1n, 2n ** 63n, r.big(2n ** 63n, 2n ** 64n - 1n), r.int(0, 1000), 2 ** 32]);
    case 'f64': return r.pick([0.5, -1.25, frac(r), -0, 3, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 5e-324, 1.7976931348623157e308 / 3, 0.1]);
    case 'num': return r.pick([r.int(-1000, 1000), frac(r), 7, 2.5]);
    case 'bool': return r.random() < 0.5;
    case 'str': return r.pick(WORDS);
    case 'bin': return Uint8Array.from({ length: r.int(0, 9) }, () => r.int(0, 255));
    case 'ts': return new Date(r.pick([0, 1_700_000_000_123, -1, -86400_000 * 365 * 20 - 7, r.int(-(2 ** 40), 2 ** 42)]));
    case 'nil': return null;
    default: throw new Error(kind);
  }
}

function kindFor(r, depth = 0) {
  const x = r.random();
  if (depth < 2 && x < 0.12) return ['list', kindFor(r, depth + 1)];
  if (depth < 2 && x < 0.2) return ['rec', Array.from({ length: r.int(1, 3) }, (_, i) => [`k${i}`, kindFor(r, depth + 1)])];
  return r.pick(SCALAR_KINDS);
}

function documentOf(r) {
  const shape = r.pick(['records', 'records', 'records', 'scalars', 'lists', 'fixed_lists', 'empty']);
  const n = r.pick([0, 1, 2, 5, 20, 100, 300]);
  const nilRate = r.pick([0, 0.1, 0.4]);
  const params = { shape, rows: n, nil_rate: nilRate };
  if (shape === 'empty') return { rows: [], params };
  if (shape === 'records') {
    const fields = new Map();
    const count = r.int(1, 8);
    for (let i = 0; i < count; i++) fields.set(r.random() < 0.9 ? `c${i}` : r.pick(['', 'é', 'with space', '1']), kindFor(r));
    params.fields = Object.fromEntries([...fields].map(([k, v]) => [k, JSON.stringify(v)]));
    const present = r.pick([1, 0.8, 0.5]);
    const rows = [];
    for (let i = 0; i < n; i++) {
      if (r.random() < nilRate * 0.2) {
        rows.push(null);
        continue;
      }
      const o = {};
      for (const [k, kd] of fields) if (r.random() < present) o[k] = r.random() < nilRate ? null : gen(r, kd);
      rows.push(o);
    }
    return { rows, params };
  }
  const kind = r.pick(SCALAR_KINDS.filter((k) => k !== 'nil'));
  params.kind = kind;
  if (shape === 'scalars') return { rows: Array.from({ length: n }, () => (r.random() < nilRate ? null : gen(r, kind))), params };
  if (shape === 'lists') return { rows: Array.from({ length: n }, () => Array.from({ length: r.int(0, 5) }, () => gen(r, kind))), params };
  const width = r.int(1, 4);
  return { rows: Array.from({ length: n }, () => Array.from({ length: width }, () => gen(r, kind))), params };
}

function f64hex(x) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  return b.toString('hex');
}

/**
 * The decoder's value `dec`, tagged (tests/differential/xjson.py) by how the encoder wrote the
 * original `orig`: bigints as int64/uint64; an integral number in [−2^31, 2^32) as an int; any
 * other number as a float: float32 under @msgpack/msgpack's forceFloat32, under msgpackr's
 * useFloat32 ALWAYS only in [−2^31, 2^32) (NaN and ±Infinity stay float64); else float64.
 * (Both encoders write integral numbers beyond 32 bits as floats: a JS number is no int64.)
 */
function tag(orig, dec, o) {
  if (dec === null || dec === undefined) return null;
  if (typeof orig === 'bigint') return { i: String(dec) };
  if (typeof orig === 'number') {
    if (Number.isInteger(orig) && orig >= -(2 ** 31) && orig < 2 ** 32) return { i: String(dec) };
    const f32 = o.encoder === '@msgpack/msgpack' ? o.float32 : o.float32 && orig >= -(2 ** 31) && orig < 2 ** 32;
    return f32 ? { f: f64hex(dec), w: 32 } : { f: f64hex(dec) };
  }
  if (typeof orig === 'boolean' || typeof orig === 'string') return dec;
  if (orig instanceof Uint8Array) return { b: Buffer.from(dec).toString('hex') };
  if (orig instanceof Date) return { t: String(BigInt(dec.getTime()) * 1_000_000n) };
  if (Array.isArray(orig)) return dec.map((x, i) => tag(orig[i], x, o));
  return { s: Object.entries(dec).map(([k, x]) => [k, tag(orig[k], x, o)]) };
}

/** Writes `msgpack-npm-K.msgpack` and `.json` for K in 0..count-1 (or only `only`). */
export async function generate(seed, count, dir, only) {
  for (const k of only === undefined ? Array.from({ length: count }, (_, i) => i) : [only]) {
    const r = rngOf(`${seed}:${k}:npm`);
    const encoder = ENCODERS[k % ENCODERS.length];
    const { rows, params } = documentOf(r);
    const float32 = r.random() < 0.3;
    let bytes;
    let back;
    if (encoder === '@msgpack/msgpack') {
      bytes = encode(rows, { useBigInt64: true, forceFloat32: float32 });
      back = decode(bytes, { useBigInt64: true });
    } else {
      const records = encoder === 'msgpackr-records';
      bytes = new Packr({ useRecords: records, useFloat32: float32 ? 1 : 0, int64AsType: 'bigint' }).pack(rows);
      back = new Unpackr({ useRecords: records, int64AsType: 'bigint' }).unpack(bytes);
    }
    Object.assign(params, { seed, index: k, encoder, float32 });
    const name = `msgpack-npm-${k}`;
    const tagged = back.map((x, i) => tag(rows[i], x, { encoder, float32 }));
    writeFileSync(join(dir, `${name}.msgpack`), bytes);
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ format: 'msgpack', file: `${name}.msgpack`, params, rows: tagged }));
  }
}
