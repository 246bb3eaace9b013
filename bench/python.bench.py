"""`npm run bench:native`: the Python wheel against the readers Python users have, each to a
pyarrow Table, one thread, in fresh processes (results in bench/results/native.md).

    TsFile   arrowsmith.read_tsfile       vs the official reader (PyPI tsfile): query_table +
                                             read_arrow_batch, concatenated
    HDF5     arrowsmith.read_hdf5         vs h5py ds.asstr()[...] + pyarrow.array (VL strings),
                                             h5py ds[...] + pyarrow (numbers)
    MsgPack  arrowsmith.read_msgpack      vs msgpack.unpackb + pyarrow.Table.from_pylist

Every round starts one fresh process per reader and case, interleaved (A B A B …): it times
the import, read 1 (cold) and then the median of warm reads for about a second. Ratios are
taken within a round (the same minute on this shared machine), and their median is printed.

    .venv/bin/python bench/python.bench.py [--rounds 5] [--spark]
    .venv/bin/python bench/python.bench.py --child CASE READER       (one process's timings)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DATA = os.path.join(ROOT, "target", "bench-data")
PY = sys.executable
# The tests' helpers: the official reader drained to a Table, the Spark cluster.
sys.path.insert(0, os.path.join(ROOT, "crates", "python", "tests"))
T0, DEVICE_ROWS = 1_700_000_000_000, 100_000


def tsfile_path(name):
    return os.path.join(DATA, name)


CASES = {
    # name: (file, what, peer label)
    "tsfile A full": ("tsfile_A.tsfile", "full", "official tsfile"),
    "tsfile B full": ("tsfile_B.tsfile", "full", "official tsfile"),
    "tsfile C full": ("tsfile_C.tsfile", "full", "official tsfile"),
    "tsfile A device": ("tsfile_A.tsfile", "device", "official tsfile"),
    "tsfile A third": ("tsfile_A.tsfile", "third", "official tsfile"),
    "hdf5 str_contig": ("bench_v0.h5", "/str_contig", "h5py + pyarrow"),
    "hdf5 str_gzip": ("bench_v0.h5", "/str_gzip", "h5py + pyarrow"),
    "hdf5 f64_2d": ("bench_py.h5", "/f64_2d", "h5py + pyarrow"),
    "msgpack records": ("records.msgpack", "records", "msgpack + from_pylist"),
    "msgpack stream": ("stream.msgpack", "stream", "msgpack + from_pylist"),
}


# ------------------------------------------------------------------ data


def ensure_data():
    os.makedirs(DATA, exist_ok=True)
    gen = {
        "tsfile_A.tsfile": ["--writer-defaults", "--compression", "LZ4"],
        "tsfile_B.tsfile": ["--encoding", "PLAIN", "--compression", "SNAPPY"],
        "tsfile_C.tsfile": ["--writer-defaults", "--compression", "LZ4", "--nulls", "0.3"],
    }
    for f, args in gen.items():
        if not os.path.exists(os.path.join(DATA, f)):
            subprocess.run([PY, os.path.join(ROOT, "scripts/fixtures/tsfile/gen_bench.py"), os.path.join(DATA, f), *args], check=True)
    if not os.path.exists(os.path.join(DATA, "bench_v0.h5")):
        subprocess.run([PY, os.path.join(ROOT, "scripts/fixtures/hdf5/gen_bench.py"), DATA], check=True)
    p = os.path.join(DATA, "bench_py.h5")
    if not os.path.exists(p):
        import h5py
        import numpy as np

        with h5py.File(p, "w") as f:
            f.create_dataset("f64_2d", data=np.random.default_rng(3).random((250_000, 4)), chunks=(25_000, 4))
    import msgpack

    def records(n):
        return [{"id": i, "value": i * 0.37 % 100, "name": f"dev-{i % 100}", "ok": i % 3 == 0, "maybe": (i * 7919) % 1_000_000 if i % 4 else None} for i in range(n)]

    p = os.path.join(DATA, "records.msgpack")
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(msgpack.packb(records(100_000)))
    p = os.path.join(DATA, "stream.msgpack")
    if not os.path.exists(p):
        with open(p, "wb") as f:
            for r in records(100_000):
                f.write(msgpack.packb(r))


# ------------------------------------------------------------------ readers (in the child)


def ours(case):
    import arrowsmith

    file, what, _ = CASES[case]
    path = os.path.join(DATA, file)
    if case.startswith("tsfile"):
        kw = {}
        if what == "device":
            kw["tags"] = {"id1": "device03"}
        if what == "third":
            kw["start"], kw["end"] = T0 + DEVICE_ROWS * 1000 // 3, T0 + 2 * DEVICE_ROWS * 1000 // 3 - 1
        return lambda: arrowsmith.read_tsfile(path, "bench_table", **kw)
    if case.startswith("hdf5"):
        return lambda: arrowsmith.read_hdf5(path, what)

    def read():
        with open(path, "rb") as f:
            return arrowsmith.read_msgpack(f.read())

    return read


def peer(case):
    import pyarrow as pa

    file, what, _ = CASES[case]
    path = os.path.join(DATA, file)
    if case.startswith("tsfile"):
        import official
        from tsfile.tag_filter import ComparisonTagFilter

        def read():
            kw = {}
            if what == "device":
                kw["tag_filter"] = ComparisonTagFilter("id1", "device03", ComparisonTagFilter.EQ)
            if what == "third":
                kw["start_time"] = T0 + DEVICE_ROWS * 1000 // 3
                kw["end_time"] = T0 + 2 * DEVICE_ROWS * 1000 // 3 - 1
            return official.query_table(path, "bench_table", ["id1", "s1", "s2", "s3", "s4"], **kw)

        return read
    if case.startswith("hdf5"):
        import h5py

        def read():
            with h5py.File(path, "r") as f:
                ds = f[what]
                if h5py.check_string_dtype(ds.dtype):
                    return pa.table({"value": pa.array(ds.asstr()[...], pa.string())})
                a = ds[...]
                if a.ndim == 1:
                    return pa.table({"value": a})
                flat = pa.array(a.reshape(-1))
                return pa.table({"value": pa.FixedSizeListArray.from_arrays(flat, a.shape[1])})

        return read
    import msgpack

    def read():
        with open(path, "rb") as f:
            data = f.read()
        if what == "records":
            rows = msgpack.unpackb(data)
        else:
            u = msgpack.Unpacker(raw=False)
            u.feed(data)
            rows = list(u)
        return pa.Table.from_pylist(rows)

    return read


def child(case, reader):
    t = time.perf_counter()
    read = ours(case) if reader == "ours" else peer(case)
    import_ms = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    table = read()
    cold = (time.perf_counter() - t) * 1e3
    warm = []
    end = time.perf_counter() + 1.0
    while len(warm) < 5 or time.perf_counter() < end:
        t = time.perf_counter()
        read()
        warm.append((time.perf_counter() - t) * 1e3)
        if len(warm) >= 200:
            break
    print(json.dumps({"import_ms": import_ms, "cold_ms": cold, "warm_ms": statistics.median(warm), "rows": table.num_rows, "runs": len(warm)}))


def run_child(case, reader):
    out = subprocess.run([PY, __file__, "--child", case, reader], check=True, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    return json.loads(out.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ Spark


def spark_job(rounds):
    """count + per-device mean over ~1 GiB of TsFiles on a standalone cluster (a master and
    two 1-core workers): our source against the official reader in mapInPandas."""
    import shutil

    folder = os.path.join(DATA, "spark-tsfiles")
    src = os.path.join(DATA, "tsfile_spark_part.tsfile")
    if not os.path.exists(src):
        subprocess.run([PY, os.path.join(ROOT, "scripts/fixtures/tsfile/gen_bench.py"), src, "--rows", "60000", "--writer-defaults", "--compression", "LZ4"], check=True)
    if not os.path.isdir(folder) or len(os.listdir(folder)) != 100:
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for i in range(100):
            shutil.copy(src, os.path.join(folder, f"part-{i:03d}.tsfile"))
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    from test_engines import cluster  # the tests' cluster (a master, two workers)

    import pandas as pd

    with cluster(os.path.join(ROOT, "target", "spark-bench-logs")) as spark:
        import arrowsmith.spark

        arrowsmith.spark.register(spark)
        paths = sorted(os.path.join(folder, f) for f in os.listdir(folder))

        def official(it):
            import pyarrow as pa
            import tsfile

            for pdf in it:
                for p in pdf["path"]:
                    r = tsfile.TsFileReader(p)
                    rs = r.query_table("bench_table", ["id1", "s1", "s2", "s3", "s4"], batch_size=65536)
                    while True:
                        b = rs.read_arrow_batch()
                        if b is None or b.num_rows == 0:
                            break
                        t = b.to_pandas()
                        t.columns = [c.lower() for c in t.columns]
                        yield t[["time", "id1", "s1", "s2", "s3", "s4"]]
                    rs.close()
                    r.close()

        schema = "time bigint, id1 string, s1 bigint, s2 double, s3 float, s4 int"

        def job_ours():
            df = spark.read.format("tsfile").load(folder)
            return sorted(tuple(r) for r in df.groupBy("id1").agg({"*": "count", "s2": "avg"}).collect())

        def job_official():
            df = spark.createDataFrame(pd.DataFrame({"path": paths})).repartition(len(paths)).mapInPandas(official, schema)
            return sorted(tuple(r) for r in df.groupBy("id1").agg({"*": "count", "s2": "avg"}).collect())

        # Spark's own floor for this path: a Python source whose tasks decode nothing (each
        # yields batches of the same shape built from numbers), as many tasks and rows.
        from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

        per_task = 600_000  # rows of one bench file

        class FloorReader(DataSourceReader):
            def partitions(self):
                return [InputPartition(i) for i in range(len(paths))]

            def read(self, partition):
                import numpy as np
                import pyarrow as pa

                for start in range(0, per_task, 65_536):
                    n = min(65_536, per_task - start)
                    i = np.arange(start, start + n)
                    names = pa.array([f"device{d:02d}" for d in range(10)])
                    yield pa.RecordBatch.from_pydict({
                        "time": pa.array(i * 1000, pa.timestamp("us", tz="UTC")),
                        "id1": pa.DictionaryArray.from_arrays(pa.array(i % 10, pa.int32()), names).cast(pa.string()),
                        "s1": pa.array(i), "s2": pa.array(i * 0.5), "s3": pa.array(i.astype(np.float32)),
                        "s4": pa.array(i.astype(np.int32)),
                    })

        class Floor(DataSource):
            @classmethod
            def name(cls):
                return "arrowsmith_floor"

            def schema(self):
                return "time timestamp, id1 string, s1 bigint, s2 double, s3 float, s4 int"

            def reader(self, schema):
                return FloorReader()

        spark.dataSource.register(Floor)

        def job_floor():
            df = spark.read.format("arrowsmith_floor").load()
            return df.groupBy("id1").agg({"*": "count", "s2": "avg"}).collect()

        a, b = job_ours(), job_official()  # warm both (JVMs, Python workers) and compare
        assert [x[:2] for x in a] == [x[:2] for x in b] and all(abs(x[2] - y[2]) <= 1e-9 * abs(y[2]) for x, y in zip(a, b)), (a, b)
        job_floor()
        times = {"ours": [], "official": [], "floor": []}
        for _ in range(rounds):
            for name, job in (("ours", job_ours), ("official", job_official), ("floor", job_floor)):
                t = time.perf_counter()
                job()
                times[name].append(time.perf_counter() - t)
        rows = sum(x[1] for x in a)
        return {"bytes": size, "rows": rows, "ours_s": times["ours"], "official_s": times["official"], "floor_s": times["floor"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--spark", action="store_true", help="also the Spark job (~1 GiB of TsFiles)")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    if a.child:
        return child(*a.child)
    ensure_data()
    cases = [c for c in CASES if a.only in c]
    res = {c: {"ours": [], "peer": []} for c in cases}
    for r in range(a.rounds):
        for c in cases:
            for who in (("ours", "peer") if r % 2 == 0 else ("peer", "ours")):
                res[c][who].append(run_child(c, who))
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    print(f"| case | peer | rows | ours warm ms | peer warm ms | warm × (range) | ours read 1 ms | peer read 1 ms | read 1 × | import + read 1 × |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        o, p = res[c]["ours"], res[c]["peer"]
        assert o[0]["rows"] == p[0]["rows"], (c, o[0]["rows"], p[0]["rows"])
        warm = [y["warm_ms"] / x["warm_ms"] for x, y in zip(o, p)]
        cold = [y["cold_ms"] / x["cold_ms"] for x, y in zip(o, p)]
        total = [(y["cold_ms"] + y["import_ms"]) / (x["cold_ms"] + x["import_ms"]) for x, y in zip(o, p)]
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        print(
            f"| {c} | {CASES[c][2]} | {o[0]['rows']:,} | {med(o, 'warm_ms'):.1f} | {med(p, 'warm_ms'):.1f} | "
            f"**{statistics.median(warm):.2f}×** ({min(warm):.2f}–{max(warm):.2f}) | {med(o, 'cold_ms'):.1f} | {med(p, 'cold_ms'):.1f} | "
            f"{statistics.median(cold):.2f}× | {statistics.median(total):.2f}× |"
        )
    if a.spark:
        s = spark_job(max(2, a.rounds // 2))
        ratio = [y / x for x, y in zip(s["ours_s"], s["official_s"])]
        print(
            f"\nSpark: {s['rows']:,} rows in 100 TsFiles ({s['bytes'] / 2**30:.2f} GiB), count + per-device mean: "
            f"ours {statistics.median(s['ours_s']):.1f} s, official reader in mapInPandas {statistics.median(s['official_s']):.1f} s, "
            f"**{statistics.median(ratio):.2f}×** ({min(ratio):.2f}–{max(ratio):.2f}), {len(ratio)} rounds; "
            f"Spark's floor for a Python source of as many tasks and rows that decodes nothing: {statistics.median(s['floor_s']):.1f} s"
        )


if __name__ == "__main__":
    main()
