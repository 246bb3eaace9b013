/**
 * Arrow IPC writing, from its own module of the app's apache-arrow (as lib.ts does for
 * the classes): only `arrowsmith/duckdb` loads it, so the main entry never pays for it.
 */
export { RecordBatchStreamWriter } from 'apache-arrow/ipc/writer';
