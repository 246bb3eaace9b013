"""The official TsFile reader (PyPI `tsfile`, C++ core) timed inside Python: the peer in
bench/tsfile.bench.mjs. Each run opens the file, queries the table and drains
read_arrow_batch() until done (the batch API of the C++ "Read Opt." work).

    .venv/bin/python bench/tsfile_native.py FILE QUERY RUNS   # QUERY: full | device | third
Warms up for 300 ms, then runs at least RUNS times and for at least 2 s (the same budget
tinybench gives Arrowsmith): a median of a handful of runs swings by half between processes.
Prints JSON: {"median_ms", "min_ms", "rows", "runs"}.

    .venv/bin/python bench/tsfile_native.py --cold FILE QUERY
In this fresh process: `import tsfile` timed, then reads 1-3, each timed (bench/coldwarm.mjs).
"""
import json
import statistics
import sys
import time

from cold_timing import reads, timed

FIELDS = ["s1", "s2", "s3", "s4"]
T0, DEVICE_ROWS = 1_700_000_000_000, 100_000
lib = {}


def load():
    import tsfile
    from tsfile.tag_filter import ComparisonTagFilter

    lib["tsfile"], lib["filter"] = tsfile, ComparisonTagFilter


def run(path, query):
    tsfile, ComparisonTagFilter = lib["tsfile"], lib["filter"]
    r = tsfile.TsFileReader(path)
    kw = {}
    if query == "device":
        kw["tag_filter"] = ComparisonTagFilter("id1", "device03", ComparisonTagFilter.EQ)
    if query == "third":
        kw["start_time"] = T0 + DEVICE_ROWS * 1000 // 3
        kw["end_time"] = T0 + 2 * DEVICE_ROWS * 1000 // 3 - 1
    rs = r.query_table("bench_table", FIELDS, batch_size=65536, **kw)
    rows = 0
    while True:
        b = rs.read_arrow_batch()
        if b is None or b.num_rows == 0:
            break
        rows += b.num_rows
    rs.close()
    r.close()
    return rows


def cold(path, query):
    steps = {}
    timed(steps, "import", load)
    rows, table_at = reads(steps, lambda: run(path, query))
    assert rows[0] == rows[1] == rows[2]
    print(json.dumps({"steps": steps, "rows": rows[0], "tableAt": table_at}))


def warm(path, query, runs):
    load()
    rows = run(path, query)  # warm-up (and page cache)
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3:
        assert run(path, query) == rows
    times = []
    start = time.perf_counter()
    while len(times) < runs or time.perf_counter() - start < 2.0:
        t = time.perf_counter()
        n = run(path, query)
        times.append((time.perf_counter() - t) * 1e3)
        assert n == rows
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times), "rows": rows, "runs": len(times)}))


if __name__ == "__main__":
    if sys.argv[1] == "--cold":
        cold(sys.argv[2], sys.argv[3])
    else:
        warm(sys.argv[1], sys.argv[2], int(sys.argv[3]))
