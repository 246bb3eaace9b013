/** Plain-text rendering of tables for the CLI (schema + the first rows). */
import type { Table } from 'apache-arrow';

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `0x${Buffer.from(v.subarray(0, 16)).toString('hex')}${v.length > 16 ? '…' : ''}`;
  if (typeof v === 'object' && v !== null && 'toJSON' in v) {
    return JSON.stringify((v as { toJSON(): unknown }).toJSON(), (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  }
  return String(v);
}

export function schemaText(table: Table): string {
  return table.schema.fields.map((f) => `  ${f.name}: ${f.type}${f.nullable ? '' : ' (not null)'}`).join('\n');
}

export function rowsText(table: Table, limit = 10, width = 24): string {
  const names = table.schema.fields.map((f) => f.name);
  const cols = names.map((_, i) => table.getChildAt(i)!);
  const n = Math.min(limit, table.numRows);
  const clip = (s: string) => (s.length > width ? s.slice(0, width - 1) + '…' : s);
  const grid = [names.map(clip)];
  for (let r = 0; r < n; r++) grid.push(cols.map((c) => clip(cellText(c.get(r)))));
  const widths = names.map((_, j) => Math.max(...grid.map((row) => row[j]!.length)));
  return grid.map((row) => row.map((s, j) => s.padEnd(widths[j]!)).join('  ').trimEnd()).join('\n');
}
