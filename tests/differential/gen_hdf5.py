#!/usr/bin/env python3
"""Random valid HDF5 files written by h5py (+ hdf5plugin), with h5py's own read-back.

  gen_hdf5.py --seed S --count N --out DIR [--only K]

File k of seed S is drawn from random.Random(f"{S}:{k}") alone, so `--only K` rewrites exactly
that file (a repro). Each `hdf5-K.h5` gets `hdf5-K.json`: per dataset the generator's parameters,
the Arrow type docs/hdf5.md maps the dtype to, and h5py's values (tests/differential/xjson.py);
per object the scalar attributes. A dataset whose feature docs/hdf5.md lists as not supported
(blosc2, bzip2) carries `refuse`: the reader must fail `unsupported` naming it.
"""
import argparse
import json
import os
import random
import sys
import traceback
import warnings

import h5py
import hdf5plugin
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from xjson import dump, enc  # noqa: E402

warnings.filterwarnings("ignore")
LIBVERS = ["earliest", "v108", "v110", "v112", "v114", "latest"]
INTS = [f"{o}{k}{n}" for o in "<>" for k in "iu" for n in (1, 2, 4, 8)]
FLOATS = [f"{o}f{n}" for o in "<>" for n in (2, 4, 8)]
WORDS = ["", "a", "hello", "héllo ✓", "x" * 17, "日本語", "tab\tnl\n", "zz"]


def scalar_dtype(rng, depth=0):
    """A random dtype and its kind tag (the generator's parameters name it)."""
    r = rng.random()
    if r < 0.30:
        return np.dtype(rng.choice(INTS))
    if r < 0.48:
        return np.dtype(rng.choice(FLOATS))
    if r < 0.53:
        return np.dtype(bool)
    if r < 0.60:
        return np.dtype(f"S{rng.randint(1, 12)}")
    if r < 0.64:
        return h5py.string_dtype("utf-8", rng.randint(4, 16))
    if r < 0.72:
        return h5py.string_dtype(rng.choice(["utf-8", "ascii"]))
    if r < 0.78:
        labels = rng.sample(["RED", "GREEN", "BLUE", "OFF", "ON", "ÉTÉ", "x"], rng.randint(1, 5))
        base = rng.choice(["i1", "u1", "<i2", ">u2", "<i4", ">i8"])
        vals = rng.sample(range(0, 100), len(labels))
        return h5py.enum_dtype(dict(zip(labels, vals)), basetype=base)
    if r < 0.85 and depth < 2:
        base = scalar_dtype(rng, depth + 1)
        while h5py.check_vlen_dtype(base) is not None or base.kind == "O" or base.subdtype is not None:
            base = np.dtype(rng.choice(INTS + FLOATS))
        return np.dtype((base, tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 2)))))
    if r < 0.93 and depth < 2:
        n = rng.randint(1, 4)
        fields = []
        for i in range(n):
            d = scalar_dtype(rng, depth + 1)
            fields.append((f"m{i}" if rng.random() < 0.7 else f"fld_{i}", d))
        return np.dtype(fields)
    if depth < 2:
        base = np.dtype(rng.choice(INTS + FLOATS))
        return h5py.vlen_dtype(base)
    return np.dtype(rng.choice(INTS))


def value(rng, dt, special):
    """One random value for dtype dt (what numpy stores)."""
    vl = h5py.check_vlen_dtype(dt)
    if vl is not None:
        if vl in (str, bytes):
            s = rng.choice(WORDS)
            if h5py.check_string_dtype(dt).encoding == "ascii":
                s = s.encode("ascii", "replace").decode()
            return s
        return np.array([value(rng, vl, special) for _ in range(rng.randint(0, 4))], dtype=vl)
    en = h5py.check_enum_dtype(dt)
    if en is not None:
        return rng.choice(list(en.values()))
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return np.array([value(rng, base, special) for _ in range(int(np.prod(shape)))], dtype=base).reshape(shape)
    if dt.names:
        return tuple(value(rng, dt.fields[n][0], special) for n in dt.names)
    if dt.kind == "b":
        return rng.random() < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.choice([0, 1, info.min, info.max, rng.randint(info.min, info.max), rng.randint(-5, 5) if dt.kind == "i" else 5])
    if dt.kind == "f":
        fi = np.finfo(dt)
        pool = [0.0, rng.uniform(-1000, 1000), float(fi.max), float(fi.tiny)]
        if special:
            pool += [float("nan"), float("inf"), float("-inf"), -0.0, float(fi.smallest_subnormal)]
        return dt.type(rng.choice(pool))
    if dt.kind == "S":
        s = rng.choice(WORDS).encode()[: dt.itemsize]
        return s.rstrip(b"\0")
    raise ValueError(dt)


