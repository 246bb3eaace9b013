// Apache TsFile: tables → devices → measurements; reads push the time filter into the
// reader. Uses the package's openTsFile when this build exports it.
import { exported } from '../exports.js';
import type { Table } from 'apache-arrow';
import type { FormatAdapter, Opened, TreeNode } from './types.js';
import { UnsupportedError } from './types.js';

/** The shape the demo expects from `openTsFile` (see the report to the lead). */
interface TsFileReader {
  version?: unknown;
  tables(): Promise<unknown[]> | unknown[];
  schema(table: string): Promise<unknown> | unknown;
  devices(table: string): Promise<unknown[]> | unknown[];
  read(q: { table: string; devices?: string[]; columns?: string[]; start?: number | bigint; end?: number | bigint; limit?: number }): Promise<Table>;
  close?(): void;
}

const nameOf = (x: unknown): string =>
  typeof x === 'string' ? x : x && typeof x === 'object' ? String((x as { name?: unknown; id?: unknown }).name ?? (x as { id?: unknown }).id ?? JSON.stringify(x)) : String(x);

function columnsOf(schema: unknown): { name: string; detail: string }[] {
  if (!schema) return [];
  // An Arrow Schema, or a list of { name, type/dataType, category } entries.
  const fields = (schema as { fields?: unknown[] }).fields ?? (Array.isArray(schema) ? schema : (schema as { columns?: unknown[] }).columns) ?? [];
  return (fields as { name: string; type?: unknown; dataType?: unknown; category?: unknown }[]).map((f) => ({
    name: nameOf(f),
    detail: [f.type ?? f.dataType, f.category].filter((x) => x !== undefined).map(String).join(' '),
  }));
}

export function tsfileSupported(): boolean {
  return exported('openTsFile') !== undefined;
}

export const tsfileAdapter: FormatAdapter = {
  format: 'tsfile',
  async open(bytes, progress): Promise<Opened> {
    if (!tsfileSupported()) throw new UnsupportedError('TsFile support is not in this build yet (the arrowsmith package does not export openTsFile).');
    const open = exported<(src: Uint8Array) => Promise<TsFileReader>>('openTsFile')!;
    const f = await open(bytes);
    progress(bytes.length, bytes.length);
    const tree: TreeNode[] = [];
    const tables = (await f.tables()).map(nameOf);
    for (const table of tables) {
      const cols = columnsOf(await f.schema(table));
      const devices = (await f.devices(table)).map(nameOf);
      tree.push({
        label: table,
        kind: 'table',
        path: table,
        detail: `${devices.length} devices, ${cols.length} columns`,
        children: [
          { label: 'devices', kind: 'group', children: devices.map((d) => ({ label: d, kind: 'device' as const, device: d })) },
          { label: 'measurements', kind: 'group', children: cols.map((c) => ({ label: c.name, kind: 'measurement' as const, column: c.name, detail: c.detail })) },
        ],
      });
    }
    if (f.version !== undefined) tree.unshift({ label: `TsFile version ${String(f.version)}`, kind: 'info' });
    return {
      format: 'tsfile',
      tree,
      initial: { path: tables[0] },
      timeColumn: 'time',
      timeFilterPushed: true,
      async read(sel) {
        if (!sel.path) throw new Error('pick a table');
        return f.read({ table: sel.path, devices: sel.devices?.length ? sel.devices : undefined, columns: sel.columns?.length ? sel.columns : undefined, start: sel.start, end: sel.end, limit: sel.limit });
      },
      close: () => f.close?.(),
    };
  },
};
