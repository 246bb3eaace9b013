"""The wheel against the writers' own readers: the official TsFile reader (PyPI tsfile), h5py
and msgpack-python, on the repository's fixtures; Polars and DuckDB through the Arrow
PyCapsule stream."""

import glob
import json
import math
import os

import h5py
import msgpack
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowsmith
import official

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")
# Table-model files (the official Python reader queries tables; tree-model files are read by
# the crate's own tests).
TSFILES = sorted(
    p
    for p in glob.glob(os.path.join(ROOT, "tsfile", "cpp_*.tsfile"))
    if os.path.exists(p[: -len(".tsfile")] + ".json")
    and isinstance(json.load(open(p[: -len(".tsfile")] + ".json")).get("table"), str)
)


def plain(col: pa.ChunkedArray) -> list:
    """A column's values as Python values: dictionaries decoded, times as integers."""
    col = col.combine_chunks()
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if pa.types.is_timestamp(col.type):
        col = pc.cast(col, pa.int64())
    if pa.types.is_date32(col.type):
        col = pc.cast(col, pa.int32())
    return col.to_pylist()


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def official_tsfile(path):
    """Every row and column of the file's first table as the official reader reads it."""
    import tsfile

    r = tsfile.TsFileReader(path)
    schemas = r.get_all_table_schemas()
    table = next(iter(schemas))
    names = [c.get_column_name() for c in schemas[table].get_columns()]
    r.close()
    return table, official.query_table(path, table, names)


def rows_by_device_and_time(t: pa.Table, names: list) -> list:
    """Rows as tuples, sorted by every column but time, then time (the readers may order
    devices differently)."""
    rows = list(zip(*[plain(t.column(n)) for n in names]))
    return sorted(rows, key=lambda r: tuple((v is None, "" if v is None else str(v)) for v in r[1:]) + (r[0],))


@pytest.mark.parametrize("path", TSFILES, ids=[os.path.basename(p) for p in TSFILES])
def test_tsfile_equals_the_official_reader(path):
    table, theirs = official_tsfile(path)
    ours = arrowsmith.read_tsfile(path, table)
    if theirs is None:
        assert ours.num_rows == 0
        return
    assert ours.num_rows == theirs.num_rows
    names = theirs.column_names
    assert names[0] == "time" and set(names) <= set(ours.column_names)
    a, b = rows_by_device_and_time(ours, names), rows_by_device_and_time(theirs, names)
    for i, (x, y) in enumerate(zip(a, b)):
        assert all(same(u, v) for u, v in zip(x, y)), f"row {i}: {x} != {y}"


