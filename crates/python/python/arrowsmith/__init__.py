"""Arrowsmith: TsFile, HDF5 and MessagePack straight into Apache Arrow.

The ``read_*`` functions return a ``pyarrow.Table``; the ``iter_*`` functions a
``pyarrow.RecordBatchReader`` whose batches are read as they are asked for (one per TsFile
device, whole chunks of an HDF5 dataset, bounded runs of MessagePack values). Both export the
Arrow PyCapsule interface (``__arrow_c_stream__``), so Polars, DuckDB and DataFusion take
them without copies. A file that cannot be decoded raises :class:`DecodeError` with its
``format``, ``code`` and byte ``offset``.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence, Union

import pyarrow as pa

from . import _arrowsmith as _native
from ._arrowsmith import DecodeError

__all__ = [
    "DecodeError",
    "read_tsfile",
    "iter_tsfile",
    "tsfile_devices",
    "tsfile_tables",
    "read_hdf5",
    "iter_hdf5",
    "list_hdf5",
    "describe_hdf5",
    "read_msgpack",
    "iter_msgpack",
]

Path = Union[str, "os.PathLike[str]"]
Selection = Union[int, tuple[int, int, int]]


def _reader(stream: Any) -> pa.RecordBatchReader:
    return pa.RecordBatchReader.from_stream(stream)


def _batches(stream: Any) -> pa.RecordBatchReader:
    """A stream read as the consumer asks, whose decode error is raised as :class:`DecodeError`
    (through the C stream alone it would reach Python as pyarrow's own exception)."""
    r = pa.RecordBatchReader.from_stream(stream)

    def batches():
        try:
            yield from r
        except pa.ArrowException as e:
            err = stream.decode_error()
            if err is None:
                raise
            raise err from e

    return pa.RecordBatchReader.from_batches(r.schema, batches())


def read_tsfile(
    path: Path,
    table: str | None = None,
    columns: Sequence[str] | None = None,
    tags: Mapping[str, str] | None = None,
    start: int | None = None,
    end: int | None = None,
    *,
    devices: Sequence[str] | None = None,
    limit: int | None = None,
    time_unit: str = "ms",
) -> pa.Table:
    """The rows of a TsFile query: ``time``, then tag and field columns.

    ``table`` defaults to the file's first table (or its tree-model devices); ``tags`` are
    equality filters; ``start``/``end`` an inclusive time range in the file's unit.
    """
    s = _native.read_tsfile(os.fspath(path), table, _list(columns), _list(devices), _dict(tags), start, end, limit, time_unit)
    return _reader(s).read_all()


def iter_tsfile(
    path: Path,
    table: str | None = None,
    columns: Sequence[str] | None = None,
    tags: Mapping[str, str] | None = None,
    start: int | None = None,
    end: int | None = None,
    *,
    devices: Sequence[str] | None = None,
    limit: int | None = None,
    time_unit: str = "ms",
) -> pa.RecordBatchReader:
    """:func:`read_tsfile` as a stream of batches, one per device."""
    s = _native.read_tsfile(os.fspath(path), table, _list(columns), _list(devices), _dict(tags), start, end, limit, time_unit, True)
    return _batches(s)


def tsfile_devices(path: Path, table: str | None = None) -> list[dict[str, Any]]:
    """The devices of a TsFile (of ``table``, or all), as dicts of table, path and tags."""
    return _native.tsfile_devices(os.fspath(path), table)


def tsfile_tables(path: Path) -> list[str]:
    """A TsFile's table names (table model; empty for tree-model files), the default first."""
    return _native.tsfile_tables(os.fspath(path))


def read_hdf5(
    path: Path,
    dataset: str,
    start: int = 0,
    count: int | None = None,
    *,
    select: Sequence[Selection] | None = None,
) -> pa.Table:
    """Rows ``start .. start+count`` of an HDF5 dataset (the first dimension), or an N-D
    ``select``: one entry per dimension, an index or ``(start, count, step)`` (h5py's
    ``ds[10:20:2, 3]`` is ``[(10, 5, 2), 3]``). Compound datasets give one column per member;
    trailing dimensions give fixed-size lists.
    """
    s = _native.read_hdf5(os.fspath(path), dataset, start, count, None if select is None else list(select))
    return _reader(s).read_all()


def iter_hdf5(path: Path, dataset: str, rows: int | None = None) -> pa.RecordBatchReader:
    """An HDF5 dataset in batches of about ``rows`` rows (rounded up to whole chunks)."""
    return _batches(_native.iter_hdf5(os.fspath(path), dataset, rows))


def list_hdf5(path: Path, group: str = "/", *, recursive: bool = True) -> list[dict[str, Any]]:
    """The objects below an HDF5 group (every level unless ``recursive=False``; an object
    linked twice is listed twice but walked once), as dicts of ``path``, ``name``, ``kind``,
    ``shape``, ``dtype``, ``unsupported`` (what this reader cannot decode in it, in words)
    and ``target`` (where an unresolved link points).
    """
    return _native.list_hdf5(os.fspath(path), group, recursive)


def describe_hdf5(path: Path, dataset: str) -> dict[str, Any]:
    """A dataset's ``shape``, ``chunks`` (``None`` unless chunked) and ``filters``."""
    return _native.describe_hdf5(os.fspath(path), dataset)


def read_msgpack(data: Union[bytes, bytearray, memoryview, Path], **options: Any) -> pa.Table:
    """MessagePack bytes (or a file's) as a table. The options are the JS API's
    (docs/msgpack.md), in snake case: ``layout`` ("auto": one top-level array's elements, or
    each top-level value, are the rows; "array"; "stream"), ``maps`` ("records": one column
    per key; "map": Arrow maps), ``tuples`` ("auto", "columns", "list"), ``columns`` (names
    of positional columns), ``columnar`` (a map of equal-length arrays is a table; default
    on), ``extensions`` (readings of ext types, e.g. ``{0: "eventtime"}``; "struct",
    "binary", "timestamp-ms", "timestamp-ns", "undefined", "eventtime"), ``max_keys``,
    ``many_keys`` ("map" or "error") and ``max_depth``. An unknown option is a ValueError.
    """
    if isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            data = f.read()
    s = _native.read_msgpack(bytes(data), _msgpack_options(options))
    return _reader(s).read_all()


def iter_msgpack(path: Path, rows: int = 65536, **options: Any) -> pa.RecordBatchReader:
    """A file of concatenated MessagePack values in batches of at most ``rows`` rows (the
    options of :func:`read_msgpack` but ``layout``, which is "stream")."""
    return _batches(_native.iter_msgpack(os.fspath(path), rows, _msgpack_options(options)))


def _msgpack_options(options: Mapping[str, Any]) -> dict[str, Any]:
    o = dict(options)
    if o.get("columns") is not None:
        o["columns"] = list(o["columns"])
    return o


def _list(v: Sequence[str] | None) -> list[str] | None:
    return None if v is None else list(v)


def _dict(v: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if v is None else dict(v)
