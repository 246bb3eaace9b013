"""h5py (HDF5 C library) timed inside Python: the native peer in bench/hdf5.bench.mjs.
Each run opens the file from bytes in memory (io.BytesIO) and reads the whole dataset.

    .venv/bin/python bench/hdf5_native.py FILE DATASET RUNS
Prints JSON: {"median_ms", "min_ms", "rows"}.

    .venv/bin/python bench/hdf5_native.py --cold FILE DATASET
In this fresh process: `import h5py` timed, then reads 1-3, each timed (bench/coldwarm.mjs).
"""
import io
import json
import statistics
import sys
import time

from cold_timing import reads, timed

lib = {}


def load():
    import h5py

    lib["h5py"] = h5py


def run(data, name):
    with lib["h5py"].File(io.BytesIO(data), "r") as f:
        return len(f[name][...])


def cold(path, name):
    data = open(path, "rb").read()
    steps = {}
    timed(steps, "import", load)
    rows, table_at = reads(steps, lambda: run(data, name))
    print(json.dumps({"steps": steps, "rows": rows[0], "tableAt": table_at}))


def warm(path, name, runs):
    load()
    data = open(path, "rb").read()
    rows = run(data, name)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        run(data, name)
        times.append((time.perf_counter() - t) * 1e3)
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times), "rows": rows}))


if __name__ == "__main__":
    if sys.argv[1] == "--cold":
        cold(sys.argv[2], sys.argv[3])
    else:
        warm(sys.argv[1], sys.argv[2], int(sys.argv[3]))
