"""Ray Data datasets of TsFile, HDF5 and MessagePack files.

    import arrowsmith.ray
    ds = arrowsmith.ray.read_tsfile("exports/")                    # a folder, a file or a glob
    ds = arrowsmith.ray.read_hdf5("scans/*.h5", dataset="/entry/data")
    ds = arrowsmith.ray.read_msgpack(["a.msgpack", "b.msgpack"])

The files are cut as the Spark sources cut them (a TsFile device, a run of whole HDF5 chunks,
a run of whole MessagePack rows), the schema is the first file's, and a file that differs
fails the read with :class:`~arrowsmith._scan.SchemaMismatch` naming it. Keyword options are
those of :func:`arrowsmith.read_tsfile` and friends (``table``, ``columns``, ``tags``,
``start``, ``end``, ``time_unit``; ``dataset``, ``task_rows``; ``layout``, ``maps``, ``tuples``,
``split_bytes``).
"""

from __future__ import annotations

import os
from typing import Any, Iterator

import pyarrow as pa
import ray.data
from ray.data.block import BlockMetadata
from ray.data.datasource import Datasource, ReadTask

from ._scan import Scan, SchemaMismatch, Task, plain_type

__all__ = ["read_tsfile", "read_hdf5", "read_msgpack", "ArrowsmithDatasource", "SchemaMismatch"]


def read_tsfile(paths: Any, **options: Any) -> ray.data.Dataset:
    """TsFiles as one dataset: ``time``, the tag columns (or ``device``), the fields."""
    return _read("tsfile", paths, options)


def read_hdf5(paths: Any, dataset: str, **options: Any) -> ray.data.Dataset:
    """One dataset of each HDF5 file, its rows concatenated."""
    return _read("hdf5", paths, dict(options, dataset=dataset))


def read_msgpack(paths: Any, **options: Any) -> ray.data.Dataset:
    """MessagePack files (a top-level array or concatenated values each) as rows."""
    return _read("msgpack", paths, options)


def _read(format: str, paths: Any, options: dict) -> ray.data.Dataset:
    ray_args = {k: options.pop(k) for k in ("override_num_blocks", "concurrency", "ray_remote_args") if k in options}
    return ray.data.read_datasource(ArrowsmithDatasource(format, paths, options), **ray_args)


class ArrowsmithDatasource(Datasource):
    """A :class:`Scan` as a Ray Data source: its tasks grouped into at most ``parallelism``
    read tasks, in file order."""

    def __init__(self, format: str, paths: Any, options: dict) -> None:
        self.scan = Scan.open(format, paths, options)
        self.scan.plan()

    def get_name(self) -> str:
        return f"Arrowsmith{self.scan.format.capitalize()}"

    def estimate_inmemory_data_size(self) -> int | None:
        return sum(os.path.getsize(p) for p in self.scan.paths)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None) -> list[ReadTask]:
        tasks = self.scan.tasks
        n = max(1, min(parallelism if parallelism > 0 else len(tasks), len(tasks)))
        groups = [tasks[i * len(tasks) // n : (i + 1) * len(tasks) // n] for i in range(n)]
        # Dictionaries decoded: Ray's sorts and group-bys do not take dictionary columns.
        scan = self.scan
        schema = pa.schema([f.with_type(plain_type(f.type)) for f in scan.schema])
        out = []
        for g in groups:
            if not g:
                continue
            meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=sorted({t.path for t in g}))
            out.append(ReadTask(_reader(scan, g, schema), meta, schema=schema, per_task_row_limit=per_task_row_limit))
        return out


def _reader(scan: Scan, group: list[Task], schema: pa.Schema):
    def read() -> Iterator[pa.Table]:
        for t in group:
            for b in scan.read(t, schema):
                yield pa.Table.from_batches([b])

    return read
