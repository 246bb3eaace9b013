"""Spark and Ray reading folders of files through arrowsmith.spark and arrowsmith.ray, checked
against the writers' own readers (the official TsFile reader, h5py, msgpack-python) on files
the writers make here: 20 TsFiles, 20 HDF5 files and 20 MessagePack files.

Spark runs as a real standalone cluster on loopback (a master and two workers, started here);
Ray as a local cluster of 2 CPUs.
"""

import contextlib
import math
import os
import socket
import subprocess
import sys
import time

import h5py
import msgpack
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowsmith
import official
from arrowsmith._scan import SchemaMismatch

from pyspark.sql import functions as F

FILES = 20
DEVICES = 3
T0 = 1_700_000_000_000
SPAN = 10_000_000  # each file's times start SPAN ms after the previous file's


# ---------------------------------------------------------------- files, by the writers


def write_tsfiles(folder):
    import tsfile
    from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet, TsFileTableWriter
    from tsfile import TSDataType as T

    os.makedirs(folder)
    rng = np.random.default_rng(7)
    for i in range(FILES):
        schema = TableSchema(
            "plant",
            [
                ColumnSchema("site", T.STRING, ColumnCategory.TAG),
                ColumnSchema("line", T.STRING, ColumnCategory.TAG),
                ColumnSchema("temp", T.DOUBLE),
                ColumnSchema("count", T.INT64),
                ColumnSchema("state", T.STRING),
            ],
        )
        with TsFileTableWriter(os.path.join(folder, f"part-{i:02d}.tsfile"), schema) as w:
            for d in range(DEVICES):
                n = 300 + 37 * i + 11 * d
                tab = Tablet(["site", "line", "temp", "count", "state"], [T.STRING, T.STRING, T.DOUBLE, T.INT64, T.STRING], n)
                for r in range(n):
                    tab.add_timestamp(r, T0 + i * SPAN + r * 1000 + d)
                    tab.add_value_by_index(0, r, f"site{d % 2}")
                    if d != 2:
                        tab.add_value_by_index(1, r, f"line{d}")  # device 2 has a null tag
                    if (r + d) % 9:
                        tab.add_value_by_index(2, r, float(rng.normal(20, 5)))
                    tab.add_value_by_index(3, r, int(rng.integers(-(1 << 40), 1 << 40)))
                    if r % 4 == 0:
                        tab.add_value_by_index(4, r, ["ok", "warn", "fault"][r % 3])
                w.write_table(tab)
    del tsfile


def official_tsfile(path):
    """Every row of the file's table, as the official reader gives it."""
    t = official.query_table(path, "plant", ["site", "line", "temp", "count", "state"])
    return {n.lower(): plain(t.column(n)) for n in t.column_names}


def write_hdf5(folder):
    os.makedirs(folder)
    dt = np.dtype([("x", "<f8"), ("k", "<i2"), ("id", "<u4")])
    for i in range(FILES):
        n = 2000 + 97 * i
        a = np.zeros(n, dt)
        a["x"] = np.arange(n) * 0.5 + i
        a["k"] = (np.arange(n) % 300) - 150
        a["id"] = np.arange(n) + i * 100_000
        with h5py.File(os.path.join(folder, f"scan-{i:02d}.h5"), "w") as f:
            f.create_dataset("/entry/data", data=a, chunks=(256,), compression="gzip")


def write_msgpack(folder):
    os.makedirs(folder)
    for i in range(FILES):
        with open(os.path.join(folder, f"log-{i:02d}.msgpack"), "wb") as f:
            for r in range(500 + 13 * i):
                rec = {"seq": i * 10_000 + r, "level": ["info", "warn", "error"][r % 3], "ms": r * 0.25}
                if r % 5:
                    rec["user"] = f"u{r % 17}"  # absent from some rows: null
                f.write(msgpack.packb(rec))


