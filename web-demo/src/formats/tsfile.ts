// Apache TsFile: tables → devices → measurements; reads push the time filter into the
// reader. Uses the package's openTsFile when this build exports it.
import { exported } from '../exports.js';
import type { RecordBatch, Table } from 'apache-arrow';
import { numbersOf } from './arrow-util.js';
import type { FormatAdapter, Opened, Series, TreeNode } from './types.js';
import { UnsupportedError } from './types.js';

/** The package's TsFile reader (arrowsmith's `TsFile`), as far as the demo uses it. */
interface TsFileReader {
  version?: unknown;
  tables(): Promise<unknown[]> | unknown[];
  schema(table: string): Promise<unknown> | unknown;
  devices(table?: string): Promise<unknown[]> | unknown[];
  timeseries?(): Promise<{ device: string; measurement: string; type?: string; count?: number; start?: bigint | number; end?: bigint | number; chunks?: number }[]>;
  read(q: { table?: string; devices?: string[]; columns?: string[]; start?: number | bigint; end?: number | bigint; limit?: number }): Promise<Table>;
  batches?(q: { table?: string; devices?: string[]; columns?: string[]; start?: number | bigint; end?: number | bigint; rows?: number; signal?: AbortSignal }): AsyncIterable<RecordBatch>;
  close?(): void;
}

const nameOf = (x: unknown): string => {
  if (typeof x === 'string') return x;
  if (x && typeof x === 'object') {
    const o = x as { name?: unknown; path?: unknown; id?: unknown };
    return String(o.name ?? o.path ?? o.id ?? JSON.stringify(x));
  }
  return String(x);
};

interface Column {
  name: string;
  detail: string;
  category?: string;
}

function columnsOf(schema: unknown): Column[] {
  if (!schema) return [];
  // { name, columns: [{ name, type, category }] }, an Arrow Schema, or a plain list.
  const fields = (schema as { fields?: unknown[] }).fields ?? (Array.isArray(schema) ? schema : (schema as { columns?: unknown[] }).columns) ?? [];
  return (fields as { name: string; type?: unknown; dataType?: unknown; category?: unknown; encoding?: unknown; compression?: unknown }[]).map((f) => ({
    name: nameOf(f),
    category: f.category === undefined ? undefined : String(f.category),
    detail: [f.type ?? f.dataType, f.category, f.encoding, f.compression].filter((x) => x !== undefined && x !== null).map(String).join(' '),
  }));
}

export function tsfileSupported(): boolean {
  return exported('openTsFile') !== undefined;
}

