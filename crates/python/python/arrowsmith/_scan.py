"""Folders of files as tasks: what Spark and Ray read in parallel.

A scan is a format, the files a path names, the options, the schema of the first file and a
list of :class:`Task`, each a picklable unit one worker reads: a TsFile, or a group of its
devices when the file is large; a run of whole chunks of an HDF5 dataset; a run of whole
MessagePack rows. Tasks are large on purpose: a Python task costs Spark about 0.2 s however
little it reads (measured on this 2-core VM with a source that yields one row). The engines' adapters
(``arrowsmith.spark``, ``arrowsmith.ray``) only translate; the reading lives here.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

import pyarrow as pa

from . import _arrowsmith as _native
from . import read_hdf5, read_tsfile, describe_hdf5, tsfile_devices, tsfile_tables

FORMATS = ("tsfile", "hdf5", "msgpack")
# Rows per batch a task yields, and an HDF5 task's rows (rounded up to whole chunks).
BATCH_ROWS = 65_536
TASK_ROWS = 1 << 20
# A MessagePack file larger than this is cut into runs of about this many bytes, and a
# TsFile into groups of devices of about this many bytes (by the file's size per device).
SPLIT_BYTES = 64 << 20


class SchemaMismatch(ValueError):
    """A file of a scan whose schema differs from the first file's: ``path`` names it."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: its schema differs from the first file's: {detail}")
        self.path = path


def files(path: str | os.PathLike[str] | list) -> list[str]:
    """The files a path names: a file, a folder (its files, recursively, without hidden
    ``.``/``_`` names, as Spark's file sources skip them), a glob, or a list of those."""
    if isinstance(path, (list, tuple)):
        return [f for p in path for f in files(p)]
    path = os.fspath(path)
    if os.path.isdir(path):
        out = []
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
            out += [os.path.join(root, n) for n in sorted(names) if not n.startswith((".", "_"))]
        found = out
    elif os.path.isfile(path):
        found = [path]
    else:
        found = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
    if not found:
        raise FileNotFoundError(f"no files at {path}")
    return found


@dataclass(frozen=True)
class Options:
    """A scan's options, parsed once from an engine's strings or keyword arguments."""

    # TsFile
    table: str | None = None
    columns: tuple[str, ...] | None = None
    tags: tuple[tuple[str, str], ...] = ()
    start: int | None = None
    end: int | None = None
    time_unit: str = "ms"
    # HDF5
    dataset: str | None = None
    task_rows: int = TASK_ROWS
    # MessagePack
    layout: str = "auto"
    maps: str = "records"
    tuples: str = "auto"
    columnar: bool | None = None
    extensions: tuple[tuple[int, str], ...] = ()
    max_keys: int | None = None
    many_keys: str | None = None
    max_depth: int | None = None
    split_bytes: int = SPLIT_BYTES
    batch_rows: int = BATCH_ROWS

    @staticmethod
    def parse(opts: Mapping[str, Any]) -> "Options":
        o = {k.lower(): v for k, v in opts.items() if v is not None and k.lower() not in ("path", "paths")}
        known = {f.lower(): f for f in Options.__dataclass_fields__}
        known |= {
            "taskrows": "task_rows", "splitbytes": "split_bytes", "batchrows": "batch_rows", "timeunit": "time_unit",
            "maxkeys": "max_keys", "manykeys": "many_keys", "maxdepth": "max_depth",
        }
        kw: dict[str, Any] = {}
        for k, v in o.items():
            if k not in known:
                raise ValueError(f"unknown option {k!r} (known: {', '.join(sorted(Options.__dataclass_fields__))})")
            name = known[k]
            if name == "columns":
                v = tuple(v.split(",")) if isinstance(v, str) else tuple(v)
            elif name == "tags":
                v = _tags(v)
            elif name == "extensions":
                v = _extensions(v)
            elif name == "columnar":
                v = v if isinstance(v, bool) else str(v).lower() == "true"
            elif name in ("start", "end", "task_rows", "split_bytes", "batch_rows", "max_keys", "max_depth"):
                v = int(v)
            kw[name] = v
        return Options(**kw)


def _extensions(v: Any) -> tuple[tuple[int, str], ...]:
    """Ext readings from a dict or from ``"0=eventtime,13=timestamp-ms"``."""
    if isinstance(v, str):
        pairs = [p.split("=", 1) for p in v.split(",") if p]
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"extensions must be type=reading pairs separated by commas, not {v!r}")
        v = dict(pairs)
    return tuple(sorted((int(k), str(r)) for k, r in dict(v).items()))