def plain(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if pa.types.is_timestamp(col.type):
        col = pc.cast(col, pa.int64())
    return col.to_pylist()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("engines")
    write_tsfiles(str(root / "tsfile"))
    write_hdf5(str(root / "hdf5"))
    write_msgpack(str(root / "msgpack"))
    ts = {}
    for name in sorted(os.listdir(root / "tsfile")):
        ts[name] = official_tsfile(str(root / "tsfile" / name))
    h5 = {}
    for name in sorted(os.listdir(root / "hdf5")):
        with h5py.File(root / "hdf5" / name) as f:
            h5[name] = f["/entry/data"][()]
    mp = {}
    for name in sorted(os.listdir(root / "msgpack")):
        with open(root / "msgpack" / name, "rb") as f:
            mp[name] = list(msgpack.Unpacker(f, raw=False))
    return {"root": root, "tsfile": ts, "hdf5": h5, "msgpack": mp}


def expected_tsfile(data, keep=lambda row: True):
    """Count, sum of ``count`` and per-(site, line) mean temperature over the official rows."""
    rows = []
    for v in data["tsfile"].values():
        rows += [r for r in zip(v["time"], v["site"], v["line"], v["temp"], v["count"], v["state"]) if keep(r)]
    per = {}
    for r in rows:
        per.setdefault((r[1], r[2]), []).append(r[3])
    means = {k: (sum(x for x in v if x is not None) / sum(x is not None for x in v)) for k, v in per.items()}
    return len(rows), sum(r[4] for r in rows), means, rows


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ---------------------------------------------------------------- Spark, standalone cluster


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cluster(logs):
    """A Spark standalone cluster on loopback, a master and two 1-core workers, and a session
    on it with arrowsmith's sources registered; stopped on exit."""
    import pyspark
    from pyspark.sql import SparkSession

    home = os.path.dirname(pyspark.__file__)
    os.makedirs(logs, exist_ok=True)
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable, SPARK_LOG_DIR=logs)
    os.environ.update(SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    cls = os.path.join(home, "bin", "spark-class")
    log = open(os.path.join(logs, "cluster.log"), "wb")
    procs = [subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                               "--webui-port", str(free_port())], env=env, stdout=log, stderr=log)]
    for _ in range(2):
        procs.append(subprocess.Popen([cls, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1",
                                       "--memory", "2g", "--webui-port", str(free_port())], env=env, stdout=log, stderr=log))
    try:
        s = (
            SparkSession.builder.master(url)
            .appName("arrowsmith")
            .config("spark.executor.memory", "1g")
            .config("spark.executor.cores", "1")
            .config("spark.cores.max", "2")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.python.filterPushdown.enabled", "true")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate()
        )
        s.sparkContext.setLogLevel("ERROR")
        # Both workers' executors registered (the driver counts as one more).
        deadline = time.time() + 120
        while s.sparkContext._jsc.sc().getExecutorMemoryStatus().size() < 3:
            assert time.time() < deadline, "the two Spark workers did not register within 120 s"
            time.sleep(0.5)
        import arrowsmith.spark

        arrowsmith.spark.register(s)
        yield s
        s.stop()
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    with cluster(str(tmp_path_factory.mktemp("spark-logs"))) as s:
        yield s


def test_spark_tsfile_folder(spark, data):
    df = spark.read.format("tsfile").load(str(data["root"] / "tsfile"))
    assert df.columns == ["time", "site", "line", "temp", "count", "state"]
    assert dict(df.dtypes)["time"] == "timestamp" and dict(df.dtypes)["count"] == "bigint"
    # One input partition per file; a file over splitBytes, one per group of its devices.
    assert df.rdd.getNumPartitions() == FILES
    split = spark.read.format("tsfile").option("splitBytes", "1").load(str(data["root"] / "tsfile"))
    assert split.rdd.getNumPartitions() == FILES * DEVICES
    n, total, means, rows = expected_tsfile(data)
    # Per file (its index is in its times), per device: counts, sums and the sums behind the
    # means, and sampled rows with every column, all from one job.
    sample = sorted(rows, key=lambda r: r[0])[::997]
    times = ", ".join(f"timestamp_millis({r[0]})" for r in sample)
    groups = df.groupBy(F.expr(f"floor((unix_millis(time) - {T0}) / {SPAN})").alias("file"), "site", "line").agg(
        F.count("*").alias("n"), F.sum("count").alias("total"), F.sum("temp").alias("temps"), F.count("temp").alias("temp_n"),
        F.expr(f"collect_list(case when time in ({times}) then struct(unix_millis(time) as t, temp, count, state) end)").alias("picked"),
    ).collect()
    per_file = {}
    for g in groups:
        c = per_file.setdefault(g["file"], [0, 0])
        c[0] += g["n"]
        c[1] += g["total"]
    want_file = {i: [len(v["time"]), sum(v["count"])] for i, v in enumerate(data["tsfile"].values())}
    assert per_file == want_file
    assert (sum(g["n"] for g in groups), sum(g["total"] for g in groups)) == (n, total)
    got = {}
    for g in groups:
        s_, c_ = got.get((g["site"], g["line"]), (0.0, 0))
        got[(g["site"], g["line"])] = (s_ + (g["temps"] or 0.0), c_ + g["temp_n"])
    assert got.keys() == means.keys() and all(math.isclose(s_ / c_, means[k], rel_tol=1e-9) for k, (s_, c_) in got.items())
    picked = {(p["t"], g["site"], g["line"]): p for g in groups for p in g["picked"]}
    assert len(picked) == len(sample)
    for r in sample:
        g = picked[(r[0], r[1], r[2])]
        assert (g["temp"], g["count"], g["state"]) == (r[3], r[4], r[5])


