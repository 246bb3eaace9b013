// MessagePack: the whole file becomes one Arrow table; the "structure" is its schema.
// Big files are streamed through decodeMsgpackStream so progress can be reported.
import { Table, type RecordBatch } from 'apache-arrow';
import { decodeMsgpack, decodeMsgpackStream } from 'arrowsmith';
import { fieldsToTree, filterByTime, findTimeColumn, selectColumns } from './arrow-util.js';
import type { FormatAdapter, Opened, Progress, Selection } from './types.js';

/** Files above this size are streamed in chunks (progress bar); smaller ones decoded whole. */
/** The batches of a stream inferred different schemas: decode the file whole instead. */
class SchemaDrift extends Error {}

export const STREAM_THRESHOLD = 4 << 20;
const CHUNK = 1 << 20;

async function decodeStreaming(bytes: Uint8Array, progress: Progress): Promise<Table> {
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += CHUNK) {
      yield bytes.subarray(at, Math.min(bytes.length, at + CHUNK));
      progress(Math.min(bytes.length, at + CHUNK), bytes.length);
      // Let the progress message go out before the next chunk is decoded.
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  const batches: RecordBatch[] = [];
  for await (const b of decodeMsgpackStream(chunks(), { batchRows: 65536 })) batches.push(b);
  const sig = (b: RecordBatch) => b.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`).join(',');
  if (batches.some((b) => sig(b) !== sig(batches[0]!))) throw new SchemaDrift();
  return new Table(batches);
}

export const msgpackAdapter: FormatAdapter = {
  format: 'msgpack',
  async open(file, progress): Promise<Opened> {
    const bytes = await file.bytes();
    let table: Table;
    if (bytes.length > STREAM_THRESHOLD) {
      try {
        table = await decodeStreaming(bytes, progress);
      } catch (e) {
        // Batches whose inferred schemas differ cannot form one table: decode it whole
        // (a real decode error is thrown again from here, with its offset).
        if (!(e instanceof SchemaDrift)) throw e;
        table = decodeMsgpack(bytes);
      }
    } else {
      table = decodeMsgpack(bytes);
    }
    progress(bytes.length, bytes.length);
    const timeColumn = findTimeColumn(table);
    return {
      format: 'msgpack',
      tree: fieldsToTree(table.schema.fields),
      initial: {},
      timeColumn,
      timeFilterPushed: false,
      read: async (sel) => selected(sel),
      // The file is decoded whole when opened: its selection, cut into batches of `rows`.
      async batches(sel, { signal, rows }) {
        const t = selected({ ...sel, offset: undefined, limit: undefined });
        const step = Math.max(1, rows ?? 65_536);
        async function* cut() {
          for (let at = 0; at < t.numRows; at += step) {
            signal.throwIfAborted();
            yield* t.slice(at, Math.min(t.numRows, at + step)).batches;
          }
        }
        return { total: t.numRows, batches: cut() };
      },
    };
    function selected(sel: Selection): Table {
      let t = timeColumn ? filterByTime(table, timeColumn, sel.start, sel.end) : table;
      t = selectColumns(t, sel.columns, timeColumn);
      if (sel.offset !== undefined || sel.limit !== undefined) {
        const from = Math.min(t.numRows, sel.offset ?? 0);
        t = t.slice(from, sel.limit === undefined ? t.numRows : Math.min(t.numRows, from + sel.limit));
      }
      return t;
    }
  },
};