def arrow_type(dt, top=True):
    """docs/hdf5.md's Arrow mapping, as check.ts spells types (None: a compound at top level)."""
    vl = h5py.check_vlen_dtype(dt)
    if vl is not None:
        return "utf8" if vl in (str, bytes) else f"list<{arrow_type(vl, False)}>"
    if h5py.check_enum_dtype(dt) is not None:
        return "dict<int32,utf8>"
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        t = arrow_type(base, False)
        for d in reversed(shape):
            t = f"fsl{d}<{t}>"
        return t
    if dt.names:
        return "struct<" + ",".join(f"{n}:{arrow_type(dt.fields[n][0], False)}" for n in dt.names) + ">"
    if dt.kind == "b":
        return "bool"
    if dt.kind == "i":
        return f"int{dt.itemsize * 8}"
    if dt.kind == "u":
        return f"uint{dt.itemsize * 8}"
    if dt.kind == "f":
        return f"float{dt.itemsize * 8}"
    if dt.kind == "S":
        return "utf8"
    raise ValueError(dt)


class Label(str):
    """An enum label: Utf8 in a dictionary whatever the column's other strings are."""


def py(v, dt):
    """h5py's read-back value → plain Python (enum → label; strings → str, or bytes if not UTF-8)."""
    vl = h5py.check_vlen_dtype(dt)
    if vl is not None:
        if vl in (str, bytes):
            return v if isinstance(v, (str, bytes)) else bytes(v)
        v = np.asarray(v)
        if v.dtype != vl and v.dtype.newbyteorder() == vl:
            # h5py 3.16 returns a VL sequence of big-endian elements as the file's bytes labelled
            # native (a VL of >u8 holding 5 reads as 360287970189639680; h5dump reads 5).
            v = v.view(vl)
        return [py(x, vl) for x in v]
    en = h5py.check_enum_dtype(dt)
    if en is not None:
        inv = {int(x): k for k, x in en.items()}
        label = inv.get(int(v))
        return None if label is None else Label(label)
    if dt.subdtype is not None:
        return [py(x, dt.subdtype[0]) for x in np.asarray(v).reshape(-1)] if len(dt.subdtype[1]) == 1 else [
            py(x, np.dtype((dt.subdtype[0], dt.subdtype[1][1:]))) for x in np.asarray(v)]
    if dt.names:
        return {n: py(v[n], dt.fields[n][0]) for n in dt.names}
    if dt.kind == "b":
        return bool(v)
    if dt.kind in "iu":
        return int(v)
    if dt.kind == "f":
        return float(v)
    if dt.kind == "S":
        return bytes(v)
    raise ValueError(dt)


def null_vl_strings(v, dt):
    """Unwritten cells: a VL string there is a null reference, which docs/hdf5.md reads as null
    (h5py reads it as b'')."""
    vl = h5py.check_vlen_dtype(dt)
    if vl in (str, bytes):
        return None if v in (b"", "") else v
    if dt.names and isinstance(v, dict):
        return {n: null_vl_strings(v[n], dt.fields[n][0]) for n in dt.names}
    if dt.subdtype is not None and isinstance(v, list):
        return [null_vl_strings(x, dt.subdtype[0]) for x in v]
    return v


def strings_to_text(vals):
    """Strings → str where every string of their column is UTF-8 (Utf8), else bytes (Binary).
    A column is a dataset, a compound member or a nested member (a path of member names);
    enum labels are Utf8 always. Returns the values and {path: all UTF-8}."""
    ok = {}

    def check(x, path):
        if isinstance(x, list):
            for y in x:
                check(y, path)
        elif isinstance(x, dict):
            for k, y in x.items():
                check(y, path + (k,))
        elif isinstance(x, bytes):
            try:
                x.decode("utf-8")
                ok.setdefault(path, True)
            except UnicodeDecodeError:
                ok[path] = False

    def fix(x, path):
        if isinstance(x, list):
            return [fix(y, path) for y in x]
        if isinstance(x, dict):
            return {k: fix(y, path + (k,)) for k, y in x.items()}
        if isinstance(x, Label):
            return x
        if isinstance(x, bytes):
            return x.decode() if ok.get(path, True) else x
        if isinstance(x, str):
            return x if ok.get(path, True) else x.encode()
        return x
    check(vals, ())
    return fix(vals, ()), ok