def test_spark_tsfile_pushdown(spark, data):
    lo, hi = T0 + 5 * SPAN + 100_000, T0 + 12 * SPAN
    df = spark.read.format("tsfile").load(str(data["root"] / "tsfile"))
    q = df.where(f"site = 'site0' and line is not null and time >= timestamp_millis({lo}) and time < timestamp_millis({hi})")
    plan = q._jdf.queryExecution().executedPlan().toString()
    assert "Filter" not in plan.replace("RuntimeFilters", ""), plan  # every filter went into the read
    assert q.rdd.getNumPartitions() == FILES  # one device per file left: site0, line0
    one = spark.read.format("tsfile").option("splitBytes", "1").load(str(data["root"] / "tsfile"))
    assert one.where("site = 'site1'").rdd.getNumPartitions() == FILES  # devices 1 of 0, 1, 2
    n, total, _, _ = expected_tsfile(data, lambda r: r[1] == "site0" and r[2] is not None and lo <= r[0] < hi)
    agg = q.selectExpr("count(*)", "sum(count)").collect()[0]
    assert n > 0 and (agg[0], agg[1]) == (n, total)
    # A filter the source does not take is Spark's, and the answer is the same.
    n2, total2, _, _ = expected_tsfile(data, lambda r: r[5] == "warn" and r[2] is None)
    q2 = df.where("state = 'warn' and line is null")
    assert tuple(q2.selectExpr("count(*)", "sum(count)").collect()[0]) == (n2, total2)


