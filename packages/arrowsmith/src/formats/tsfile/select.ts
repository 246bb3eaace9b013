/** Which devices a query reads, and how wide its batches are. */
import type { TsFileQuery } from '../../types.js';
import type { TsFileDevice, TsFileTable } from './types.js';

/** The query's table: the one named (any case), else the only one; undefined for none or many. */
function tableOf(tables: TsFileTable[], q: TsFileQuery): TsFileTable | undefined {
  return q.table !== undefined ? tables.find((t) => t.name.toLowerCase() === q.table!.toLowerCase()) : tables.length === 1 ? tables[0] : undefined;
}

/**
 * The devices a query reads, in the order a read returns them, and whether they are one
 * table's (one schema). Undefined when one read should give the answer or error (an
 * ambiguous table, an unknown tag or device, no device).
 */
export function selection(tables: TsFileTable[], all: TsFileDevice[], q: TsFileQuery): { devices: string[]; table: boolean } | undefined {
  const table = tableOf(tables, q);
  if ((q.table !== undefined || tables.length > 1) && !table) return undefined;
  const tagNames = table?.columns.filter((c) => c.category === 'TAG').map((c) => c.name.toLowerCase()) ?? [];
  const tags = Object.entries(q.tags ?? {}).map(([k, v]) => [tagNames.indexOf(k.toLowerCase()), v] as const);
  if (tags.some(([k]) => k < 0)) return undefined;
  if (q.devices?.some((p) => !all.some((d) => d.path === p))) return undefined;
  const devices = all
    .filter((d) => !table || d.table.toLowerCase() === table.name.toLowerCase())
    .filter((d) => !q.devices || q.devices.includes(d.path))
    .filter((d) => tags.every(([k, v]) => d.segments[k + 1] === v))
    .map((d) => d.path);
  return devices.length ? { devices, table: table !== undefined } : undefined;
}

/** Field columns a batch of the query holds (for the default rows per batch). */
export function fieldCount(tables: TsFileTable[], q: TsFileQuery): number {
  if (q.columns?.length) return q.columns.length;
  const table = tableOf(tables, q);
  return table ? table.columns.filter((c) => c.category === 'FIELD').length : 8;
}