export const tsfileAdapter: FormatAdapter = {
  format: 'tsfile',
  async open(file, progress): Promise<Opened> {
    if (!tsfileSupported()) throw new UnsupportedError('TsFile support is not in this build yet (the arrowsmith package does not export openTsFile).');
    const open = exported<(src: Blob | Uint8Array) => Promise<TsFileReader>>('openTsFile')!;
    const f = await open(file.blob);
    progress(file.blob.size, file.blob.size);
    const tree: TreeNode[] = [];
    const seriesColumns = new Set<string>();
    const tables = (await f.tables()).map(nameOf);
    for (const table of tables) {
      const cols = columnsOf(await f.schema(table));
      const devices = (await f.devices(table)).map(nameOf);
      const tags = cols.filter((c) => c.category === 'TAG');
      for (const t of tags) seriesColumns.add(t.name);
      const fields = cols.filter((c) => c.category !== 'TAG' && c.category !== 'TIME' && c.category !== 'ATTRIBUTE' && c.name !== 'time');
      tree.push({
        label: table,
        kind: 'table',
        path: table,
        detail: `${devices.length} devices, ${fields.length} fields`,
        children: [
          { label: 'devices', kind: 'group', children: devices.map((d) => ({ label: d, kind: 'device' as const, device: d })) },
          ...(tags.length ? [{ label: 'tags', kind: 'group' as const, children: tags.map((c) => ({ label: c.name, kind: 'info' as const, detail: c.detail })) }] : []),
          { label: 'measurements', kind: 'group', children: fields.map((c) => ({ label: c.name, kind: 'measurement' as const, column: c.name, detail: c.detail })) },
        ],
      });
    }
    if (!tables.length) {
      // Tree model (TsFile 1.x): devices with their measurements, from the series index.
      const series = (await f.timeseries?.()) ?? [];
      const devices = new Map<string, TreeNode[]>();
      for (const d of (await f.devices()).map(nameOf)) devices.set(d, []);
      for (const s of series) {
        const list = devices.get(s.device) ?? [];
        list.push({ label: s.measurement, kind: 'measurement', column: s.measurement, detail: [s.type, s.count === undefined ? undefined : `${s.count} points`].filter(Boolean).join(', ') });
        devices.set(s.device, list);
      }
      for (const [d, ms] of devices) tree.push({ label: d, kind: 'device', device: d, children: ms });
    }
    if (f.version !== undefined) tree.unshift({ label: `TsFile version ${String(f.version)}`, kind: 'info' });
    return {
      format: 'tsfile',
      tree,
      initial: { path: tables[0] },
      timeColumn: 'time',
      // Table model: a device is a combination of tags; tree model: the device column.
      seriesColumns: tables.length ? [...seriesColumns] : ['device'],
      timeFilterPushed: true,
      async read(sel) {
        return f.read({ table: sel.path, devices: sel.devices?.length ? sel.devices : undefined, columns: sel.columns?.length ? sel.columns : undefined, start: sel.start, end: sel.end, limit: sel.limit });
      },
      async describe(sel) {
        const series = (await f.timeseries?.()) ?? [];
        const devices = new Map<string, { n: number; points: number; start: number; end: number }>();
        for (const s of series) {
          const d = devices.get(s.device) ?? { n: 0, points: 0, start: Infinity, end: -Infinity };
          d.n++;
          d.points += s.count ?? 0;
          if (s.start !== undefined) d.start = Math.min(d.start, Number(s.start));
          if (s.end !== undefined) d.end = Math.max(d.end, Number(s.end));
          devices.set(s.device, d);
        }
        const wanted = [...devices].filter(([k]) => !sel.path || k === sel.path || k.startsWith(`${sel.path}.`));
        if (!wanted.length) return undefined;
        const t = (x: number) => (Number.isFinite(x) ? new Date(x).toISOString() : '?');
        return wanted.map(([k, d]) => `${k}: ${d.n} series, ${d.points.toLocaleString('en-US')} points, ${t(d.start)} → ${t(d.end)}`).join('\n');
      },
      // One measurement of one device (the ticked ones, else the first numeric), against time.
      async series(sel): Promise<Series> {
        if (!f.batches || !f.timeseries) throw new Error('this build cannot stream TsFile series');
        const numeric = /^(INT32|INT64|FLOAT|DOUBLE|TIMESTAMP)$/;
        const all = (await f.timeseries()).filter((s) => numeric.test(String(s.type)) && (s.count ?? 0) > 0);
        const s = all.find((x) => (!sel.devices?.length || sel.devices.includes(x.device)) && (!sel.columns?.length || sel.columns.includes(x.measurement)));
        if (!s) throw new Error('no numeric series in the selection');
        const batches = f.batches.bind(f);
        const table = tables.find((t) => s.device === t || s.device.startsWith(`${t}.`));
        return {
          label: `${s.device} ${s.measurement}`,
          xKind: 'time',
          x0: Number(s.start),
          x1: Number(s.end),
          // Rows of the device (aligned series hold nulls where a field has no value).
          total: Math.max(...all.filter((x) => x.device === s.device).map((x) => x.count ?? 0)),
          async *batches(signal) {
            for await (const b of batches({ table, devices: [s.device], columns: [s.measurement], signal })) {
              const time = b.getChild('time')!.data[0]!;
              yield { rows: b.numRows, xs: time.values as ArrayLike<bigint>, ...numbersOf(b, s.measurement) };
            }
          },
        };
      },
      async batches(sel, { signal, rows }) {
        if (!f.batches) throw new Error('this build cannot stream TsFile tables');
        const devices = sel.devices?.length ? sel.devices : undefined;
        // Rows per device: its longest series (aligned series hold nulls where a field has none).
        let total: number | undefined;
        if (sel.start === undefined && sel.end === undefined && f.timeseries) {
          const most = new Map<string, number>();
          for (const s of await f.timeseries()) {
            const inTable = !sel.path || s.device === sel.path || s.device.startsWith(`${sel.path}.`);
            if (inTable && (!devices || devices.includes(s.device))) most.set(s.device, Math.max(most.get(s.device) ?? 0, s.count ?? 0));
          }
          total = [...most.values()].reduce((a, b) => a + b, 0) || undefined;
        }
        return { total, batches: f.batches({ table: sel.path, devices, columns: sel.columns?.length ? sel.columns : undefined, start: sel.start, end: sel.end, rows, signal }) };
      },
      close: () => f.close?.(),
    };
  },
};
