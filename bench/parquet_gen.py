#!/usr/bin/env python3
"""The TsFile benchmark files as Parquet (bench/parquet.bench.mjs): every row of `bench_table`
read with the official TsFile reader (PyPI tsfile, query_table + read_arrow_batch), written by
pyarrow with Snappy, one row group per device (the TsFile's chunk group per device), rows in
device then time order, statistics on (min/max per row group, so a reader can skip row groups
by `id1` or `time`).

    .venv/bin/python bench/parquet_gen.py IN.tsfile OUT.parquet
Columns: time INT64 (ms), id1 UTF8, s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32 (nulls kept).
"""
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "python", "tests"))
import official  # noqa: E402  (the official reader drained to a Table)

FIELDS = ["id1", "s1", "s2", "s3", "s4"]


def read_tsfile(path):
    t = official.query_table(path, "bench_table", FIELDS)
    return t.sort_by([("id1", "ascending"), ("time", "ascending")])


def main(src, out):
    t = read_tsfile(src)
    devices = t.column("id1").unique()
    tmp = out + ".tmp"
    with pq.ParquetWriter(tmp, t.schema, compression="snappy", write_statistics=True) as w:
        for d in devices.to_pylist():
            w.write_table(t.filter(pa.compute.equal(t.column("id1"), d)), row_group_size=t.num_rows)
    os.replace(tmp, out)
    meta = pq.ParquetFile(out).metadata
    print(out, os.path.getsize(out), "bytes,", meta.num_rows, "rows,", meta.num_row_groups, "row groups")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
