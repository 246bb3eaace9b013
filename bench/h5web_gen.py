"""The h5web benchmark's files (never committed): a 3-D uint16 detector stack, written by h5py.

    .venv/bin/python bench/h5web_gen.py OUT --gib 5

`/entry/data/data` (NeXus: NXentry/NXdata, signal `data`, interpretation `image`), shape
(N, 2048, 2048) uint16, chunks (1, 256, 2048) (a frame is 8 chunks; a row across frames one
chunk per frame), shuffle + gzip 4, N frames so that the file holds at least GIB GiB. Frame n
is frame n % 8 of eight distinct frames (rings plus Poisson noise, about 2.3x compressible as
detector images are); their compressed chunks are written once by h5py's filters, then copied
to every frame by write_direct_chunk, so a 5 GiB file takes about a minute to write.
Prints JSON: {"path", "bytes", "frames", "seconds"}.
"""
import argparse
import json
import os
import tempfile
import time

import h5py
import numpy as np

H, W, CH, K = 2048, 2048, 256, 8


def frames():
    y, x = np.mgrid[0:H, 0:W]
    r = np.hypot(y - H / 2, x - W / 2)
    rng = np.random.default_rng(7)
    for k in range(K):
        lam = 300 + 200 * np.cos(r / (18 + k)) ** 2
        yield rng.poisson(lam).astype(np.uint16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gib", type=float, default=5)
    a = ap.parse_args()
    t = time.time()
    opts = dict(chunks=(1, CH, W), compression="gzip", compression_opts=4, shuffle=True)
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "frames.h5")
        with h5py.File(small, "w") as f:
            d = f.create_dataset("d", shape=(K, H, W), dtype="u2", **opts)
            for k, fr in enumerate(frames()):
                d[k] = fr
        with h5py.File(small, "r") as f:
            d = f["d"]
            chunks = [[d.id.read_direct_chunk((k, c * CH, 0))[1] for c in range(H // CH)] for k in range(K)]
    per_frame = sum(len(c) for fr in chunks for c in fr) / K
    n = int(-(-(a.gib * 2**30) // per_frame)) + 1
    with h5py.File(a.out, "w", libver="latest") as f:
        f.attrs["default"] = "entry"
        e = f.create_group("entry")
        e.attrs["NX_class"] = "NXentry"
        e.attrs["default"] = "data"
        g = e.create_group("data")
        g.attrs["NX_class"] = "NXdata"
        g.attrs["signal"] = "data"
        d = g.create_dataset("data", shape=(n, H, W), dtype="u2", **opts)
        d.attrs["interpretation"] = "image"
        for i in range(n):
            for c, b in enumerate(chunks[i % K]):
                d.id.write_direct_chunk((i, c * CH, 0), b)
    print(json.dumps({"path": a.out, "bytes": os.path.getsize(a.out), "frames": n, "seconds": round(time.time() - t, 1)}))


if __name__ == "__main__":
    main()
