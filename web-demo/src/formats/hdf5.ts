// HDF5: groups → datasets (shape, dtype) and attributes; a dataset (or a hyperslab of its
// first dimension) is read into a table. Uses the package's openHdf5 when this build exports it.
import { exported } from '../exports.js';
import type { RecordBatch, Table } from 'apache-arrow';
import { firstNumeric, numbersOf } from './arrow-util.js';
import type { FormatAdapter, Opened, Series, TreeNode } from './types.js';
import { UnsupportedError } from './types.js';

interface Hdf5Child {
  name: string;
  path?: string;
  kind: string;
  shape?: unknown;
  dtype?: unknown;
}
interface Hdf5Reader {
  list(path?: string): Promise<Hdf5Child[]> | Hdf5Child[];
  info?(path: string): Promise<Record<string, unknown>>;
  attrs(path: string): Promise<unknown> | unknown;
  read(path: string, opts?: { start?: number; count?: number }): Promise<Table>;
  batches?(path: string, opts?: { signal?: AbortSignal; rows?: number }): AsyncIterable<RecordBatch>;
  close?(): void;
}

export function hdf5Supported(): boolean {
  return exported('openHdf5') !== undefined;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : ArrayBuffer.isView(x) ? Array.from(x as unknown as ArrayLike<number>) : x));
  return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 79) + '…' : s;
};

async function attrNodes(f: Hdf5Reader, path: string): Promise<TreeNode[]> {
  let a: unknown;
  try {
    a = await f.attrs(path);
  } catch {
    return [];
  }
  const entries = a instanceof Map ? [...a.entries()] : Array.isArray(a) ? a.map((x: { name: string; value: unknown }) => [x.name, x.value]) : Object.entries((a ?? {}) as object);
  const nodes = entries
    .map(([k, v]) => ({ label: `@${String(k)}`, kind: 'attribute' as const, detail: show(v) }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en', { numeric: true }));
  // A few attributes are shown inline; many are folded into one node.
  return nodes.length <= 4 ? nodes : [{ label: `${nodes.length} attributes`, kind: 'attributes' as const, children: nodes, collapsed: true }];
}

async function walk(f: Hdf5Reader, path: string, depth: number, found: { first?: string; depth?: number }): Promise<TreeNode[]> {
  const nodes: TreeNode[] = await attrNodes(f, path);
  if (depth > 32) return nodes;
  const children = [...(await f.list(path))].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  for (const c of children) {
    const p = c.path ?? (path === '/' ? `/${c.name}` : `${path}/${c.name}`);
    if (c.kind === 'group') {
      nodes.push({ label: c.name, kind: 'group', detail: p, children: await walk(f, p, depth + 1, found) });
    } else if (c.kind === 'dataset') {
      // The shallowest dataset is read first (a top-level one when there is one).
      if (found.depth === undefined || depth < found.depth) (found.first = p), (found.depth = depth);
      const shape = Array.isArray(c.shape) || ArrayBuffer.isView(c.shape) ? `(${Array.from(c.shape as ArrayLike<number>).join(', ')})` : c.shape === undefined ? '' : String(c.shape);
      const attrs = await attrNodes(f, p);
      nodes.push({ label: c.name, kind: 'dataset', path: p, detail: `${shape} ${c.dtype === undefined ? '' : String(c.dtype)}`.trim(), children: attrs.length ? attrs : undefined });
    } else {
      nodes.push({ label: c.name, kind: 'info', detail: c.kind });
    }
  }
  return nodes;
}

export const hdf5Adapter: FormatAdapter = {
  format: 'hdf5',
  async open(file, progress): Promise<Opened> {
    if (!hdf5Supported()) throw new UnsupportedError('HDF5 support is not in this build yet (the arrowsmith package does not export openHdf5).');
    const open = exported<(src: Blob | Uint8Array) => Promise<Hdf5Reader>>('openHdf5')!;
    const f = await open(file.blob);
    const found: { first?: string; depth?: number } = {};
    const tree = await walk(f, '/', 0, found);
    progress(file.blob.size, file.blob.size);
    return {
      format: 'hdf5',
      tree,
      initial: { path: found.first },
      async read(sel) {
        if (!sel.path) throw new Error('pick a dataset');
        return f.read(sel.path, { start: sel.offset, count: sel.limit });
      },
      async describe(sel) {
        if (!sel.path || !f.info) return undefined;
        const info = await f.info(sel.path);
        const parts = Object.entries(info)
          .filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))
          .map(([k, v]) => `${k} ${typeof v === 'string' ? v : show(v)}`);
        return `${sel.path}: ${parts.join(' · ')}`;
      },
      // The dataset's first numeric column against its row number, batch by batch.
      async series(sel): Promise<Series> {
        if (!sel.path) throw new Error('pick a dataset');
        if (!f.batches || !f.info) throw new Error('this build cannot stream HDF5 datasets');
        const path = sel.path;
        const info = (await f.info(path)) as { shape?: number[] };
        const total = info.shape?.length ? info.shape[0]! : 1;
        const batches = f.batches.bind(f);
        return {
          label: path,
          xKind: 'row',
          x0: 0,
          x1: total - 1,
          total,
          async *batches(signal) {
            let column: string | undefined;
            for await (const b of batches(path, { signal })) {
              column ??= firstNumeric(b.schema.fields);
              if (column === undefined) throw new Error(`${path} has no numeric column to plot`);
              yield { rows: b.numRows, ...numbersOf(b, column) };
            }
          },
        };
      },
      async batches(sel, { signal, rows }) {
        if (!sel.path) throw new Error('pick a dataset');
        if (!f.batches || !f.info) throw new Error('this build cannot stream HDF5 datasets');
        const info = (await f.info(sel.path)) as { shape?: number[] };
        return { total: info.shape?.length ? info.shape[0] : 1, batches: f.batches(sel.path, { signal, rows }) };
      },
      close: () => f.close?.(),
    };
  },
};