def _tags(v: Any) -> tuple[tuple[str, str], ...]:
    """Tag filters from a dict or from ``"k1=v1,k2=v2"``."""
    if isinstance(v, str):
        pairs = [p.split("=", 1) for p in v.split(",") if p]
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"tags must be k=v pairs separated by commas, not {v!r}")
        return tuple(sorted((k, val) for k, val in pairs))
    return tuple(sorted(dict(v).items()))


@dataclass(frozen=True)
class Task:
    """One unit of a scan a worker reads: a file and the part of it."""

    format: str
    path: str
    options: Options
    # TsFile: the devices' paths, and each one's tag values (as its tag columns give them).
    devices: tuple[str, ...] = ()
    device_tags: tuple[tuple, ...] = ()
    # HDF5: rows start .. start + count. MessagePack: bytes start .. end (None: the file).
    start: int = 0
    count: int | None = None
    end: int | None = None
    in_array: bool = False

    def read(self) -> Iterator[pa.RecordBatch]:
        o = self.options
        if self.format == "tsfile":
            t = read_tsfile(
                self.path, o.table, o.columns, dict(o.tags) or None, o.start, o.end,
                devices=list(self.devices), time_unit=o.time_unit,
            )
        elif self.format == "hdf5":
            t = read_hdf5(self.path, o.dataset, self.start, self.count)
        elif self.end is None:
            with open(self.path, "rb") as f:
                t = _read_msgpack(f.read(), o)
        else:
            s = _native.read_msgpack_piece(self.path, self.start, self.end, self.in_array, _msgpack(o))
            t = pa.RecordBatchReader.from_stream(s).read_all()
        yield from t.to_batches(max_chunksize=o.batch_rows)


def _msgpack(o: Options) -> dict[str, Any]:
    """The native MessagePack options of a scan's."""
    return {
        "layout": o.layout, "maps": o.maps, "tuples": o.tuples,
        "columns": None if o.columns is None else list(o.columns),
        "columnar": o.columnar, "extensions": dict(o.extensions), "max_keys": o.max_keys,
        "many_keys": o.many_keys, "max_depth": o.max_depth,
    }


def _read_msgpack(data: bytes, o: Options) -> pa.Table:
    s = _native.read_msgpack(data, _msgpack(o))
    return pa.RecordBatchReader.from_stream(s).read_all()


