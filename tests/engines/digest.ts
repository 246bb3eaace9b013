/**
 * The cross-engine check: every fixture decoded, each table (MessagePack file, TsFile table,
 * HDF5 dataset) reduced to two SHA-256 digests, one of its values (a canonical text of every
 * cell, through the same valueAt the fixture tests use) and one of its `tableToIPC` bytes
 * (schema, buffers and padding as written). Failures are digested as their error code and
 * offset. The same code runs in Node, Bun, Deno and browsers; every engine's digests must
 * equal x86-64 Node's.
 */
import { tableToIPC, type Table } from 'apache-arrow';
import { encode } from '@msgpack/msgpack';
import { rng, valueAt } from '../../packages/arrowsmith/test/compare.js';

/** The package's surface the check uses (the runtime and page entries pass their import). */
export interface Api {
  decodeMsgpack(bytes: Uint8Array): Table;
  openTsFile(bytes: Uint8Array): Promise<{ tables(): { name: string }[]; read(q?: { table?: string }): Promise<Table>; close(): void }>;
  openHdf5(bytes: Uint8Array): Promise<{
    list(path?: string): Promise<{ name: string; kind: string }[]>;
    attrs(path?: string): Promise<Record<string, unknown>>;
    read(path: string): Promise<Table>;
    close(): void;
  }>;
}

export interface Item {
  rows?: number;
  values?: string;
  ipc?: string;
  error?: string;
}

export interface Digest {
  engine: string;
  arch: string;
  simd: boolean;
  items: Record<string, Item>;
}

/** Fixture files the check reads, relative to the repository's fixtures/ folder. */
export const EXTENSIONS = ['.msgpack', '.tsfile', '.h5'];

/** A canonical text of a value: exact for -0, NaN, bigints and bytes; keys in order. */
export function canon(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint':
      return `${v}n`;
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return String(v);
  }
  if (v instanceof Uint8Array) return `b:${hex(v)}`;
  if (v instanceof Date) return `d:${v.getTime()}`;
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as unknown as ArrayLike<number | bigint>, canon).join(',')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${canon(k)}:${canon(x)}`).join(',')}}`;
  return `{${Object.entries(v as object).map(([k, x]) => `${JSON.stringify(k)}:${canon(x)}`).join(',')}}`;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
}

/** Values column by column (schema first), so no engine-specific row objects are involved. */
function valuesText(t: Table): string {
  const parts = [t.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`).join(';')];
  for (let c = 0; c < t.numCols; c++) {
    const col = t.getChildAt(c)!;
    const cells = new Array<string>(t.numRows);
    for (let i = 0; i < t.numRows; i++) cells[i] = canon(valueAt(col, i));
    parts.push(cells.join(','));
  }
  return parts.join('\n');
}

async function tableItem(t: Table): Promise<Item> {
  return { rows: t.numRows, values: await sha256(valuesText(t)), ipc: await sha256(tableToIPC(t, 'stream')) };
}

function errorText(e: unknown): string {
  const x = e as { name?: string; format?: string; code?: string; offset?: number; message?: string };
  return x?.name === 'DecodeError' ? `DecodeError ${x.format} ${x.code} @${x.offset}` : `${x?.name ?? 'Error'}: ${x?.message ?? String(e)}`;
}

async function guard(items: Record<string, Item>, key: string, f: () => Promise<Item>): Promise<void> {
  try {
    items[key] = await f();
  } catch (e) {
    items[key] = { error: errorText(e) };
  }
}

/** Every table of one fixture file, keyed `<file>` or `<file>:<table or dataset>`. */
export async function digestFile(api: Api, name: string, bytes: Uint8Array, items: Record<string, Item>): Promise<void> {
  if (name.endsWith('.msgpack')) return guard(items, name, async () => tableItem(api.decodeMsgpack(bytes)));
  if (name.endsWith('.tsfile')) {
    return withFile(items, name, () => api.openTsFile(bytes), async (f) => {
      const tables = f.tables();
      if (!tables.length) await guard(items, `${name}:*`, async () => tableItem(await f.read()));
      for (const t of tables) await guard(items, `${name}:${t.name}`, async () => tableItem(await f.read({ table: t.name })));
    });
  }
  return withFile(items, name, () => api.openHdf5(bytes), async (f) => {
    const walk = async (path: string, depth: number): Promise<void> => {
      await guard(items, `${name}:${path}@attrs`, async () => ({ values: await sha256(canon(await f.attrs(path))) }));
      for (const e of await f.list(path)) {
        const p = path === '/' ? `/${e.name}` : `${path}/${e.name}`;
        if (e.kind === 'group' && depth < 16) await walk(p, depth + 1);
        else if (e.kind === 'dataset') await guard(items, `${name}:${p}`, async () => tableItem(await f.read(p)));
      }
    };
    await walk('/', 0);
  });
}

/** Open a file (a failure to open is the file's digest), use it, close it. */
async function withFile<F extends { close(): void }>(items: Record<string, Item>, name: string, open: () => Promise<F>, use: (f: F) => Promise<void>): Promise<void> {
  let f: F;
  try {
    f = await open();
  } catch (e) {
    items[name] = { error: errorText(e) };
    return;
  }
  try {
    await use(f);
  } finally {
    f.close();
  }
}

/**
 * MessagePack sets made here, beyond the fixtures: seeded records with the value kinds whose
 * handling differs most between engines (doubles over the whole exponent range, subnormals
 * included, 64-bit integers, UTF-8, nesting, nulls), encoded by @msgpack/msgpack. Values
 * come from integer arithmetic and bit patterns only (no Math.pow or `**`, whose last bit
 * differs between engine versions), and the input's digest is recorded too.
 */
export function generatedSets(): { name: string; bytes: Uint8Array }[] {
  const out: { name: string; bytes: Uint8Array }[] = [];
  const bits = new DataView(new ArrayBuffer(8));
  for (const [seed, n] of [[1, 1000], [2, 5000], [3, 20000]] as const) {
    const r = rng(seed);
    const u32 = () => Math.floor(r() * 4294967296);
    /** Any finite double: random sign, exponent (0 = subnormal) and mantissa. */
    const double = () => {
      bits.setUint32(0, (u32() & 0x800fffff) | (Math.floor(r() * 2047) << 20));
      bits.setUint32(4, u32());
      return bits.getFloat64(0);
    };
    const recs = Array.from({ length: n }, (_, i) => ({
      id: i * seed,
      f64: double(),
      small: (u32() % 2000001) / 1000 - 1000,
      i64: BigInt(u32()) * BigInt(u32() >>> 1) * (i % 2 ? -1n : 1n),
      name: i % 11 === 0 ? null : `n${u32() % 500}·é漢${'x'.repeat(i % 40)}`,
      ok: u32() % 2 === 0,
      xs: Array.from({ length: i % 5 }, double),
      at: new Date(1_700_000_000_000 + i * 1000),
    }));
    out.push({ name: `generated/records_${seed}_${n}.msgpack`, bytes: encode(recs, { useBigInt64: true }) });
  }
  return out;
}

/** Digest of every file given plus the generated sets. */
export async function digestAll(api: Api, files: { name: string; bytes: () => Promise<Uint8Array> }[]): Promise<Record<string, Item>> {
  const items: Record<string, Item> = {};
  for (const f of files) await digestFile(api, f.name, await f.bytes(), items);
  for (const g of generatedSets()) {
    items[`${g.name}@input`] = { values: await sha256(g.bytes) };
    await digestFile(api, g.name, g.bytes, items);
  }
  return items;
}
