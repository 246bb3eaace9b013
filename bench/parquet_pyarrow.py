"""pyarrow reading the benchmark's Parquet files (bench/parquet_gen.py), timed inside Python:
a peer in bench/parquet.bench.mjs. Each run reads the file's bytes (in memory, as the JS
readers get them) into a pyarrow Table with pq.read_table; the tag and time queries pass
`filters`, which skip row groups by their statistics and filter the rows of the rest.

    .venv/bin/python bench/parquet_pyarrow.py FILE QUERY THREADS RUNS   # QUERY: full | device | third; THREADS: on | off
Warms up for 300 ms, then runs at least RUNS times and for at least 2 s (the budget tinybench
gives the JS readers). Prints JSON: {"median_ms", "min_ms", "rows", "s4sum", "runs"}.

    .venv/bin/python bench/parquet_pyarrow.py --cold FILE QUERY THREADS
In this fresh process: `import pyarrow.parquet` timed, then reads 1-3, each timed (bench/coldwarm.mjs).
"""
import json
import os
import statistics
import sys
import time

from cold_timing import timed

T0, DEVICE_ROWS = 1_700_000_000_000, 100_000
lib = {}


def load():
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    lib["pa"], lib["pc"], lib["pq"] = pa, pc, pq


def filters(query):
    if query == "device":
        return [("id1", "=", "device03")]
    if query == "third":
        return [("time", ">=", T0 + DEVICE_ROWS * 1000 // 3), ("time", "<=", T0 + 2 * DEVICE_ROWS * 1000 // 3 - 1)]
    return None


def run(data, query, threads):
    pa, pq = lib["pa"], lib["pq"]
    return pq.read_table(pa.BufferReader(data), filters=filters(query), use_threads=threads)


def check(t):
    """Rows and the sum of column s4 (the value check every contender must match)."""
    return t.num_rows, int(lib["pc"].sum(t.column("s4")).as_py() or 0)


def cold(path, query, threads):
    with open(path, "rb") as f:
        data = f.read()
    steps = {}
    timed(steps, "import", load)
    tables = [timed(steps, f"read{k}", lambda: run(data, query, threads)) for k in (1, 2, 3)]
    rows, s4 = check(tables[0])
    assert check(tables[2]) == (rows, s4)
    print(json.dumps({"steps": steps, "rows": rows, "s4sum": s4}))


def warm(path, query, threads, runs):
    load()
    with open(path, "rb") as f:
        data = f.read()
    rows, s4 = check(run(data, query, threads))
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3:
        run(data, query, threads)
    times = []
    start = time.perf_counter()
    while len(times) < runs or time.perf_counter() - start < 2.0:
        t = time.perf_counter()
        n = run(data, query, threads).num_rows
        times.append((time.perf_counter() - t) * 1e3)
        assert n == rows
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times), "rows": rows, "s4sum": s4, "runs": len(times)}))


if __name__ == "__main__":
    if sys.argv[1] == "--cold":
        cold(sys.argv[2], sys.argv[3], sys.argv[4] == "on")
    else:
        warm(sys.argv[1], sys.argv[2], sys.argv[3] == "on", int(sys.argv[4]))
    # The answer is out: leave without the interpreter's teardown, where pyarrow's thread
    # pool (use_threads) was seen to abort ("terminate called without an active exception").
    sys.stdout.flush()
    os._exit(0)