@dataclass
class Scan:
    """A planned read of many files: the schema (the first file's) and the tasks."""

    format: str
    paths: list[str]
    options: Options
    schema: pa.Schema
    tasks: list[Task] = field(default_factory=list)

    @staticmethod
    def open(format: str, path: Any, options: Mapping[str, Any] | Options) -> "Scan":
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        o = options if isinstance(options, Options) else Options.parse(options)
        if format == "hdf5" and not o.dataset:
            raise ValueError('an HDF5 scan needs the dataset to read: option("dataset", "/path/in/file")')
        paths = files(path)
        if format == "tsfile" and o.table is None:
            tables = tsfile_tables(paths[0])
            if tables:
                o = replace(o, table=tables[0])
        return Scan(format, paths, o, file_schema(format, paths[0], o))

    def plan(self) -> list[Task]:
        """One task or more per file; every file's schema checked against the first's
        (MessagePack files as they are read)."""
        tasks: list[Task] = []
        for p in self.paths:
            if self.format != "msgpack":
                check(p, file_schema(self.format, p, self.options), self.schema)
            tasks += getattr(self, "_plan_" + self.format)(p)
        self.tasks = tasks
        return tasks

    def _plan_tsfile(self, p: str) -> list[Task]:
        devices = tsfile_devices(p, self.options.table)
        tree = "device" in self.schema.names
        parts = max(1, min(len(devices), -(-os.path.getsize(p) // max(self.options.split_bytes, 1))))
        tasks = []
        for k in range(parts):
            group = devices[k * len(devices) // parts : (k + 1) * len(devices) // parts]
            tags = tuple((d["path"],) if tree else tuple(d["tags"]) for d in group)
            tasks.append(Task("tsfile", p, self.options, devices=tuple(d["path"] for d in group), device_tags=tags))
        return [t for t in tasks if t.devices]

    def keep_devices(self, keep) -> None:
        """Drop the devices whose tag values ``keep`` refuses (and tasks left with none)."""
        out = []
        for t in self.tasks or self.plan():
            kept = [(d, g) for d, g in zip(t.devices, t.device_tags) if keep(g)]
            if kept:
                out.append(replace(t, devices=tuple(d for d, _ in kept), device_tags=tuple(g for _, g in kept)))
        self.tasks = out

    def _plan_hdf5(self, p: str) -> list[Task]:
        d = describe_hdf5(p, self.options.dataset)
        shape = d["shape"] or []
        if not shape:
            return [Task("hdf5", p, self.options, start=0, count=None)]
        chunk = (d["chunks"] or [1])[0] or 1
        step = -(-max(self.options.task_rows, 1) // chunk) * chunk
        rows = shape[0]
        return [Task("hdf5", p, self.options, start=s, count=min(step, rows - s)) for s in range(0, max(rows, 1), step)]

    def _plan_msgpack(self, p: str) -> list[Task]:
        size = os.path.getsize(p)
        if size <= self.options.split_bytes:
            return [Task("msgpack", p, self.options)]
        o = self.options
        in_array, pieces = _native.msgpack_split(p, -(-size // o.split_bytes), _msgpack(o))
        return [Task("msgpack", p, o, start=s, end=e, in_array=in_array) for s, e, _ in pieces]

    def read(self, task: Task, target: pa.Schema | None = None) -> Iterator[pa.RecordBatch]:
        """A task's batches conformed to ``target`` (the scan's schema by default)."""
        target = target or self.schema
        for b in task.read():
            yield conform(b, target, task.path, missing_ok=task.format == "msgpack")


def file_schema(format: str, path: str, o: Options) -> pa.Schema:
    """What a file's rows look like, from its metadata (MessagePack: from its first run)."""
    if format == "tsfile":
        return read_tsfile(path, o.table, o.columns, time_unit=o.time_unit, limit=0).schema
    if format == "hdf5":
        return read_hdf5(path, o.dataset, 0, 0).schema
    size = os.path.getsize(path)
    if size <= o.split_bytes:
        with open(path, "rb") as f:
            return _read_msgpack(f.read(), o).schema
    in_array, pieces = _native.msgpack_split(path, -(-size // o.split_bytes), _msgpack(o))
    s, e, _ = pieces[0]
    stream = _native.read_msgpack_piece(path, s, e, in_array, _msgpack(o))
    return pa.RecordBatchReader.from_stream(stream).schema


def plain_type(t: pa.DataType) -> pa.DataType:
    """A type with dictionaries replaced by their values, at any depth: two files agree when
    their plain types do (each TsFile batch has dictionaries of its own)."""
    if pa.types.is_dictionary(t):
        return plain_type(t.value_type)
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(plain_type(f.type)) for f in t])
    if pa.types.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(plain_type(t.value_type)), t.list_size)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(t.value_field.with_type(plain_type(t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(plain_type(t.key_type), t.item_field.with_type(plain_type(t.item_type)))
    return t


def check(path: str, got: pa.Schema, want: pa.Schema) -> None:
    """Raise :class:`SchemaMismatch` naming ``path`` when its columns differ from ``want``'s."""
    if got.names != want.names:
        raise SchemaMismatch(path, f"columns {got.names}, the first file has {want.names}")
    for g, w in zip(got, want):
        if plain_type(g.type) != plain_type(w.type):
            raise SchemaMismatch(path, f"column {g.name!r} is {g.type}, the first file's is {w.type}")


def conform(b: pa.RecordBatch, target: pa.Schema, path: str, missing_ok: bool = False) -> pa.RecordBatch:
    """A batch with ``target``'s columns and types: casts are safe (a value that does not fit
    is an error, never a rounding); a column the batch lacks is null where ``missing_ok``
    (MessagePack rows without a key), else a :class:`SchemaMismatch`."""
    if b.schema.equals(target):
        return b
    extra = [n for n in b.schema.names if target.get_field_index(n) < 0]
    if extra:
        raise SchemaMismatch(path, f"columns {extra} are not in the first file's schema {target.names}")
    cols = []
    for f in target:
        i = b.schema.get_field_index(f.name)
        if i < 0:
            if not missing_ok:
                raise SchemaMismatch(path, f"it has no column {f.name!r}")
            cols.append(pa.nulls(b.num_rows, f.type))
            continue
        c = b.column(i)
        if c.type != f.type:
            try:
                c = c.cast(f.type, safe=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise SchemaMismatch(path, f"column {f.name!r} of type {c.type} does not convert to {f.type}: {e}") from None
        cols.append(c)
    return pa.RecordBatch.from_arrays(cols, schema=target)
