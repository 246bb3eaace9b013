/**
 * The h5web differential: one file opened by `ArrowsmithApi` and by h5web's own h5wasm
 * provider (tests/vendor/h5web-h5wasm, h5web v17.0.0's worker API on h5wasm), every entity,
 * attribute value and dataset value compared, plus N-D selections of every dataset. What
 * differs is returned; `explain` names the documented reason, if any. Runs in Node
 * (h5web.test.ts) and in browsers (tests/browser/h5web-diff-page.ts): the caller gives a
 * fresh reference per file.
 */
import type { ArrowsmithApi } from '../src/h5web/index.js';

export interface RefApi {
  openFileBuffer(b: ArrayBuffer): Promise<bigint>;
  closeFile(id: bigint): Promise<number>;
  getEntity(id: bigint, path: string): Promise<Entity>;
  getValue(id: bigint, path: string, selection?: string): Promise<unknown>;
  getAttrValue(id: bigint, path: string, name: string): Promise<unknown>;
  getDescendantPaths(id: bigint, root: string): Promise<string[]>;
}

export interface Entity {
  name: string;
  path: string;
  kind: string;
  attributes: { name: string; shape: unknown; type: Record<string, unknown> }[];
  children?: Entity[];
  shape?: { class: string; dims?: number[] };
  type?: Record<string, unknown>;
  rawType?: unknown;
  [k: string]: unknown;
}

export interface Diff {
  file: string;
  path: string;
  /** `entity`, `attr <name>`, `value`, `value <selection>`, `paths`. */
  what: string;
  ours: string;
  theirs: string;
  /** The documented reason (docs/h5web.md), or undefined: an unexplained difference fails the suite. */
  reason?: string;
}

/** A value as comparable text: typed arrays with their class, Maps as entries, BigInt marked, NaN kept. */
export function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (typeof x === 'number' && !Number.isFinite(x)) return String(x);
    if (x instanceof Map) return Object.fromEntries(x);
    if (ArrayBuffer.isView(x)) return { [x.constructor.name]: Array.from(x as unknown as ArrayLike<unknown>, (y) => (typeof y === 'bigint' ? `${y}n` : Number.isFinite(y) ? y : String(y))) };
    return x;
  });
}


/** An entity without what is the provider's own (`rawType`); a group's children by name only (each is compared on its own), in the provider's order. */
function normal(e: Entity): Entity {
  const { rawType: _r, children, ...rest } = e;
  const out: Entity = { ...rest };
  if (children) out.children = children.map((c) => ({ name: c.name }) as Entity);
  return out;
}

/** N-D selections h5web asks for: a slice per dimension at its middle, and one element. */
export function selections(dims: number[]): string[] {
  if (dims.length === 0 || dims.some((d) => d === 0)) return [];
  const mid = dims.map((d) => Math.floor(d / 2));
  const out = new Set<string>();
  if (dims.length >= 2) {
    for (let k = 0; k < dims.length; k++) out.add(dims.map((_, j) => (j === k ? String(mid[j]) : ':')).join(','));
    out.add(dims.map((_, j) => (j < dims.length - 2 ? String(mid[j]) : ':')).join(','));
  }
  out.add(mid.join(','));
  return [...out];
}

const size = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/** Compares one file; `explain` gives the documented reason of a difference. */
export async function compareFile(file: string, bytes: Uint8Array, ours: ArrowsmithApi, ref: RefApi, explain: (d: Diff, theirs?: Entity, ours?: Entity) => string | undefined): Promise<{ diffs: Diff[]; datasets: number; selections: number }> {
  const diffs: Diff[] = [];
  let datasets = 0;
  let nsel = 0;
  const id = await ref.openFileBuffer(bytes.slice().buffer);
  const add = (path: string, what: string, a: unknown, b: unknown, e?: Entity, m?: Entity) => {
    const d: Diff = { file, path, what, ours: show(a), theirs: show(b) };
    if (d.ours === d.theirs) return;
    d.reason = explain(d, e, m);
    diffs.push(d);
  };
  const attempt = async <T>(f: () => Promise<T>): Promise<T | { error: string }> => {
    try {
      return await f();
    } catch (e) {
      return { error: (e as Error).message.split('\n')[0]!.slice(0, 160) };
    }
  };
  try {
    const seen = new Set<string>();
    const visit = async (path: string) => {
      if (seen.has(path)) return;
      seen.add(path);
      const theirs = await attempt(() => ref.getEntity(id, path));
      const mine = await attempt(() => ours.getEntity(path));
      const te = 'error' in theirs ? undefined : (theirs as Entity);
      add(path, 'entity', 'error' in mine ? mine : normal(mine as unknown as Entity), te ? normal(te) : theirs, te, 'error' in mine ? undefined : (mine as unknown as Entity));
      if (!te || 'error' in mine) return;
      const me = mine as unknown as Entity;
      if (te.attributes.length) {
        const mv = await attempt(() => ours.getAttrValues(me as never));
        // Our raw types of the attributes, for the reasons (h5web's Attribute has no rawType).
        const raw = new Map((await (await ours.file()).describe(path)).attributes.map((a) => [a.name, a.type]));
        for (const a of te.attributes) {
          const tv = await attempt(() => ref.getAttrValue(id, path, a.name));
          add(path, `attr ${a.name}`, 'error' in mv ? mv : (mv as Record<string, unknown>)[a.name], tv, { ...a } as unknown as Entity, { ...me.attributes.find((x) => x.name === a.name), rawType: raw.get(a.name) } as unknown as Entity);
        }
      }
      if (te.kind === 'group') {
        const mine = new Map((me.children ?? []).map((c) => [c.name, c]));
        for (const c of te.children ?? []) {
          const m = mine.get(c.name);
          add(c.path, 'child', m ? normal(m) : undefined, normal(c), c, m);
          await visit(c.path);
        }
      }
      if (te.kind === 'dataset' && me.kind === 'dataset') {
        datasets++;
        const dims = te.shape?.dims;
        // Ours, whole: what the reasons may need beyond h5web's entity (external storage).
        const full = { ...me, description: await (await ours.file()).describe(path) } as unknown as Entity;
        const value = (sel?: string) => attempt(() => ours.getValue({ dataset: me as never, selection: sel }));
        if (!dims || size(dims) <= 200_000) add(path, 'value', await value(), await attempt(() => ref.getValue(id, path)), te, full);
        for (const s of dims ? selections(dims) : []) {
          nsel++;
          add(path, `value ${s}`, await value(s), await attempt(() => ref.getValue(id, path, s)), te, full);
        }
      }
    };
    await visit('/');
    const paths = async (f: () => Promise<string[]>) => attempt(async () => (await f()).sort());
    add('/', 'paths', await paths(() => ours.getSearchablePaths('/')), await paths(() => ref.getDescendantPaths(id, '/')));
  } finally {
    await ref.closeFile(id);
  }
  return { diffs, datasets, selections: nsel };
}
