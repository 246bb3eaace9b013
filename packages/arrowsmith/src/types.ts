/** Query and option types shared by the format readers and the pool protocol (no imports: no cycles). */

export type TimeValue = number | bigint | Date;

export interface TsFileQuery {
  /** v4 table name (default: the only table, or the tree-model devices). */
  table?: string;
  /** Device paths to read (default: all). */
  devices?: string[];
  /** Field columns to read (default: all); `time` and tag columns always come along. */
  columns?: string[];
  /** Inclusive time range, in the file's time unit (ms unless the writer chose another). */
  start?: TimeValue;
  end?: TimeValue;
  /** Equality filter per tag column. */
  tags?: Record<string, string>;
  /** At most this many rows. */
  limit?: number;
  /** Unit of the `time` column's Arrow type (the values are the file's). Default 'ms'. */
  timeUnit?: 's' | 'ms' | 'us' | 'ns';
  /** Cancels a read on a worker pool (the busy workers are replaced). */
  signal?: AbortSignal;
}
