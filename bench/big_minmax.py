"""Per-pixel min/max of an HDF5 dataset's rows, read by h5py (the writer's own reader): what
the demo's streamed plot must show (tests/browser/big.mjs).

    .venv/bin/python bench/big_minmax.py FILE WIDTH [--dataset /x]
    .venv/bin/python bench/big_minmax.py FILE WIDTH --tsfile TABLE.COLUMN   (the official reader)

HDF5: pixel p holds rows r with floor(r * WIDTH / N) == p (N rows), the demo's mapping.
TsFile: pixel p holds times t with floor((t - t0) * WIDTH / (t1 - t0 + 1)) == p (t0, t1 the
first and last time of the column).
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
ap.add_argument("--tsfile")
a = ap.parse_args()


def tsfile_minmax(path, w, spec):
    import tsfile

    table, column = spec.split(".")
    times, values = [], []
    r = tsfile.TsFileReader(path)
    rs = r.query_table(table, [column], batch_size=1 << 20)
    while True:
        b = rs.read_arrow_batch()
        if b is None or b.num_rows == 0:
            break
        times.append(b.column("time").cast("int64").to_numpy())
        values.append(b.column(column).to_numpy(zero_copy_only=False).astype(np.float64))
    rs.close()
    r.close()
    t = np.concatenate(times)
    v = np.concatenate(values)
    t0, t1 = int(t.min()), int(t.max())
    pix = ((t - t0) * w) // (t1 - t0 + 1)
    lo = np.full(w, np.inf)
    hi = np.full(w, -np.inf)
    np.minimum.at(lo, pix, v)
    np.maximum.at(hi, pix, v)
    count = np.bincount(pix, minlength=w)
    return {"rows": int(len(t)), "width": w, "min": lo.tolist(), "max": hi.tolist(), "count": count.tolist()}


if a.tsfile:
    print(json.dumps(tsfile_minmax(a.file, a.width, a.tsfile)))
    raise SystemExit(0)
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
