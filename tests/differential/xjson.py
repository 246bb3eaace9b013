"""Values as exact, tagged JSON for the Node checker (tests/differential/check.ts).

null, bool and str are themselves; int {"i": "<decimal>"}; float {"f": "<float64 bits, hex>"}
(float16/32 widen exactly); bytes {"b": "<hex>"}; list [...]; struct {"s": [[name, v], ...]} (pairs: member order kept); map
with keys of any kind {"m": [[k, v], ...]}; timestamp {"t": "<ns since the epoch>"}.
"""
import json
import struct

import numpy as np


def enc(v):
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return {"i": str(int(v))}
    if isinstance(v, (float, np.floating)):
        return {"f": struct.pack(">d", float(v)).hex()}
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, np.bytes_, memoryview)):
        return {"b": bytes(v).hex()}
    if isinstance(v, dict):
        return {"s": [[k, enc(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [enc(x) for x in v]
    raise TypeError(f"xjson: no encoding for {type(v).__name__}")


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"), ensure_ascii=False)
