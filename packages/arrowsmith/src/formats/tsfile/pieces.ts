/**
 * A one-thread read of many rows in pieces: consecutive devices grouped up to about a
 * batch of output each (from their index row counts), for the devices of one table (one
 * schema). Each piece's output leaves wasm memory before the next is decoded, so a whole
 * read grows wasm memory by one piece instead of the whole output (fewer first-touch page
 * faults on a first read, less memory kept).
 */
import type { TsFileQuery } from '../../types.js';
import type { TsReads } from './core.js';
import { DEFAULT_MAX_READ_BYTES, tsfileBatchRows } from './sizes.js';
import { fieldCount, selection } from './select.js';

/** The device groups of `q` and the rows of all of them; undefined: read in one go. */
export async function pieces(f: TsReads, q: TsFileQuery, pieceRows: number | undefined): Promise<{ groups: string[][]; rows: number } | undefined> {
  // A time range reads fewer rows than the index counts: the output buffers (Slabs),
  // sized from those counts, would be too large.
  if (q.limit !== undefined || q.start !== undefined || q.end !== undefined) return undefined;
  const tables = f.tables();
  const sel = selection(tables, f.devices(), q);
  // Pieces name their devices by path: two devices of one path (a tag "null" beside a
  // null tag) would each be read twice.
  if (!sel?.table || sel.devices.length < 2 || new Set(sel.devices).size < sel.devices.length) return undefined;
  const fields = fieldCount(tables, q);
  const target = pieceRows ?? tsfileBatchRows(fields);
  const groups: string[][] = [[]];
  let rows = 0;
  let total = 0;
  for (const d of sel.devices) {
    const span = await f.span(d);
    const n = span.length >= 3 ? Number(span[2]) : 0;
    if (rows > 0 && rows + n > target) {
      groups.push([]);
      rows = 0;
    }
    groups[groups.length - 1]!.push(d);
    rows += n;
    total += n;
  }
  // The memory limit holds for the whole read: one over it is read in one go, which
  // fails with `too-large` as it would without pieces.
  if (total * 8 * (1 + fields) > (f.core.readLimit(q.maxReadBytes) ?? DEFAULT_MAX_READ_BYTES)) return undefined;
  return groups.length > 1 ? { groups, rows: total } : undefined;
}