def test_spark_hdf5_folder(spark, data):
    df = spark.read.format("hdf5").option("dataset", "/entry/data").option("taskRows", "1000").load(str(data["root"] / "hdf5" / "*.h5"))
    assert df.columns == ["x", "k", "id"]
    assert dict(df.dtypes) == {"x": "double", "k": "smallint", "id": "bigint"}
    # Runs of whole 256-row chunks: 1024 rows a task.
    want_parts = sum(-(-len(a) // 1024) for a in data["hdf5"].values())
    assert df.rdd.getNumPartitions() == want_parts
    arrays = list(data["hdf5"].values())
    ids = [int(a["id"][j]) for a in arrays for j in (0, len(a) // 2, len(a) - 1)]
    agg = df.selectExpr(
        "count(*)", "sum(x)", "sum(k)", "sum(id)", "max(id)",
        f"collect_list(case when id in ({', '.join(map(str, ids))}) then struct(id, x, k) end)",
    ).collect()[0]
    assert agg[0] == sum(len(a) for a in arrays)
    assert close(agg[1], float(sum(a["x"].sum() for a in arrays)))
    assert agg[2] == sum(int(a["k"].astype(np.int64).sum()) for a in arrays)
    assert agg[3] == sum(int(a["id"].astype(np.int64).sum()) for a in arrays)
    assert agg[4] == max(int(a["id"].max()) for a in arrays)
    got = {r["id"]: (r["x"], r["k"]) for r in agg[5]}
    assert len(got) == len(ids)
    for a in arrays:
        for j in (0, len(a) // 2, len(a) - 1):
            assert got[int(a["id"][j])] == (float(a["x"][j]), int(a["k"][j]))


def test_spark_msgpack_folder(spark, data):
    want = [r for rs in data["msgpack"].values() for r in rs]
    whole = spark.read.format("msgpack").load(str(data["root"] / "msgpack"))
    assert whole.rdd.getNumPartitions() == FILES  # one task a file
    # Runs of whole rows of about 4 KiB each.
    df = spark.read.format("msgpack").option("splitBytes", "4096").load(str(data["root"] / "msgpack"))
    assert sorted(df.columns) == ["level", "ms", "seq", "user"]
    assert df.rdd.getNumPartitions() > 2 * FILES
    agg = df.selectExpr("count(*)", "sum(seq)", "sum(ms)", "count(user)", "collect_list(case when seq % 101 = 0 then struct(seq, level, ms, user) end)").collect()[0]
    assert agg[0] == len(want) and agg[1] == sum(r["seq"] for r in want)
    assert close(agg[2], sum(r["ms"] for r in want)) and agg[3] == sum("user" in r for r in want)
    rows = {r["seq"]: r for r in agg[4]}
    sampled = [r for r in want if r["seq"] % 101 == 0]
    assert len(rows) == len(sampled)
    for r in sampled:
        g = rows[r["seq"]]
        assert (g["level"], g["ms"], g["user"]) == (r["level"], r["ms"], r.get("user"))


def test_spark_schema_mismatch_names_the_file(spark, data, tmp_path):
    import shutil

    from pyspark.errors import PySparkException

    for name in sorted(os.listdir(data["root"] / "hdf5"))[:3]:
        shutil.copy(data["root"] / "hdf5" / name, tmp_path / name)
    with h5py.File(tmp_path / "scan-99.h5", "w") as f:
        f["/entry/data"] = np.arange(10, dtype="<f4")
    with pytest.raises(PySparkException) as e:
        spark.read.format("hdf5").option("dataset", "/entry/data").load(str(tmp_path)).count()
    assert "SchemaMismatch" in str(e.value) and "scan-99.h5" in str(e.value)


# ---------------------------------------------------------------- Ray, a local cluster


@pytest.fixture(scope="module")
def ray_cluster():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    import ray.data

    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


def test_ray_tsfile(ray_cluster, data):
    import arrowsmith.ray

    ds = arrowsmith.ray.read_tsfile(str(data["root"] / "tsfile"))
    n, total, means, _ = expected_tsfile(data)
    assert ds.count() == n and ds.sum("count") == total
    got = {(r["site"], r["line"]): r["mean(temp)"] for r in ds.groupby(["site", "line"]).mean("temp").take_all()}
    assert got.keys() == means.keys() and all(close(got[k], means[k]) for k in means)
    lo, hi = T0 + 3 * SPAN, T0 + 4 * SPAN
    few = arrowsmith.ray.read_tsfile(str(data["root"] / "tsfile"), tags={"site": "site1"}, start=lo, end=hi)
    want = expected_tsfile(data, lambda r: r[1] == "site1" and lo <= r[0] <= hi)
    assert few.count() == want[0] > 0 and few.sum("count") == want[1]


def test_ray_hdf5_and_msgpack(ray_cluster, data):
    import arrowsmith.ray

    arrays = list(data["hdf5"].values())
    ds = arrowsmith.ray.read_hdf5(str(data["root"] / "hdf5"), dataset="/entry/data", task_rows=1000)
    assert ds.count() == sum(len(a) for a in arrays)
    assert ds.sum("id") == sum(int(a["id"].astype(np.int64).sum()) for a in arrays)
    assert ds.min("k") == min(int(a["k"].min()) for a in arrays)
    want = [r for rs in data["msgpack"].values() for r in rs]
    ms = arrowsmith.ray.read_msgpack(str(data["root"] / "msgpack"), split_bytes=4096)
    assert ms.count() == len(want) and ms.sum("seq") == sum(r["seq"] for r in want)
    got = sorted((r["seq"], r["user"]) for r in ms.filter(lambda r: r["seq"] % 7 == 0).take_all())
    assert got == sorted((r["seq"], r.get("user")) for r in want if r["seq"] % 7 == 0)


def test_ray_schema_mismatch(ray_cluster, data, tmp_path):
    import shutil

    import arrowsmith.ray

    shutil.copy(data["root"] / "hdf5" / "scan-00.h5", tmp_path / "a.h5")
    with h5py.File(tmp_path / "b.h5", "w") as f:
        f["/entry/data"] = np.arange(10, dtype="<i8")
    with pytest.raises(SchemaMismatch, match="b.h5"):
        arrowsmith.ray.read_hdf5(str(tmp_path), dataset="/entry/data")


def test_list_hdf5_walks_every_group(data, tmp_path):
    p = tmp_path / "tree.h5"
    with h5py.File(p, "w") as f:
        f["/a/b/c/deep"] = np.arange(3)
        f["/top"] = np.arange(2)
        f["/a/again"] = f["/a/b/c/deep"]  # the same object under a second name
    seen = {e["path"]: e for e in arrowsmith.list_hdf5(p)}
    want = []
    with h5py.File(p) as f:
        f.visititems(lambda name, obj: want.append("/" + name))
    assert set(want) <= set(seen) and seen["/a/b/c/deep"]["shape"] == [3]
    assert "/a/again" in seen and seen["/a/again"]["kind"] == "dataset"
    assert {e["path"] for e in arrowsmith.list_hdf5(p, recursive=False)} == {"/a", "/top"}
