#!/usr/bin/env python3
"""Random MessagePack documents from the Python encoders (msgpack, msgspec, ormsgpack), each read
back by the encoder's own decoder.

  gen_msgpack.py --seed S --count N --out DIR [--only K]

Document k of seed S is drawn from random.Random(f"{S}:{k}") alone (`--only K` rewrites it). Each
`msgpack-py-K.msgpack` gets `msgpack-py-K.json`: the encoder and shape parameters and the
decoder's rows (tests/differential/xjson.py); check.ts derives the columns and their Arrow types
from those rows by docs/msgpack.md's rules. Shapes: arrays of records (keys missing at random, nil
values), of scalars, of equal or ragged lists, nested lists and records, empty arrays. Each
record field keeps one kind (ints of every width incl. uint64 and int64 extremes, ints mixed with
floats, float64 incl. NaN/±Inf/−0/subnormals, float32 via msgpack's use_single_float, bool, str,
bin, timestamps, lists, nested records, all-nil).
"""
import argparse
import datetime
import math
import os
import random
import sys

import msgpack
import msgspec
import ormsgpack

sys.path.insert(0, os.path.dirname(__file__))
from xjson import dump, enc  # noqa: E402

ENCODERS = ["msgpack", "msgspec", "ormsgpack"]
SCALAR_KINDS = ["i32", "i64", "u64", "f64", "num", "bool", "str", "bin", "ts", "nil"]
WORDS = ["", "a", "hello", "héllo ✓", "日本語", "x" * 40, "tab\t", "null"]
UTC = datetime.timezone.utc


def gen(rng, kind, enc_name, depth=0):
    """One value of `kind` (a scalar kind, or ("list", k) / ("rec", {name: k}))."""
    if isinstance(kind, tuple):
        if kind[0] == "list":
            return [gen(rng, kind[1], enc_name, depth + 1) for _ in range(rng.randint(0, 4))]
        return {n: gen(rng, k, enc_name, depth + 1) for n, k in kind[1].items() if rng.random() < 0.9}
    if kind == "i32":
        return rng.choice([0, 1, -1, 127, -32, 128, 255, -129, 65535, rng.randint(-2**31, 2**31 - 1), -2**31, 2**31 - 1])
    if kind == "i64":
        return rng.choice([rng.randint(-2**63, 2**63 - 1), -2**63, 2**63 - 1, 2**31, -2**31 - 1, rng.randint(-100, 100)])
    if kind == "u64":
        return rng.choice([2**64 - 1, 2**63, rng.randint(2**63, 2**64 - 1), rng.randint(0, 1000), 2**32])
    if kind == "f64":
        return rng.choice([0.5, -1.25, rng.uniform(-1e6, 1e6), rng.uniform(-1, 1) * 10.0 ** rng.randint(-300, 300),
                           float("nan"), float("inf"), float("-inf"), -0.0, 5e-324, 1.7976931348623157e308, 3.0])
    if kind == "num":
        return rng.choice([rng.randint(-1000, 1000), rng.uniform(-10, 10), 2**53 + 1, 7])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "str":
        return rng.choice(WORDS)
    if kind == "bin":
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 9)))
    if kind == "ts":
        sec = rng.choice([0, 1_700_000_000, -1, -86400 * 365 * 20, 2**32 + 5, rng.randint(-2**33, 2**34)])
        if enc_name == "msgpack":
            return msgpack.Timestamp(sec, rng.choice([0, 1, 999_999_999, rng.randint(0, 999_999_999)]))
        # msgspec: datetimes (microseconds) as the timestamp extension.
        return datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=sec, microseconds=rng.randint(0, 999_999))
    if kind == "nil":
        return None
    raise ValueError(kind)


def kind_for(rng, enc_name, depth=0):
    kinds = [k for k in SCALAR_KINDS if not (k == "ts" and enc_name == "ormsgpack")]
    r = rng.random()
    if depth < 2 and r < 0.12:
        return ("list", kind_for(rng, enc_name, depth + 1))
    if depth < 2 and r < 0.2:
        return ("rec", {f"k{i}": kind_for(rng, enc_name, depth + 1) for i in range(rng.randint(1, 3))})
    return rng.choice(kinds)


def document(rng, enc_name):
    shape = rng.choice(["records", "records", "records", "scalars", "lists", "fixed_lists", "empty"])
    n = rng.choice([0, 1, 2, 5, 20, 100, 300])
    nil_rate = rng.choice([0.0, 0.1, 0.4])
    params = {"shape": shape, "rows": n, "nil_rate": nil_rate}
    if shape == "empty":
        return [], params
    if shape == "records":
        fields = {(f"c{i}" if rng.random() < 0.9 else rng.choice(["", "é", "with space", "1"])): kind_for(rng, enc_name)
                  for i in range(rng.randint(1, 8))}
        params["fields"] = {k: repr(v) for k, v in fields.items()}
        present = rng.choice([1.0, 0.8, 0.5])
        rows = []
        for _ in range(n):
            if rng.random() < nil_rate * 0.2:
                rows.append(None)
                continue
            rows.append({k: (None if rng.random() < nil_rate else gen(rng, kd, enc_name)) for k, kd in fields.items()
                         if rng.random() < present})
        return rows, params
    kind = rng.choice([k for k in SCALAR_KINDS if k != "nil" and not (k == "ts" and enc_name == "ormsgpack")])
    params["kind"] = kind
    if shape == "scalars":
        return [None if rng.random() < nil_rate else gen(rng, kind, enc_name) for _ in range(n)], params
    if shape == "lists":
        return [[gen(rng, kind, enc_name) for _ in range(rng.randint(0, 5))] for _ in range(n)], params
    width = rng.randint(1, 4)
    return [[gen(rng, kind, enc_name) for _ in range(width)] for _ in range(n)], params


