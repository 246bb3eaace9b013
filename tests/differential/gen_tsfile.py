#!/usr/bin/env python3
"""Random valid TsFiles written by PyPI tsfile (the C++ writer, table model), with the official
reader's (query_table) rows.

  gen_tsfile.py --seed S --count N --out DIR [--only K]

File k of seed S is drawn from random.Random(f"{S}:{k}") alone (`--only K` rewrites it). Each
`tsfile-K.tsfile` gets `tsfile-K.json`: the parameters (schema, encodings per type, compressor,
page size, chunk groups, time order), and per device (by tag values) the official reader's
times and values (tests/differential/xjson.py), in the official reader's order.
"""
import argparse
import math
import os
import random
import struct
import sys
from datetime import date

import numpy as np
import tsfile
from tsfile import (ColumnCategory, ColumnSchema, Compressor, TableSchema, Tablet,
                    TSDataType as T, TSEncoding as E, TsFileReader, TsFileWriter)

sys.path.insert(0, os.path.dirname(__file__))
from xjson import dump, enc  # noqa: E402

TYPES = [T.BOOLEAN, T.INT32, T.INT64, T.FLOAT, T.DOUBLE, T.TEXT, T.STRING, T.BLOB, T.DATE, T.TIMESTAMP]
CFG_KEY = {T.BOOLEAN: "boolean", T.INT32: "int32", T.DATE: "int32", T.INT64: "int64",
           T.TIMESTAMP: "int64", T.FLOAT: "float", T.DOUBLE: "double", T.TEXT: "string",
           T.STRING: "string", T.BLOB: "string"}
# What the C++ 2.5 writer accepts per type key (probed: scripts/fixtures/tsfile/gen_cpp.py).
ACCEPTS = {
    "boolean": [E.PLAIN],
    "int32": [E.PLAIN, E.RLE, E.TS_2DIFF, E.GORILLA, E.ZIGZAG, E.CHIMP, E.SPRINTZ, E.RLBE],
    "int64": [E.PLAIN, E.RLE, E.TS_2DIFF, E.GORILLA, E.ZIGZAG, E.CHIMP, E.SPRINTZ, E.RLBE],
    "float": [E.PLAIN, E.TS_2DIFF, E.GORILLA, E.CHIMP, E.SPRINTZ, E.RLBE],
    "double": [E.PLAIN, E.TS_2DIFF, E.GORILLA, E.CHIMP, E.SPRINTZ, E.RLBE],
    "string": [E.PLAIN, E.DICTIONARY],
}
COMPRESSORS = [Compressor.UNCOMPRESSED, Compressor.SNAPPY, Compressor.GZIP, Compressor.LZ4,
               Compressor.ZSTD, Compressor.LZMA2]
# Generator dimensions --exclude can leave out (named, printed by run.mjs): "out-of-order-groups"
# (a later chunk group of a device holding earlier times: every file ascending), "batches" (no
# read in batches).
KNOBS = {"out-of-order-groups", "batches"}
EXCLUDE = set()
TIME_ENCODINGS = [E.TS_2DIFF, E.TS_2DIFF, E.PLAIN]
WORDS = ["", "a", "hello", "héllo ✓", "s1", "x" * 40, "日本語", "tab\t"]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def gen_value(rng, ty, special):
    if ty == T.BOOLEAN:
        return rng.random() < 0.5
    if ty in (T.INT32, T.INT64):
        bits = 31 if ty == T.INT32 else 63
        return rng.choice([0, 1, -1, 7, 7, rng.randint(-1000, 1000), rng.randint(-2**bits, 2**bits - 1),
                           -2**bits, 2**bits - 1])
    if ty in (T.FLOAT, T.DOUBLE):
        pool = [0.0, 1.5, 1.5, round(rng.uniform(-1e4, 1e4), 3), rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)]
        if special:
            pool += [float("nan"), float("inf"), float("-inf"), -0.0, 5e-324 if ty == T.DOUBLE else 1e-45]
        v = rng.choice(pool)
        return f32(v) if ty == T.FLOAT else v
    if ty in (T.TEXT, T.STRING):
        return rng.choice(WORDS)
    if ty == T.BLOB:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 10)))
    if ty == T.DATE:
        return date.fromordinal(date(1900, 1, 1).toordinal() + rng.randint(0, 60000))
    if ty == T.TIMESTAMP:
        return rng.choice([0, rng.randint(-2**40, 2**41), 1_700_000_000_000])
    raise ValueError(ty)


