#!/usr/bin/env python3
"""Seed corpus for the `filters` fuzz target from the committed HDF5 fixtures.

Every stored chunk of a dataset whose pipeline the target can express (one of blosc, LZ4,
bitshuffle, Zstandard, scale-offset, N-bit; alone, after shuffle, or before deflate) becomes
one input in the target's layout: pick byte, unfiltered size (2 bytes, big-endian), number of
filter parameters, the parameters (u32 LE), the stored chunk. Read with h5py (raw chunks and
the pipeline's parameters as libhdf5 stored them).

    .venv/bin/python scripts/fuzz-seeds-filters.py OUT_DIR
"""
import os
import struct
import sys

import h5py
import hdf5plugin  # noqa: F401  (registers the plugin filters so h5py opens the files)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
IDS = [32001, 32004, 32008, 32015, 6, 5]  # the target's order: BLOSC, LZ4, BITSHUFFLE, ZSTD, SCALEOFFSET, NBIT
SHUFFLE, DEFLATE = 2, 1


def pick_byte(idx, mode):
    return next(p for p in range(mode * 64, mode * 64 + 64) if p % len(IDS) == idx)


def seeds(path):
    out = []
    def visit(_, obj):
        if not isinstance(obj, h5py.Dataset) or obj.chunks is None:
            return
        dcpl = obj.id.get_create_plist()
        pipe = [dcpl.get_filter(i) for i in range(dcpl.get_nfilters())]
        codes = [f[0] for f in pipe]
        main = [i for i, c in enumerate(codes) if c in IDS]
        if len(main) != 1:
            return
        k = main[0]
        rest = codes[:k] + codes[k + 1:]
        mode = 0 if not rest else 1 if rest == [SHUFFLE] and k == 1 else 2 if rest == [DEFLATE] and k == 0 else None
        if mode is None:
            return
        cd = list(pipe[k][2])[:23]
        size = obj.dtype.itemsize
        for c in obj.chunks:
            size *= c
        if size > 0xFFFF:
            return
        for i in range(min(obj.id.get_num_chunks(), 8)):
            info = obj.id.get_chunk_info(i)
            mask, raw = obj.id.read_direct_chunk(info.chunk_offset)
            if mask:
                continue
            head = bytes([pick_byte(IDS.index(codes[k]), mode)]) + struct.pack(">H", size) + bytes([len(cd)])
            out.append(head + b"".join(struct.pack("<I", v & 0xFFFFFFFF) for v in cd) + raw)
    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return out


def main():
    dest = sys.argv[1]
    os.makedirs(dest, exist_ok=True)
    n = 0
    folder = os.path.join(ROOT, "fixtures", "hdf5")
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        if name.endswith(".json") or not os.path.isfile(p):
            continue
        try:
            found = seeds(p)
        except OSError:
            continue
        for s in found:
            with open(os.path.join(dest, "%s-%03d" % (name, n)), "wb") as f:
                f.write(s)
            n += 1
    print("filters seeds: %d inputs in %s" % (n, dest))


if __name__ == "__main__":
    main()
