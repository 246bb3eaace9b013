"""MessagePack payloads as Python services and log shippers write them (bench/payloads.mjs runs
this): msgspec Structs with a nested Struct and a list (msgspec's default: structs as maps),
and Fluentd's message mode, the bytes fluent-logger sends for a run of emit_with_time calls
(nanosecond_precision: EventTime ext 0), captured from its TCP connection. Deterministic.

Usage: .venv/bin/python bench/payloads/gen_python.py OUT_DIR
"""
import pathlib
import random
import sys

import msgspec
from fluent import sender

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts/fixtures/msgpack"))
from fluent_capture import capture  # noqa: E402

OUT = pathlib.Path(sys.argv[1])
rng = random.Random(42)


class Reading(msgspec.Struct):
    sensor: str
    unit: str
    value: float


class Sample(msgspec.Struct):
    id: int
    ts: int
    station: str
    ok: bool
    readings: list[Reading]
    flags: list[str]
    error: str | None = None


samples = [
    Sample(
        id=i,
        ts=1_767_225_600_000 + i * 250,
        station=f"st-{rng.randint(1, 400):03d}",
        ok=rng.random() < 0.9,
        readings=[Reading(s, u, round(rng.uniform(-20, 40), 2)) for s, u in rng.sample([("t", "C"), ("p", "hPa"), ("h", "%"), ("w", "m/s")], rng.randint(1, 3))],
        flags=rng.sample(["qc", "gap", "est", "manual"], rng.randint(0, 2)),
        error=None if rng.random() < 0.95 else "sensor offline",
    )
    for i in range(40_000)
]
(OUT / "payload_msgspec-structs.msgpack").write_bytes(msgspec.msgpack.encode(samples))


def emits(s):
    t = 1_767_225_600 * 10**9
    for i in range(30_000):
        t += rng.randint(1, 2 * 10**8)
        record = {
            "host": f"web-{i % 7}",
            "method": rng.choice(["GET", "GET", "GET", "POST", "PUT"]),
            "path": rng.choice(["/", "/api/orders", "/api/users/me", "/static/app.js"]),
            "status": rng.choice([200, 200, 200, 201, 304, 404, 500]),
            "bytes": rng.randint(120, 90_000),
            "latency_ms": round(rng.uniform(0.1, 250.0), 3),
            "ua": "Mozilla/5.0 (X11; Linux x86_64)",
        }
        assert s.emit_with_time(["nginx.access", "app.log"][i % 2], sender.EventTime.from_unix_nano(t), record), s.last_error


(OUT / "payload_fluent-message-mode.msgpack").write_bytes(capture(emits))
