/** Attributes of a group or dataset, as Arrow vectors or as plain JS values. */
import type { Vector } from '../../arrow/lib.js';
import type { Hdf5Core } from './core.js';

/**
 * Arrow cell values as plain JS: lists → arrays, structs → objects, at every depth. (Struct
 * rows are proxies whose `in` sees only field names, so methods are looked up by access.)
 */
function plain(v: unknown): unknown {
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
    const o = v as { toArray?: unknown; toJSON?: unknown };
    if (typeof o.toArray === 'function' && Symbol.iterator in v) return [...(v as Iterable<unknown>)].map(plain);
    if (typeof o.toJSON === 'function') return Object.fromEntries(Object.entries((o.toJSON as () => object).call(v)).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

/** The attributes of `path` as Arrow vectors, by name, in the order stored. */
export function attrColumns(core: Hdf5Core, path: string, signal?: AbortSignal): Promise<Map<string, Vector>> {
  return core.op(async () => {
    const handles = await core.call(() => core.handle.attrs(path), signal);
    const out = new Map<string, Vector>();
    for (const h of handles) {
      const b = core.batch(h);
      out.set(b.schema.fields[0]!.name, b.getChildAt(0)!);
    }
    return out;
  });
}

/** The attributes of `path`: scalars as values, arrays as arrays. */
export async function attrValues(core: Hdf5Core, path: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, col] of await attrColumns(core, path, signal)) out[name] = col.length === 1 ? plain(col.get(0)) : [...col].map(plain);
  return out;
}
