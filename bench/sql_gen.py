#!/usr/bin/env python3
"""The SQL benchmark's twins of a TsFile (bench/sql.bench.mjs): every row of `bench_table` read
with the official TsFile reader (PyPI tsfile, as bench/parquet_gen.py), rows in device then
time order, `time` a TIMESTAMP (ms, no time zone) as Arrowsmith gives it, written as
  STEM.csv     pyarrow's CSV writer (header, ISO timestamps, shortest round-trip floats),
  STEM.arrows  an Arrow IPC stream (pyarrow, uncompressed: DuckDB-wasm reads no compressed IPC),
  STEM.duckdb  a DuckDB database file (Python duckdb) with the table `data`, storage
               compatible with DuckDB 1.0 (read by DuckDB-wasm 1.32, DuckDB 1.4).

    .venv/bin/python bench/sql_gen.py IN.tsfile OUT_STEM
Prints one JSON line: {"rows": N, "files": {"csv": path, ...}}.
"""
import json
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.csv as pcsv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "python", "tests"))
import official  # noqa: E402  (the official reader drained to a Table)

FIELDS = ["id1", "s1", "s2", "s3", "s4"]


def read_tsfile(path):
    t = official.query_table(path, "bench_table", FIELDS).sort_by([("id1", "ascending"), ("time", "ascending")])
    # The official reader gives time as int64 ms: the twins carry a timestamp, as the demo's table does.
    t = t.set_column(t.schema.get_field_index("time"), "time", t.column("time").cast(pa.int64()).cast(pa.timestamp("ms")))
    return t.cast(pa.schema([pa.field(f.name, pa.string() if pa.types.is_large_string(f.type) else f.type) for f in t.schema]))


def main(src, stem):
    t = read_tsfile(src)
    files = {"csv": stem + ".csv", "ipc": stem + ".arrows", "db": stem + ".duckdb"}
    tmp = {k: v + ".tmp" for k, v in files.items()}
    pcsv.write_csv(t, tmp["csv"])
    with pa.OSFile(tmp["ipc"], "wb") as f, pa.ipc.new_stream(f, t.schema) as w:
        w.write_table(t)
    if os.path.exists(tmp["db"]):
        os.remove(tmp["db"])
    con = duckdb.connect(tmp["db"], config={"storage_compatibility_version": "v1.0.0"})
    con.register("t", t)
    con.execute("CREATE TABLE data AS SELECT * FROM t")
    con.close()
    for k in files:
        os.replace(tmp[k], files[k])
    print(json.dumps({"rows": t.num_rows, "files": files}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