def test_tsfile_stream_filters_and_devices():
    path = os.path.join(ROOT, "tsfile", "cpp_1000_devices_null_tags.tsfile")
    devices = arrowsmith.tsfile_devices(path)
    assert len(devices) == 1000
    whole = arrowsmith.read_tsfile(path)
    reader = arrowsmith.iter_tsfile(path)
    assert isinstance(reader, pa.RecordBatchReader)
    parts = reader.read_all()
    assert parts.num_rows == whole.num_rows
    assert pc.sum(pc.cast(parts.column("time"), pa.int64())).as_py() == pc.sum(pc.cast(whole.column("time"), pa.int64())).as_py()
    t = plain(whole.column("time"))
    lo, hi = sorted(t)[len(t) // 3], sorted(t)[2 * len(t) // 3]
    middle = arrowsmith.read_tsfile(path, start=lo, end=hi)
    assert middle.num_rows == sum(lo <= x <= hi for x in t)


def test_decode_error_carries_format_code_offset(tmp_path):
    src = open(TSFILES[0], "rb").read()
    bad = tmp_path / "bad.tsfile"
    bad.write_bytes(src[:-12] + b"\0" * 12)
    with pytest.raises(arrowsmith.DecodeError) as e:
        arrowsmith.read_tsfile(bad)
    assert e.value.format == "TsFile"
    assert isinstance(e.value.code, str) and e.value.code
    assert isinstance(e.value.offset, int)
    with pytest.raises(arrowsmith.DecodeError) as e:
        arrowsmith.read_tsfile(TSFILES[0], table="no_such_table")
    assert e.value.code == "not-found"


H5 = os.path.join(ROOT, "hdf5", "types_latest.h5")


def numeric_datasets(f):
    out = []

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        numeric = obj.dtype.kind in "iuf" and h5py.check_enum_dtype(obj.dtype) is None
        if numeric and obj.shape and obj.size:
            out.append("/" + name)

    f.visititems(visit)
    return out


def column_values(t: pa.Table) -> np.ndarray:
    col = t.column(0).combine_chunks()
    while pa.types.is_fixed_size_list(col.type):
        col = col.flatten()
    return col.to_numpy(zero_copy_only=False)


def test_hdf5_datasets_equal_h5py():
    with h5py.File(H5, "r") as f:
        paths = numeric_datasets(f)
        assert len(paths) >= 20
        for p in paths:
            want = f[p][()].reshape(-1)
            got = column_values(arrowsmith.read_hdf5(H5, p))
            np.testing.assert_array_equal(got, want, err_msg=p)


def test_hdf5_selections_batches_and_listing():
    with h5py.File(H5, "r") as f:
        want = f["/ck_fixed_2d"][10:20:2, 3]
        rows = f["/ck_ext_many"][100:250]
        whole = f["/ck_ext_many"][()]
    got = arrowsmith.read_hdf5(H5, "/ck_fixed_2d", select=[(10, 5, 2), 3])
    np.testing.assert_array_equal(column_values(got), want)
    np.testing.assert_array_equal(column_values(arrowsmith.read_hdf5(H5, "/ck_ext_many", 100, 150)), rows)
    parts = list(arrowsmith.iter_hdf5(H5, "/ck_ext_many", rows=1000))
    assert len(parts) > 1
    np.testing.assert_array_equal(np.concatenate([b.column(0).to_numpy() for b in parts]), whole)
    names = {e["name"]: e for e in arrowsmith.list_hdf5(H5)}
    assert names["ck_fixed_2d"]["shape"] == [50, 7]
    with pytest.raises(arrowsmith.DecodeError) as e:
        arrowsmith.read_hdf5(H5, "/ck_fixed_2d", select=[(45, 10, 1), 3])
    assert e.value.format == "HDF5" and e.value.code == "argument"


RECORDS = [
    {"id": i, "name": f"n{i}", "score": i / 4, "ok": i % 3 == 0, "tags": ["a", "b"][: i % 3], "note": None if i % 5 else "five"}
    for i in range(1000)
]


def test_msgpack_equals_msgpack_python(tmp_path):
    data = msgpack.packb(RECORDS)
    want = msgpack.unpackb(data)
    assert arrowsmith.read_msgpack(data).to_pylist() == want
    stream = tmp_path / "log.msgpack"
    stream.write_bytes(b"".join(msgpack.packb(r) for r in RECORDS))
    assert arrowsmith.read_msgpack(stream).to_pylist() == want
    reader = arrowsmith.iter_msgpack(stream, rows=300)
    batches = list(reader)
    assert [b.num_rows for b in batches] == [300, 300, 300, 100]
    assert pa.Table.from_batches(batches).to_pylist() == want
    with pytest.raises(arrowsmith.DecodeError) as e:
        arrowsmith.read_msgpack(data[:-3])
    assert e.value.format == "MessagePack"
    # A stream that breaks after its first batches: those batches, then the DecodeError with
    # its code and the offset msgpack-python's Unpacker stops at.
    broken = tmp_path / "broken.msgpack"
    good = b"".join(msgpack.packb(r) for r in RECORDS[:700])
    broken.write_bytes(good + b"\xc1" + msgpack.packb(RECORDS[0]))
    reader = arrowsmith.iter_msgpack(broken, rows=300)
    assert reader.read_next_batch().num_rows == 300
    with pytest.raises(arrowsmith.DecodeError) as e:
        list(reader)
    assert (e.value.format, e.value.code, e.value.offset) == ("MessagePack", "invalid", len(good))
    theirs = msgpack.Unpacker(raw=False)
    theirs.feed(good + b"\xc1")
    assert [next(theirs) for _ in range(700)] == RECORDS[:700]
    with pytest.raises(ValueError):  # msgpack-python: 0xc1 is never used
        next(theirs)


def test_polars_and_duckdb_take_the_stream():
    import duckdb
    import polars as pl

    path = os.path.join(ROOT, "tsfile", "cpp_1000_devices_null_tags.tsfile")
    t = arrowsmith.read_tsfile(path)
    df = pl.from_arrow(t)
    assert df.height == t.num_rows
    # Polars takes the C stream of a RecordBatchReader directly (PyCapsule interface).
    df2 = pl.DataFrame(arrowsmith.iter_tsfile(path))
    assert df2.height == t.num_rows
    con = duckdb.connect()
    tsf = arrowsmith.read_tsfile(path)  # noqa: F841 (DuckDB finds it by name)
    n = con.sql("select count(*) from tsf").fetchone()[0]
    assert n == t.num_rows
    stream = arrowsmith.iter_hdf5(H5, "/ck_ext_many", rows=1000)  # noqa: F841
    with h5py.File(H5, "r") as f:
        want = int(f["/ck_ext_many"][()].astype(np.int64).sum())
    assert con.sql("select sum(ck_ext_many) from stream").fetchone()[0] == want


def _event_time(code, data):
    """Fluentd's reading of ext 0 (EventTime): big-endian u32 seconds, u32 nanoseconds."""
    assert code == 0 and len(data) == 8
    s, ns = int.from_bytes(data[:4], "big"), int.from_bytes(data[4:], "big")
    return s * 10**9 + ns


def test_msgpack_options_as_the_js_api_names_them(tmp_path):
    # fluent-logger's message mode: [tag, EventTime, record] per emit, back to back.
    path = os.path.join(ROOT, "msgpack", "encoders", "fluent-logger-message-mode.msgpack")
    with open(path, "rb") as f:
        data = f.read()
    u = msgpack.Unpacker(raw=False, ext_hook=_event_time)
    u.feed(data)
    want = list(u)
    t = arrowsmith.read_msgpack(path, extensions={0: "eventtime"})
    assert t.schema.field("1").type == pa.timestamp("ns")
    assert t.column("0").to_pylist() == [w[0] for w in want]
    assert t.column("1").cast(pa.int64()).to_pylist() == [w[1] for w in want]
    assert t.column("2").to_pylist() == [w[2] for w in want]
    # Without the reading, ext 0 stays a struct of its type and data.
    assert pa.types.is_struct(arrowsmith.read_msgpack(data).schema.field("1").type)
    streamed = pa.Table.from_batches(list(arrowsmith.iter_msgpack(path, rows=50, extensions={0: "eventtime"})))
    assert streamed.column("1").cast(pa.int64()).to_pylist() == [w[1] for w in want]
    # columnar: one map of equal-length arrays is a table, or one row of lists.
    cols = msgpack.packb({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    assert arrowsmith.read_msgpack(cols).to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]
    assert arrowsmith.read_msgpack(cols, columnar=False).to_pylist() == [{"a": [1, 2, 3], "b": ["x", "y", "z"]}]
    # max_keys / many_keys: past the limit a Map column, or the error saying so.
    wide = msgpack.packb([{f"k{i}": i} for i in range(5)])
    assert pa.types.is_map(arrowsmith.read_msgpack(wide, max_keys=2).schema.field(0).type)
    with pytest.raises(arrowsmith.DecodeError) as e:
        arrowsmith.read_msgpack(wide, max_keys=2, many_keys="error")
    assert (e.value.format, e.value.code) == ("MessagePack", "unsupported")
    with pytest.raises(arrowsmith.DecodeError):
        arrowsmith.read_msgpack(msgpack.packb([[[1]]]), max_depth=2)
    # Unknown options and values are errors that name them, never ignored.
    for bad, word in [({"extension": {0: "eventtime"}}, "extension"), ({"extensions": {0: "event-time"}}, "event-time"),
                      ({"extensions": {-1: "binary"}}, "-1"), ({"layout": "rows"}, "rows")]:
        with pytest.raises(ValueError, match=word):
            arrowsmith.read_msgpack(data, **bad)
    # The engines' string options (Spark's .option) parse to the same reading.
    from arrowsmith._scan import Options, Task
    o = Options.parse({"extensions": "0=eventtime", "maxKeys": "9", "columnar": "false"})
    assert (o.extensions, o.max_keys, o.columnar) == (((0, "eventtime"),), 9, False)
    got = pa.Table.from_batches(list(Task("msgpack", path, o).read()))
    assert got.column("1").cast(pa.int64()).to_pylist() == [w[1] for w in want]