def typed(dt, ok, path=(), top=False):
    """arrow_type with each string column Binary where `ok` says it is not all UTF-8."""
    vl = h5py.check_vlen_dtype(dt)
    if vl in (str, bytes) or (dt.kind == "S" and not dt.names):
        return "utf8" if ok.get(path, True) else "binary"
    if vl is not None:
        return f"list<{typed(vl, ok, path)}>"
    if h5py.check_enum_dtype(dt) is not None:
        return "dict<int32,utf8>"
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        t = typed(base, ok, path)
        for d in reversed(shape):
            t = f"fsl{d}<{t}>"
        return t
    if dt.names:
        return "struct<" + ",".join(f"{n}:{typed(dt.fields[n][0], ok, path + (n,))}" for n in dt.names) + ">"
    return arrow_type(dt, top)


def unwritten(vals, p, dt):
    """Rows past `written_rows` (a partial write) with their VL strings as null references."""
    k = p.get("written_rows")
    if k is None:
        return vals

    def cell(v, depth):
        return [cell(x, depth - 1) for x in v] if depth else null_vl_strings(v, dt)
    return vals[:k] + [cell(v, len(p["shape"]) - 1) for v in vals[k:]]


def binary(t):
    """The type of a column whose strings are not all UTF-8: Binary, enum labels stay Utf8."""
    return t.replace("utf8", "binary").replace("dict<int32,binary>", "dict<int32,utf8>")


def rows_of(arr, dt):
    """Dataset rows: rank 0 → one row; trailing dimensions → nested lists."""
    if dt.subdtype is not None:
        dt = dt.subdtype[0]
    if arr.ndim == 0:
        return [py(arr[()], dt)]

    def nest(a):
        return [py(x, dt) for x in a] if a.ndim == 1 else [nest(x) for x in a]
    return nest(arr)


TRACE = {}
# Generator dimensions left out by --exclude (named, printed by run.mjs): "zero-trailing-dims"
# (dimensions after the first of length 0), "nbit-custom-float" (the N-bit float of a non-IEEE
# layout).
EXCLUDE = set()


def nbit_dataset(rng, f, name):
    """A chunked dataset through the N-bit filter (h5py has no high-level knob: the C API's
    types and filter id 5, its parameters computed by libhdf5). Integers of any width and order
    with fewer significant bits at a bit offset; IEEE floats at full precision; and the HDF5
    manual's 4-byte float of a non-IEEE layout (20 bits: 6 exponent, 13 mantissa), which
    docs/hdf5.md lists as not supported (refused, or read and compared)."""
    from h5py import h5d, h5p, h5s, h5t, h5z
    n = rng.choice([1, 2, 5, 17, 40])
    kind = rng.choice(["int", "int", "float", "custom-float"])
    if kind == "custom-float" and "nbit-custom-float" in EXCLUDE:
        kind = "float"
    refuse = None
    if kind == "int":
        base = np.dtype(rng.choice(INTS))
        bits = base.itemsize * 8
        prec = rng.randint(1, bits - 1)
        off = rng.randint(0, bits - prec)
        tid = h5t.py_create(base).copy()
        tid.set_precision(prec)
        tid.set_offset(off)
        lo, hi = (-(2 ** (prec - 1)), 2 ** (prec - 1) - 1) if base.kind == "i" else (0, 2 ** prec - 1)
        data = np.array([rng.choice([lo, hi, 0, rng.randint(lo, hi)]) for _ in range(n)], dtype=base)
        dt = base
        p = {"name": name, "dtype": str(base), "shape": [n], "layout": "chunked", "filter": "nbit", "precision": prec, "offset": off}
    elif kind == "float":
        dt = np.dtype(rng.choice(["<f4", ">f4", "<f8", ">f8"]))
        tid = h5t.py_create(dt).copy()
        data = np.array([rng.uniform(-100, 100) for _ in range(n)], dtype=dt)
        p = {"name": name, "dtype": str(dt), "shape": [n], "layout": "chunked", "filter": "nbit"}
    else:
        tid = h5t.IEEE_F32LE.copy() if rng.random() < 0.5 else h5t.IEEE_F32BE.copy()
        tid.set_fields(26, 20, 6, 7, 13)
        tid.set_offset(7)
        tid.set_precision(20)
        tid.set_size(4)
        tid.set_ebias(31)
        dt = np.dtype("<f4")
        data = np.array([rng.choice([0.0, 1.0, -2.5, 3.25, rng.uniform(-100, 100)]) for _ in range(n)], dtype=dt)
        p = {"name": name, "dtype": "N-bit float (HDF5 manual layout)", "shape": [n], "layout": "chunked", "filter": "nbit"}
        refuse = {"doc": "N-bit floats of a non-IEEE layout", "message": "float"}
    chunk = min(rng.choice([1, 3, n]), n)
    p["chunks"] = [chunk]
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk((chunk,))
    dcpl.set_filter(h5z.FILTER_NBIT)
    if "/" in name:
        f.require_group(name.rsplit("/", 1)[0])
    try:
        ds = h5py.Dataset(h5d.create(f.id, name.encode(), tid, h5s.create_simple((n,)), dcpl=dcpl))
    except ValueError as e:
        # HDF5 2.0 refuses some integer layouts ("unusual datatype"): not a file.
        return None, f"{name}: h5py refused {p}: {e}"
    ds[...] = data
    return (ds, p, dt, refuse), None


