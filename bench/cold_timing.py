"""What a timed step costs in this Python process (the native peers' --cold mode): wall ms,
this thread's CPU ms and the process's minor page faults, as bench/cold-child.mjs measures Node."""
import resource
import time


def timed(steps, name, f):
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    cpu = time.thread_time()
    t = time.perf_counter()
    out = f()
    ms = (time.perf_counter() - t) * 1e3
    steps[name] = {
        "ms": ms,
        "cpu": (time.thread_time() - cpu) * 1e3,
        "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults,
    }
    return out


def reads(steps, read):
    """Reads 1-3, each timed; returns their rows and the clock time (epoch ms) read 1 ended,
    for the parent's "process start -> table"."""
    rows = [timed(steps, "read1", read)]
    table_at = time.time() * 1e3
    rows += [timed(steps, f"read{k}", read) for k in (2, 3)]
    return rows, table_at
