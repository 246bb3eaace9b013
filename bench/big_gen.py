"""Big benchmark files, written by the formats' own writers (never committed).

    .venv/bin/python bench/big_gen.py hdf5 OUT --mib 2048 [--gzip] [--spikes N]
    .venv/bin/python bench/big_gen.py tsfile OUT --rows 100000000 [--devices 100]
    .venv/bin/python bench/big_gen.py msgpack OUT --rows 20000000

hdf5: one float64 dataset `/x` of MIB MiB (--spikes N: N single values set to ±1e6·k) in chunks of 1,048,576 values (8 MiB), written by
h5py; values x[i] = round(sin(i / 5000) * 1000 + (i % 7), 2) (a smooth signal with a little
texture: shuffle + gzip 4 compress it about 5x, like measured data). Without --gzip the chunks
are stored as they are.
tsfile: table `big`, DEVICES devices (tag id1 = "d000".., ROWS / DEVICES rows each), fields s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32,
time every 10 ms, written by the official C++ writer (PyPI tsfile, write_arrow_batch) with its
default encodings and LZ4; values pseudo-random (xorshift of the row), so the file holds about
23 bytes a row.
msgpack: ROWS maps {"t": int, "v": float64, "name": str} one after another (a record stream),
written by msgpack-python; v = (i % 1000) / 8 (exact in binary, so sums agree across readers).
Prints JSON: {"path", "bytes", "rows", "seconds"} (tsfile: also "device_rows", "device_s4_sum").
"""
import argparse
import json
import os
import time

import numpy as np

CHUNK = 1 << 20
T0 = 1_700_000_000_000


def hdf5_values(start, n):
    i = np.arange(start, start + n, dtype=np.float64)
    return np.round(np.sin(i / 5000.0) * 1000.0 + (np.arange(start, start + n) % 7), 2)


def tsfile_values(start, n):
    """Column values of rows start..start+n (the bench recomputes their sums to check reads)."""
    i = np.arange(start, start + n, dtype=np.uint64)
    x = i * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(32)
    s1 = (x >> np.uint64(4)).astype(np.int64)
    s2 = (x & np.uint64(0xFFFFFFFFFFFF)).astype(np.float64) / 1e6
    s3 = ((x >> np.uint64(40)) & np.uint64(0xFFFFFF)).astype(np.float32) / np.float32(1024)
    s4 = ((x >> np.uint64(8)) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    return T0 + i.astype(np.int64) * 10, s1, s2, s3, s4


def write_hdf5(out, mib, gzip, spikes=0):
    import h5py

    n = mib * (1 << 20) // 8
    kw = {"compression": "gzip", "compression_opts": 4, "shuffle": True} if gzip else {}
    with h5py.File(out, "w", libver="latest") as f:
        ds = f.create_dataset("x", shape=(n,), dtype="<f8", chunks=(CHUNK,), track_times=False, **kw)
        for s in range(0, n, 16 * CHUNK):
            m = min(16 * CHUNK, n - s)
            ds[s : s + m] = hdf5_values(s, m)
        # Single-value spikes (the demo's min/max plot must keep them): seeded positions.
        rng = np.random.default_rng(27)
        for k, i in enumerate(sorted(rng.choice(n, size=spikes, replace=False))):
            ds[int(i)] = (1e6 if k % 2 == 0 else -1e6) * (1 + k)
    return n


def write_tsfile(out, rows, devices):
    import pyarrow as pa
    from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType as T, TsFileTableWriter

    schema = TableSchema(
        "big",
        [ColumnSchema("id1", T.STRING, ColumnCategory.TAG), ColumnSchema("s1", T.INT64), ColumnSchema("s2", T.DOUBLE),
         ColumnSchema("s3", T.FLOAT), ColumnSchema("s4", T.INT32)],
    )
    w = TsFileTableWriter(out, schema)
    per = rows // devices
    step = 1_000_000
    for d in range(devices):
        for s in range(0, per, step):
            n = min(step, per - s)
            t, s1, s2, s3, s4 = tsfile_values(s, n)
            tag = pa.array([f"d{d:03}"] * n)
            w.write_arrow_batch(pa.record_batch({"time": t, "id1": tag, "s1": s1, "s2": s2, "s3": s3, "s4": s4}))
    w.close()
    # Every device holds the same values (rows 0..per): their count and s4 sum, for checks.
    s4 = sum(int(tsfile_values(s, min(step, per - s))[4].sum(dtype=np.int64)) for s in range(0, per, step))
    return per * devices, {"device_rows": per, "device_s4_sum": s4}


def write_msgpack(out, rows):
    import msgpack

    with open(out, "wb") as f:
        pk = msgpack.Packer()
        step = 100_000
        for s in range(0, rows, step):
            f.write(b"".join(pk.pack({"t": T0 + i * 10, "v": (i % 1000) / 8, "name": f"sensor-{i % 97}"}) for i in range(s, min(rows, s + step))))
    return rows


ap = argparse.ArgumentParser()
ap.add_argument("kind", choices=["hdf5", "tsfile", "msgpack"])
ap.add_argument("out")
ap.add_argument("--mib", type=int, default=2048)
ap.add_argument("--gzip", action="store_true")
ap.add_argument("--spikes", type=int, default=0)
ap.add_argument("--rows", type=int, default=100_000_000)
ap.add_argument("--devices", type=int, default=100)
a = ap.parse_args()
if os.path.exists(a.out):
    os.remove(a.out)
t = time.perf_counter()
extra = {}
if a.kind == "hdf5":
    rows = write_hdf5(a.out, a.mib, a.gzip, a.spikes)
elif a.kind == "tsfile":
    rows, extra = write_tsfile(a.out, a.rows, a.devices)
else:
    rows = write_msgpack(a.out, a.rows)
print(json.dumps({"path": a.out, "bytes": os.path.getsize(a.out), "rows": rows, "seconds": time.perf_counter() - t, **extra}))
