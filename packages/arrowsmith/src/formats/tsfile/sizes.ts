/** How much a TsFile read holds at once: batch rows, held bytes, memory limits. */

/** Fetched bytes the windows of one device keep supplied for the next window, at most. */
export const HOLD_BYTES = 64 * 1024 * 1024;

/** Output bytes a default batch holds, about (as HDF5's batches). */
const BATCH_BYTES = 16 * 1024 * 1024;

/** Wasm memory a whole read in pieces grows into, about (one piece's output and working bytes). */
export const TSFILE_PIECE_MEMORY = BATCH_BYTES;

/** JS output memory the warm start writes for the first reads' columns (`reserveOutput` in arrow/batch.ts). */
export const TSFILE_OUTPUT_RESERVE = 32 * 1024 * 1024;

/** The decoder's memory limit of a read when none is set (crates/tsfile `DEFAULT_MAX_READ_BYTES`). */
export const DEFAULT_MAX_READ_BYTES = 2 ** 30;

/** Default rows per batch: about BATCH_BYTES of output, counting 8 bytes per field and the time. */
export function tsfileBatchRows(fields: number): number {
  return Math.max(1024, Math.floor(BATCH_BYTES / (8 * (1 + Math.max(1, fields)))));
}