def normalize(ty, v):
    """The official reader's value → plain Python of the Arrow mapping (DATE → days)."""
    if v is None:
        return None
    if ty == T.DATE:
        if not isinstance(v, date):
            v = tsfile.parse_int_to_date(int(v))
        return (v - date(1970, 1, 1)).days
    if ty in (T.TEXT, T.STRING) and isinstance(v, bytes):
        return v.decode()
    if ty == T.BLOB and isinstance(v, str):
        return v.encode()
    if ty == T.BOOLEAN:
        return bool(v)
    if ty in (T.FLOAT, T.DOUBLE):
        return float(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    return v


def one_file(seed, k, out):
    rng = random.Random(f"{seed}:{k}")
    if rng.random() < 0.3:
        return tree_file(rng, seed, k, out)
    path = os.path.join(out, f"tsfile-{k}.tsfile")
    ntags = rng.choice([1, 1, 2])
    nfields = rng.randint(1, 6)
    fields = [(f"f{i}", rng.choice(TYPES)) for i in range(nfields)]
    keys = sorted({CFG_KEY[t] for _, t in fields})
    encodings = {key: rng.choice(ACCEPTS[key]) for key in ("boolean", "int32", "int64", "float", "double", "string")}
    # DATE/TIMESTAMP reject ZIGZAG and SPRINTZ, BLOB rejects DICTIONARY (the writer refuses them).
    for n, t in fields:
        if t in (T.DATE, T.TIMESTAMP) and encodings[CFG_KEY[t]] in (E.ZIGZAG, E.SPRINTZ):
            encodings[CFG_KEY[t]] = E.TS_2DIFF
        if t == T.BLOB and encodings["string"] == E.DICTIONARY:
            encodings["string"] = E.PLAIN
    comp = rng.choice(COMPRESSORS)
    page = rng.choice([1, 2, 3, 10, 32, 100, 1000])
    time_enc = rng.choice(TIME_ENCODINGS)
    devices = []
    while len(devices) < rng.randint(1, 4):
        tags = tuple(rng.choice(["d1", "d2", "dev-3", "ü", None]) for _ in range(ntags))
        if tags not in devices and any(x is not None for x in tags):
            devices.append(tags)
    groups = rng.choice([1, 1, 2, 3])
    rows_per = rng.choice([1, 3, 10, 50, 200])
    # Time order across chunk groups: ascending, or a later flush holding earlier times.
    order = rng.choice(["ascending", "ascending", "backwards_groups", "interleaved_groups"])
    if "out-of-order-groups" in EXCLUDE:
        order = "ascending"
    null_rate = rng.choice([0.0, 0.1, 0.5, 1.0])
    special = rng.random() < 0.5
    params = {"seed": seed, "index": k, "fields": [[n, t.name] for n, t in fields], "tags": ntags,
              "encodings": {key: encodings[key].name for key in keys}, "compressor": comp.name,
              "page_points": page, "time_encoding": time_enc.name, "devices": [list(d) for d in devices],
              "chunk_groups": groups, "rows_per_group": rows_per, "order": order, "null_rate": null_rate,
              "special_floats": special}
    w = TsFileWriter(path)
    cfg = {"page_writer_max_point_num_": page, "time_encoding_type_": time_enc, "time_compress_type_": comp,
           "default_compression_type_": comp}
    for key in ("boolean", "int32", "int64", "float", "double", "string"):
        cfg[key + "_encoding_type_"] = encodings[key]
    tsfile.set_tsfile_config(cfg)
    tag_names = [f"tag{i}" for i in range(ntags)]
    cols = [ColumnSchema(t, T.STRING, ColumnCategory.TAG) for t in tag_names]
    cols += [ColumnSchema(n, t, ColumnCategory.FIELD) for n, t in fields]
    w.register_table(TableSchema("t", cols))
    base = 1_700_000_000_000
    given = {}
    for g in range(groups):
        if order == "ascending":
            g_slot = g
        elif order == "backwards_groups":
            g_slot = groups - 1 - g
        else:
            g_slot = g
        for tags in devices:
            tab = Tablet(tag_names + [n for n, _ in fields], [T.STRING] * ntags + [t for _, t in fields], rows_per)
            tab.set_table_name("t")
            for r in range(rows_per):
                if order == "interleaved_groups":
                    t = base + (r * groups + g) * 10
                else:
                    t = base + (g_slot * rows_per + r) * 10
                tab.add_timestamp(r, t)
                for tn, tv in zip(tag_names, tags):
                    if tv is not None:
                        tab.add_value_by_name(tn, r, tv)
                for n, ty in fields:
                    if rng.random() >= null_rate:
                        v = gen_value(rng, ty, special)
                        tab.add_value_by_name(n, r, v)
                        given[(tags, t, n)] = v
            w.write_table(tab)
        w.flush()
    w.close()
    # The official reader's rows, grouped by device in its order.
    names = tag_names + [n for n, _ in fields]
    per = {}
    with TsFileReader(path) as r:
        with r.query_table("t", names) as rs:
            while rs.next():
                tags = tuple(None if rs.is_null_by_name(tn) else rs.get_value_by_name(tn) for tn in tag_names)
                tags = tuple(x.decode() if isinstance(x, bytes) else x for x in tags)
                d = per.setdefault(tags, {"time": [], "columns": {n: [] for n, _ in fields}})
                d["time"].append(int(rs.get_value_by_name("time")))
                t = d["time"][-1]
                for n, ty in fields:
                    v = None if rs.is_null_by_name(n) else normalize(ty, rs.get_value_by_name(n))
                    mine = given.get((tags, t, n))
                    if ty == T.BLOB and isinstance(mine, bytes) and b"\0" in mine and v == mine.split(b"\0")[0]:
                        # The official Python reader cuts BLOBs at the first NUL; the file holds
                        # the whole value (docs/tsfile.md, quirks).
                        v = mine
                        params["reader_blob_nul_cut"] = params.get("reader_blob_nul_cut", 0) + 1
                    d["columns"][n].append(v)
    out_devices = [{"tags": list(tags), "time": enc(d["time"]), "columns": {n: enc(v) for n, v in d["columns"].items()}}
                   for tags, d in per.items()]
    read = {"query": {"table": "t"}, "tags": tag_names, "fields": [[n, t.name] for n, t in fields], "devices": out_devices}
    dump(os.path.join(out, f"tsfile-{k}.json"), {"format": "tsfile", "file": f"tsfile-{k}.tsfile", "params": params,
                                                 "reads": more_reads(rng, read, rows_per * groups)})


def more_reads(rng, read, rows):
    """The whole read, the same in batches of a few rows, and a time range (both compared with
    the official reader's rows: concatenated, and filtered by time)."""
    batched = dict(read, batch_rows=rng.choice([1, 7, 64, max(1, rows // 2)]))
    ranged = dict(read, query=dict(read["query"], start=1_700_000_000_000 + rng.randint(0, rows * 10),
                                   end=1_700_000_000_000 + rng.randint(0, rows * 10 + 50)))
    return [read, ranged] if "batches" in EXCLUDE else [read, batched, ranged]


class RawField(tsfile.Field):
    """The binding's Field refuses non-finite FLOAT values; the C++ writer takes them."""

    def get_float_value(self):
        return np.float32(self.value)


def tree_file(rng, seed, k, out):
    """Tree model, non-aligned series: per-series encoding and compressor, rows by
    write_row_record, chunk groups by flush (in time order, or a later flush holding earlier
    times); read back with query_timeseries per series."""
    path = os.path.join(out, f"tsfile-{k}.tsfile")
    ndev = rng.randint(1, 3)
    devices = [f"root.sg{rng.randint(0, 1)}.d{i}" for i in range(ndev)]
    series = {}
    for dev in devices:
        series[dev] = []
        for i in range(rng.randint(1, 5)):
            ty = rng.choice(TYPES)
            e = rng.choice(ACCEPTS[CFG_KEY[ty]])
            if ty in (T.DATE, T.TIMESTAMP) and e in (E.ZIGZAG, E.SPRINTZ):
                e = E.TS_2DIFF
            if ty == T.BLOB and e == E.DICTIONARY:
                e = E.PLAIN
            series[dev].append((f"s{i}", ty, e, rng.choice(COMPRESSORS)))
    page = rng.choice([1, 2, 3, 10, 32, 100, 1000])
    time_enc = rng.choice(TIME_ENCODINGS)
    groups = rng.choice([1, 1, 2, 3])
    rows_per = rng.choice([1, 3, 10, 50, 200])
    order = rng.choice(["ascending", "ascending", "backwards_groups", "interleaved_groups"])
    if "out-of-order-groups" in EXCLUDE:
        order = "ascending"
    null_rate = rng.choice([0.0, 0.1, 0.5])
    special = rng.random() < 0.5
    params = {"seed": seed, "index": k, "model": "tree", "series": {d: [[n, t.name, e.name, c.name] for n, t, e, c in ss] for d, ss in series.items()},
              "page_points": page, "time_encoding": time_enc.name, "chunk_groups": groups, "rows_per_group": rows_per,
              "order": order, "null_rate": null_rate, "special_floats": special}
    w = TsFileWriter(path)
    tsfile.set_tsfile_config({"page_writer_max_point_num_": page, "time_encoding_type_": time_enc})
    for dev in devices:
        for n, ty, e, c in series[dev]:
            w.register_timeseries(dev, tsfile.TimeseriesSchema(n, ty, e, c))
    given = {}
    base = 1_700_000_000_000
    for g in range(groups):
        slot = groups - 1 - g if order == "backwards_groups" else g
        for dev in devices:
            for r in range(rows_per):
                t = base + ((r * groups + g) if order == "interleaved_groups" else (slot * rows_per + r)) * 10
                fields = []
                for n, ty, _, _ in series[dev]:
                    if rng.random() < null_rate:
                        continue
                    v = gen_value(rng, ty, special)
                    fields.append(RawField(n, v, ty))
                    given[(dev, t, n)] = v
                if fields:
                    w.write_row_record(tsfile.RowRecord(dev, t, fields))
        w.flush()
    w.close()
    out_devices = []
    all_fields = {}
    with_points = set()
    with TsFileReader(path) as r:
        for dev in devices:
            per = {}
            for n, ty, _, _ in series[dev]:
                got = {}
                with r.query_timeseries(dev, [n], -2**63, 2**63 - 1) as rs:
                    while rs.next():
                        if rs.is_null_by_index(2):
                            continue
                        t = int(rs.get_value_by_index(1))
                        v = normalize(ty, rs.get_value_by_index(2))
                        mine = given.get((dev, t, n))
                        if ty == T.BLOB and isinstance(mine, bytes) and b"\0" in mine and v == mine.split(b"\0")[0]:
                            v = mine  # the official Python reader cuts BLOBs at NUL (docs/tsfile.md)
                        got[t] = v
                if got:
                    # A series without a point has no chunk: the file does not know it.
                    per[n] = got
                    all_fields[n] = ty
                    with_points.add((dev, n))
            times = sorted(set().union(*[set(x) for x in per.values()]))
            if not times:
                continue
            cols = {n: [per[n].get(t) if n in per else None for t in times] for n in sorted(set(all_fields))}
            out_devices.append({"tags": [dev], "time": times, "columns": cols})
    # Measurement columns are the union over the devices; a device lacking one has nulls.
    names = sorted(all_fields)
    for d in out_devices:
        d["columns"] = {n: enc(d["columns"].get(n, [None] * len(d["time"]))) for n in names}
        d["time"] = enc(d["time"])
    types = {}
    for dev in devices:
        for n, ty, _, _ in series[dev]:
            if (dev, n) in with_points:
                types.setdefault(n, set()).add(ty.name)
    if any(len(v) > 1 for v in types.values()):
        # One measurement name with two types in two devices: a TypeMismatch per the docs; read
        # each device alone instead.
        reads = [{"query": {"devices": [d["tags"][0]]}, "tags": ["device"],
                  "fields": [[n, ty.name] for n, ty, _, _ in series[d["tags"][0]] if (d["tags"][0], n) in with_points],
                  "devices": [dict(d, columns={n: d["columns"][n] for n, _, _, _ in series[d["tags"][0]] if (d["tags"][0], n) in with_points})]}
                 for d in out_devices]
    else:
        reads = more_reads(rng, {"query": {}, "tags": ["device"], "fields": [[n, all_fields[n].name] for n in names],
                                 "devices": out_devices}, rows_per * groups)
    dump(os.path.join(out, f"tsfile-{k}.json"), {"format": "tsfile", "file": f"tsfile-{k}.tsfile", "params": params, "reads": reads})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", type=int)
    ap.add_argument("--exclude", default="")
    a = ap.parse_args()
    EXCLUDE.update(x for x in a.exclude.split(",") if x)
    if EXCLUDE - KNOBS:
        sys.exit(f"unknown --exclude {EXCLUDE - KNOBS} (known: {sorted(KNOBS)})")
    os.makedirs(a.out, exist_ok=True)
    for k in ([a.only] if a.only is not None else range(a.count)):
        one_file(a.seed, k, a.out)


if __name__ == "__main__":
    main()