def make_dataset(rng, f, name, params):
    if rng.random() < 0.06:
        return nbit_dataset(rng, f, name)
    dt = scalar_dtype(rng)
    rank = rng.choice([0, 1, 1, 1, 2, 2, 3])
    inner = [1, 2, 3, 4] if "zero-trailing-dims" in EXCLUDE else [0, 1, 2, 3, 4]
    shape = tuple(rng.choice([0, 1, 2, 3, 5, 8, 17, 40, 100]) if i == 0 else rng.choice(inner) for i in range(rank))
    if rank and rng.random() < 0.05:
        shape = (0,) + shape[1:]
    special = rng.random() < 0.5
    n = int(np.prod(shape)) if rank else 1
    flat = [value(rng, dt, special) for _ in range(n)]
    if dt.subdtype is not None:
        base, sub = dt.subdtype
        data = np.array(flat, dtype=base).reshape(shape + sub)
    else:
        data = np.empty(n, dtype=dt)
        for i, x in enumerate(flat):
            data[i] = x
        data = data.reshape(shape)
    p = {"name": name, "dtype": str(dt) if not dt.names else [(k, str(dt.fields[k][0])) for k in dt.names],
         "shape": list(shape)}
    kw = {}
    layout = rng.choice(["contiguous", "compact", "chunked", "chunked", "chunked"]) if rank else rng.choice(["contiguous", "compact"])
    if layout == "compact" and data.nbytes > 30000:
        layout = "contiguous"
    p["layout"] = layout
    refuse = None
    if layout == "compact":
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        kw["dcpl"] = dcpl
    elif layout == "chunked":
        chunks = tuple(max(1, min(rng.choice([1, 2, 3, 7, 16, d or 1]), d or 1)) for d in shape)
        kw["chunks"] = chunks
        p["chunks"] = list(chunks)
        if rng.random() < 0.4 or 0 in shape:
            kw["maxshape"] = tuple(None if rng.random() < 0.5 or d == 0 else d for d in shape)
            p["maxshape"] = [d for d in kw["maxshape"]]
        plain = dt.kind in "iuf" and not dt.names and dt.subdtype is None and h5py.check_enum_dtype(dt) is None
        filt = rng.choice(["none", "gzip", "lzf", "scaleoffset", "blosc", "bitshuffle", "lz4", "zstd", "gzip", "blosc2", "bzip2"])
        if filt == "scaleoffset" and not (plain and dt.kind in "iu" or (plain and dt.kind == "f" and dt.itemsize >= 4)):
            filt = "gzip"
        # Excluded: hdf5plugin's Blosc and Blosc2 on VL data kill the writer (SIGFPE in
        # H5Fclose, hdf5plugin 7.1.0); bitshuffle refuses VL data.
        if filt in ("bitshuffle", "blosc", "blosc2") and (h5py.check_vlen_dtype(dt) is not None or dt.kind == "O"):
            filt = "gzip"
        p["filter"] = filt
        if filt == "gzip":
            kw["compression"] = "gzip"
            kw["compression_opts"] = rng.randint(0, 9)
        elif filt == "lzf":
            kw["compression"] = "lzf"
        elif filt == "scaleoffset":
            kw["scaleoffset"] = 0 if dt.kind in "iu" and rng.random() < 0.6 else rng.randint(0, 4)
            p["scaleoffset"] = kw["scaleoffset"]
        elif filt == "blosc":
            kw.update(hdf5plugin.Blosc(cname=rng.choice(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]),
                                       clevel=rng.randint(0, 9), shuffle=rng.choice([0, 1, 2])))
            p["filter_opts"] = list(kw["compression_opts"])
        elif filt == "bitshuffle":
            kw.update(hdf5plugin.Bitshuffle(cname=rng.choice([None, "lz4", "zstd"])))
        elif filt == "lz4":
            kw.update(hdf5plugin.LZ4())
        elif filt == "zstd":
            kw.update(hdf5plugin.Zstd(clevel=rng.randint(1, 10)))
        elif filt == "blosc2":
            kw.update(hdf5plugin.Blosc2())
            refuse = "blosc2"
        elif filt == "bzip2":
            kw.update(hdf5plugin.BZip2())
            refuse = "bzip2"
        if filt != "scaleoffset" and rng.random() < 0.3:
            kw["shuffle"] = True
            p["shuffle"] = True
        if filt != "scaleoffset" and rng.random() < 0.2:
            kw["fletcher32"] = True
            p["fletcher32"] = True
    fill = None
    partial = rank > 0 and shape[0] > 1 and layout != "compact" and rng.random() < 0.25
    if rng.random() < 0.3 and dt.kind in "iufb" and not dt.names and dt.subdtype is None and h5py.check_enum_dtype(dt) is None:
        fill = value(rng, dt, special)
        kw["fillvalue"] = fill
        p["fillvalue"] = enc(py(np.array(fill, dtype=dt)[()], dt))
    TRACE.setdefault("made", []).append(p)
    if TRACE.get("json"):
        # Overwritten when the file is done; what a crash leaves names the writer's inputs.
        dump(TRACE["json"], {"format": "hdf5", "file": None, "writer_crash": "the writer died", "datasets_tried": TRACE["made"]})
    try:
        if partial:
            k = rng.randint(0, shape[0] - 1)
            p["written_rows"] = k
            ds = f.create_dataset(name, shape=shape, dtype=dt, **kw)
            if k:
                ds[:k] = data[:k]
        else:
            ds = f.create_dataset(name, shape=shape, dtype=dt, **kw)
            if n:
                ds[()] = data
    except (ValueError, TypeError, OSError, AttributeError) as e:
        # h5py refuses the combination (e.g. scaleoffset on this type): not a file.
        if name in f:
            del f[name]
        return None, f"{name}: h5py refused {p}: {e}"
    if rng.random() < 0.3:
        for a in range(rng.randint(1, 12)):
            ds.attrs[f"a{a}"] = attr_value(rng)
    return (ds, p, dt, refuse), None


