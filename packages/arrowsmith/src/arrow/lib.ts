/**
 * The parts of Apache Arrow JS this package uses, imported from their own modules. The
 * package entry (`apache-arrow`) also loads the IPC readers and writers, every builder and
 * the stream adapters: about half of the import time of a fresh process, before the first
 * read (docs/decisions.md). The classes are the same objects the entry re-exports, so
 * `instanceof Table` holds for users who import `apache-arrow` themselves.
 */
export { Data, makeData } from 'apache-arrow/data';
export { TimeUnit } from 'apache-arrow/enum';
export { RecordBatch } from 'apache-arrow/recordbatch';
export { Field, Schema } from 'apache-arrow/schema';
export { Table } from 'apache-arrow/table';
export {
  Binary,
  Bool,
  DataType,
  DateDay,
  Dictionary,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  Map_,
  Null,
  Struct,
  Timestamp,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from 'apache-arrow/type';
export { Vector } from 'apache-arrow/vector';
