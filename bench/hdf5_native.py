"""h5py (HDF5 C library) timed inside Python: the native peer in bench/hdf5.bench.mjs.
Each run opens the file from bytes in memory (io.BytesIO) and reads the whole dataset.

    .venv/bin/python bench/hdf5_native.py FILE DATASET RUNS
Prints JSON: {"median_ms", "min_ms", "rows"}.
"""
import io
import json
import statistics
import sys
import time

import h5py

path, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()


def run():
    with h5py.File(io.BytesIO(data), "r") as f:
        return len(f[name][...])


rows = run()
times = []
for _ in range(runs):
    t = time.perf_counter()
    run()
    times.append((time.perf_counter() - t) * 1e3)
print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times), "rows": rows}))
