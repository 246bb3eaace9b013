"""Per-pixel min/max of an HDF5 dataset's rows, read by h5py (the writer's own reader): what
the demo's streamed plot must show (tests/browser/big.mjs).

    .venv/bin/python bench/big_minmax.py FILE WIDTH [--dataset /x]

Pixel p holds rows r with floor(r * WIDTH / N) == p (N rows), the demo's mapping.
Prints JSON: {"rows": N, "width": W, "min": [...], "max": [...], "count": [...]}.
"""
import argparse
import json

import h5py
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("width", type=int)
ap.add_argument("--dataset", default="/x")
a = ap.parse_args()
with h5py.File(a.file, "r") as f:
    ds = f[a.dataset]
    n = ds.shape[0]
    w = a.width
    lo = np.full(w, np.inf)
    hi = np.full(w, -np.inf)
    count = np.zeros(w, dtype=np.int64)
    step = 16 << 20
    for s in range(0, n, step):
        v = ds[s : min(n, s + step)].astype(np.float64)
        pix = (np.arange(s, s + len(v), dtype=np.int64) * w) // n
        starts = np.r_[0, np.flatnonzero(np.diff(pix)) + 1]
        p = pix[starts]
        lo[p] = np.minimum(lo[p], np.minimum.reduceat(v, starts))
        hi[p] = np.maximum(hi[p], np.maximum.reduceat(v, starts))
        count[p] += np.diff(np.r_[starts, len(v)])
print(json.dumps({"rows": int(n), "width": w, "min": lo.tolist(), "max": hi.tolist(), "count": count.tolist()}))
