"""The wheel against the Node package on every fixture: the same tables (values, and types up
to dictionary encoding) or the same DecodeError (format, code, offset). The Node side's
tables come from node_tables.mjs as Arrow IPC files; the engine matrix holds Bun, Deno, ARM64
and the browsers to x86-64 Node's values, so this holds the wheel to all of them."""

import json
import math
import os
import shutil
import subprocess

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowsmith
from arrowsmith._scan import plain_type

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "fixtures"))


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    assert shutil.which("node"), "the cross-check needs node on PATH (npm test has it)"
    out = tmp_path_factory.mktemp("node-tables")
    subprocess.run(["node", os.path.join(HERE, "node_tables.mjs"), FIXTURES, str(out)], check=True, cwd=HERE)
    with open(out / "index.json") as f:
        return out, json.load(f)


def ours(key):
    name, _, part = key.partition(":")
    path = os.path.join(FIXTURES, name)
    try:
        if name.endswith(".msgpack"):
            with open(path, "rb") as f:
                t = arrowsmith.read_msgpack(f.read())
        elif name.endswith(".tsfile"):
            t = arrowsmith.read_tsfile(path, None if part == "*" else part)
        else:
            t = arrowsmith.read_hdf5(path, part)
    except arrowsmith.DecodeError as e:
        return {"error": [e.format, e.code, e.offset]}
    return {"table": t}


def cells(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    t = plain_type(col.type)
    if t != col.type:
        col = col.cast(t)
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_duration(t):
        col = pc.cast(col, pa.int64()) if not pa.types.is_date32(t) else pc.cast(col, pa.int32())
    return col.to_pylist()


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


# Where the two differ by design: Node refuses TsFile times beyond ±2^53 (a JS number's exact
# range, in which it builds time columns); the wheel keeps every int64 (the crate's tests check
# those values against the official reader).
BY_DESIGN = {"tsfile/cpp_time_extremes.tsfile:t": ["TsFile", "unsupported", 16]}


def same_error(node, wheel):
    """The same format and code, and the same offset where Node's has one (an error raised in
    the JS layer, such as a virtual dataset whose sources are files Node was not given, has
    none)."""
    return wheel is not None and wheel[:2] == node[:2] and (node[2] is None or wheel[2] == node[2])


def test_every_fixture_equals_the_node_package(node):
    out, index = node
    assert len(index) > 1000
    differ = []
    for key, want in sorted(index.items()):
        got = ours(key)
        if key in BY_DESIGN:
            assert want.get("error") == BY_DESIGN[key] and "table" in got, (key, want)
            continue
        if "error" in want:
            if not same_error(want["error"], got.get("error")):
                differ.append(f"{key}: node {want['error']}, wheel {got.get('error') or 'a table'}")
            continue
        if "error" in got:
            differ.append(f"{key}: node a table, wheel {got['error']}")
            continue
        theirs = pa.ipc.open_file(pa.memory_map(str(out / want["file"]))).read_all()
        t = got["table"]
        if t.column_names != theirs.column_names or t.num_rows != want["rows"]:
            differ.append(f"{key}: columns {t.column_names} × {t.num_rows}, node {theirs.column_names} × {want['rows']}")
            continue
        for a, b in zip(t.schema, theirs.schema):
            if plain_type(a.type) != plain_type(b.type):
                differ.append(f"{key}: column {a.name} {a.type}, node {b.type}")
                break
            if not same(cells(t.column(a.name)), cells(theirs.column(b.name))):
                differ.append(f"{key}: column {a.name} values differ")
                break
    assert not differ, f"{len(differ)} of {len(index)} differ:\n" + "\n".join(differ[:40])