def plain(v):
    """The decoder's value → xjson's kinds (timestamps as ns, maps as records)."""
    if isinstance(v, msgpack.Timestamp):
        return {"t": str(v.seconds * 10**9 + v.nanoseconds)}
    if isinstance(v, datetime.datetime):
        d = v - datetime.datetime(1970, 1, 1, tzinfo=UTC)
        return {"t": str((d.days * 86400 + d.seconds) * 10**9 + d.microseconds * 1000)}
    if isinstance(v, dict):
        return {"s": [[str(k), plain(x)] for k, x in v.items()]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return enc(v)


def one_doc(seed, k, out):
    rng = random.Random(f"{seed}:{k}")
    enc_name = ENCODERS[k % len(ENCODERS)]
    rows, params = document(rng, enc_name)
    params.update(seed=seed, index=k, encoder=enc_name)
    single = enc_name == "msgpack" and rng.random() < 0.3
    # How the rows are laid out: one array (the default), concatenated values (a stream: each
    # top-level value a row), or one columnar map {key: [values]} (records only).
    layout = rng.choice(["array", "array", "array", "stream", "columnar"])
    if layout == "columnar" and not (params["shape"] == "records" and rows and all(isinstance(r, dict) for r in rows)):
        layout = "array"
    if layout == "stream" and (not rows or any(isinstance(r, list) for r in rows)):
        layout = "array"
    params["layout"] = layout
    if layout == "columnar":
        keys = list(dict.fromkeys(k for r in rows for k in r))
        value = {k: [r.get(k) for r in rows] for k in keys}
    else:
        value = rows
    if enc_name == "msgpack":
        if layout == "stream":
            data = b"".join(msgpack.packb(r, use_bin_type=True, use_single_float=single, datetime=False) for r in rows)
            back = list(msgpack.Unpacker(__import__("io").BytesIO(data), raw=False, timestamp=0, strict_map_key=False))
        else:
            data = msgpack.packb(value, use_bin_type=True, use_single_float=single, datetime=False)
            back = msgpack.unpackb(data, raw=False, timestamp=0, strict_map_key=False)
    elif enc_name == "msgspec":
        if layout == "stream":
            data = b"".join(msgspec.msgpack.encode(r) for r in rows)
            dec = msgspec.msgpack.Decoder()
            back = [dec.decode(msgspec.msgpack.encode(r)) for r in rows]  # msgspec decodes one value per call
            assert b"".join(msgspec.msgpack.encode(x) for x in back) == data
        else:
            data = msgspec.msgpack.encode(value)
            back = msgspec.msgpack.decode(data)
    else:
        if layout == "stream":
            data = b"".join(ormsgpack.packb(r) for r in rows)
            back = [ormsgpack.unpackb(ormsgpack.packb(r)) for r in rows]  # ormsgpack decodes one value per call
        else:
            data = ormsgpack.packb(value)
            back = ormsgpack.unpackb(data)
    if layout == "columnar":
        # The decoder's map → rows by docs/msgpack.md's columnar rule: a map whose values are
        # all arrays of one length is one row per index (a key missing from a row is null
        # there too); any other map (e.g. {} when no row had a key) is one row.
        lengths = {len(v) if isinstance(v, list) else -1 for v in back.values()}
        if back and len(lengths) == 1 and -1 not in lengths:
            back = [{k: back[k][i] for k in back} for i in range(lengths.pop())]
        else:
            back = [back]
    params["float32"] = single
    name = f"msgpack-py-{k}"
    out_rows = [plain(r) for r in back]
    doc = {"format": "msgpack", "file": name + ".msgpack", "params": params, "float32": single, "rows": out_rows}
    if any(not -(2**63) <= int(t) < 2**63 for t in timestamps(out_rows)):
        # docs/msgpack.md: a timestamp outside Timestamp(ns) range is `Unsupported`.
        doc["refuse"] = {"doc": "timestamp outside Timestamp(ns) range", "message": "outside the range of Timestamp(ns)"}
    with open(os.path.join(out, name + ".msgpack"), "wb") as f:
        f.write(data)
    dump(os.path.join(out, name + ".json"), doc)


def timestamps(v):
    if isinstance(v, list):
        for x in v:
            yield from timestamps(x)
    elif isinstance(v, dict):
        if "t" in v:
            yield v["t"]
        elif "s" in v:
            for _, x in v["s"]:
                yield from timestamps(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", type=int)
    ap.add_argument("--exclude", default="")  # no dimension of this generator can be left out yet
    a = ap.parse_args()
    if a.exclude:
        sys.exit(f"unknown --exclude {a.exclude}")
    os.makedirs(a.out, exist_ok=True)
    for k in ([a.only] if a.only is not None else range(a.count)):
        one_doc(a.seed, k, a.out)


if __name__ == "__main__":
    main()