def attr_value(rng):
    k = rng.random()
    if k < 0.3:
        return np.dtype(rng.choice(INTS)).type(rng.randint(0, 100))
    if k < 0.5:
        return np.dtype(rng.choice(["<f4", "<f8", ">f8"])).type(rng.uniform(-5, 5))
    if k < 0.8:
        return rng.choice([w for w in WORDS if w])
    return np.array([rng.randint(0, 9) for _ in range(rng.randint(2, 5))], dtype=rng.choice(["<i4", ">i8", "<u2"]))


def attr_json(v):
    if isinstance(v, np.ndarray):
        return [enc(x.item()) for x in v]
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.generic):
        return enc(v.item())
    return enc(v)


def one_file(seed, k, out):
    rng = random.Random(f"{seed}:{k}")
    low = rng.choice(LIBVERS)
    path = os.path.join(out, f"hdf5-{k}.h5")
    TRACE.update(json=os.path.join(out, f"hdf5-{k}.json"), made=[])
    dump(TRACE["json"], {"format": "hdf5", "file": None, "writer_crash": "the writer died", "datasets_tried": []})
    params = {"seed": seed, "index": k, "libver": low, "track_order": rng.random() < 0.2}
    notes = []
    with h5py.File(path, "w", libver=(low, "latest"), track_order=params["track_order"]) as f:
        made = []
        for d in range(rng.randint(1, 4)):
            group = rng.choice(["", "", "g1/", "g1/g2/"])
            res, why = make_dataset(rng, f, f"{group}d{d}", params)
            if why:
                notes.append(why)
            elif res:
                made.append(res)
        if rng.random() < 0.3:
            for a in range(rng.randint(1, 10)):
                f.attrs[f"root{a}"] = attr_value(rng)
    datasets = []
    with h5py.File(path, "r") as f:
        for ds0, p, dt, refuse in made:
            ds = f[p["name"]]
            entry = {"path": "/" + p["name"], "params": p}
            if refuse:
                # Refused as documented, or read (no chunk was written: nothing to decode).
                entry["refuse"] = refuse
            arr = ds[()]
            scalar = ds.shape == ()
            if dt.names:
                cols = {}
                for m in dt.names:
                    mdt = dt.fields[m][0]
                    vals = [py(arr[m], mdt)] if scalar else rows_of(arr[m], mdt)
                    vals = unwritten(vals, p, mdt)
                    vals, ok = strings_to_text(vals)
                    t = typed(mdt, ok)
                    for dim in reversed(ds.shape[1:]):
                        t = f"fsl{dim}<{t}>"
                    cols[m] = {"type": t, "values": enc(vals)}
                entry["columns"] = cols
            else:
                vals = [py(arr, dt)] if scalar else rows_of(arr, dt)
                vals = unwritten(vals, p, dt)
                vals, ok = strings_to_text(vals)
                t = typed(dt, ok, top=True)
                for dim in reversed(ds.shape[1:]):
                    t = f"fsl{dim}<{t}>"
                entry["type"] = t
                entry["values"] = enc(vals)
            entry["rows"] = ds.shape[0] if ds.shape else 1
            entry["attrs"] = {a: attr_json(ds.attrs[a]) for a in ds.attrs}
            datasets.append(entry)
        root_attrs = {a: attr_json(f.attrs[a]) for a in f.attrs}
    dump(os.path.join(out, f"hdf5-{k}.json"), {"format": "hdf5", "file": f"hdf5-{k}.h5", "params": params,
                                              "datasets": datasets, "attrs": {"/": root_attrs}, "notes": notes})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", type=int)
    ap.add_argument("--exclude", default="")
    a = ap.parse_args()
    EXCLUDE.update(x for x in a.exclude.split(",") if x)
    os.makedirs(a.out, exist_ok=True)
    todo = [a.only] if a.only is not None else list(range(a.count))
    # Files are written by a child process; a writer that kills it (a C library's SIGFPE)
    # costs that file only: recorded as a writer crash with its inputs, and the next child
    # goes on with the next file.
    while todo:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                for k in todo:
                    one_file(a.seed, k, a.out)
            except OSError as e:
                # libhdf5 failing on the file h5py just wrote (reading it back): the writer's
                # fault, that file is skipped.
                traceback.print_exc()
                code = 1 if "filter returned failure" in str(e) else 3
            except BaseException:
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if status == 0:
            break
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
            sys.exit("gen_hdf5.py: the generator failed (above), not the writer")
        done = [k for k in todo if not crashed(a.out, k)]
        k = next(k for k in todo if crashed(a.out, k))
        j = os.path.join(a.out, f"hdf5-{k}.json")
        tried = json.load(open(j)).get("datasets_tried")
        dump(j, {"format": "hdf5", "file": None, "params": {"seed": a.seed, "index": k},
                 "writer_crash": f"wait status {status}", "datasets_tried": tried})
        todo = todo[todo.index(k) + 1:]
        del done


def crashed(out, k):
    """File k was not finished (its JSON still says the writer died, or there is none)."""
    j = os.path.join(out, f"hdf5-{k}.json")
    return not os.path.exists(j) or "writer_crash" in json.load(open(j))


if __name__ == "__main__":
    main()
