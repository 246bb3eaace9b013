"""Spark (4.1 and later) Python data sources: ``tsfile``, ``hdf5`` and ``msgpack``.

    import arrowsmith.spark
    arrowsmith.spark.register(spark)
    df = spark.read.format("tsfile").load("exports/")          # a folder, a file or a glob
    df = spark.read.format("hdf5").option("dataset", "/entry/data").load("scans/*.h5")
    df = spark.read.format("msgpack").option("maps", "records").load("logs/")

Each file is one input partition or more: a TsFile (a group of its devices per
``splitBytes``, 64 MiB, of a larger file), a run of whole chunks of an HDF5 dataset
(``taskRows``, 1 Mi rows by default), a run of whole MessagePack rows for files over
``splitBytes``. The schema is the first file's; a file whose schema differs fails the
read with :class:`~arrowsmith._scan.SchemaMismatch` naming it. For TsFile, filters on ``time``
and on tag columns (``=``, ``IN``, ``IS [NOT] NULL``) are pushed into the read; Spark applies
the others. Spark's filter pushdown for Python sources is a setting of its own,
``spark.sql.python.filterPushdown.enabled``; without it the ``tsfile`` source reads every row
and Spark filters them.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from typing import Any, Iterable, Iterator, List

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
)
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ._scan import Scan, SchemaMismatch, Task

__all__ = ["register", "TsFileDataSource", "Hdf5DataSource", "MsgpackDataSource", "SchemaMismatch", "spark_type"]


def register(spark: Any) -> None:
    """Register the ``tsfile``, ``hdf5`` and ``msgpack`` formats with a SparkSession."""
    for cls in (TsFileDataSource, Hdf5DataSource, MsgpackDataSource):
        spark.dataSource.register(cls)


def spark_type(t: pa.DataType, name: str = "") -> DataType:
    """The Spark type that holds every value of an Arrow type exactly. Unsigned integers
    widen (``uint64`` to ``DECIMAL(20,0)``); timestamps become ``TIMESTAMP`` (microseconds:
    a finer value that does not fit fails the read); dictionaries their values."""
    p = pa.types
    if p.is_dictionary(t):
        return spark_type(t.value_type, name)
    simple = [
        (p.is_boolean, BooleanType), (p.is_int8, ByteType), (p.is_int16, ShortType),
        (p.is_int32, IntegerType), (p.is_int64, LongType), (p.is_uint8, ShortType),
        (p.is_uint16, IntegerType), (p.is_uint32, LongType), (p.is_float16, FloatType),
        (p.is_float32, FloatType), (p.is_float64, DoubleType), (p.is_string, StringType),
        (p.is_large_string, StringType), (p.is_binary, BinaryType), (p.is_large_binary, BinaryType),
        (p.is_fixed_size_binary, BinaryType), (p.is_date, DateType), (p.is_timestamp, TimestampType),
        (p.is_null, NullType),
    ]
    for test, cls in simple:
        if test(t):
            return cls()
    if p.is_uint64(t):
        return DecimalType(20, 0)
    if p.is_decimal(t) and t.precision <= 38:
        return DecimalType(t.precision, t.scale)
    if p.is_list(t) or p.is_large_list(t) or p.is_fixed_size_list(t):
        return ArrayType(spark_type(t.value_type, name), True)
    if p.is_struct(t):
        return StructType([StructField(f.name, spark_type(f.type, f"{name}.{f.name}"), True) for f in t])
    if p.is_map(t):
        return MapType(spark_type(t.key_type, name), spark_type(t.item_type, name), True)
    raise TypeError(f"column {name!r}: Arrow type {t} has no Spark type that holds it exactly")


def spark_schema(schema: pa.Schema) -> StructType:
    return StructType([StructField(f.name, spark_type(f.type, f.name), True) for f in schema])


class _Partition(InputPartition):
    def __init__(self, task: Task) -> None:
        self.task = task


class _Source(DataSource):
    format = ""

    def _scan(self) -> Scan:
        if "_planned" not in self.__dict__:
            path = self.options.get("path") or self.options.get("paths")
            if not path:
                raise ValueError(f'spark.read.format("{self.format}").load(path): a file, folder or glob')
            self.__dict__["_planned"] = Scan.open(self.format, path, dict(self.options))
        return self.__dict__["_planned"]

    def schema(self) -> StructType:
        return spark_schema(self._scan().schema)

    def reader(self, schema: StructType) -> DataSourceReader:
        return _Reader(self._scan(), schema)


class TsFileDataSource(_Source):
    """``spark.read.format("tsfile")``: options ``table``, ``columns``, ``tags`` (``k=v,…``),
    ``start``/``end`` (inclusive, in the file's unit), ``timeUnit`` (``ms``), ``splitBytes``."""

    format = "tsfile"

    @classmethod
    def name(cls) -> str:
        return "tsfile"

    def reader(self, schema: StructType) -> DataSourceReader:
        return _TsFileReader(self._scan(), schema)


class Hdf5DataSource(_Source):
    """``spark.read.format("hdf5")``: options ``dataset`` (required), ``taskRows``."""

    format = "hdf5"

    @classmethod
    def name(cls) -> str:
        return "hdf5"


class MsgpackDataSource(_Source):
    """``spark.read.format("msgpack")``: options ``layout``, ``maps``, ``tuples``,
    ``columns``, ``columnar``, ``extensions`` (``type=reading,…``, e.g. ``0=eventtime``),
    ``maxKeys``, ``manyKeys``, ``maxDepth``, ``splitBytes``."""

    format = "msgpack"

    @classmethod
    def name(cls) -> str:
        return "msgpack"


class _Reader(DataSourceReader):
    def __init__(self, scan: Scan, schema: StructType) -> None:
        self.scan = scan
        self.target = to_arrow_schema(schema)

    def partitions(self) -> List[InputPartition]:
        return [_Partition(t) for t in self.tasks()]

    def tasks(self) -> list[Task]:
        return self.scan.tasks or self.scan.plan()

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return self.scan.read(partition.task, self.target)  # type: ignore[attr-defined]


class _TsFileReader(_Reader):
    """Time filters narrow the read's inclusive range; tag filters drop devices."""

    def __init__(self, scan: Scan, schema: StructType) -> None:
        super().__init__(scan, schema)
        names = scan.schema.names
        tree = "device" in names
        # The tag columns, in the order a device lists its tag values.
        n = 1 if tree else _tag_count(scan)
        self.tag_columns = names[1 : 1 + n]
        self.keep: list[Any] = []  # predicates over a device's tag values

    def pushFilters(self, filters: List[Filter]) -> Iterable[Filter]:
        o = self.scan.options
        start, end = o.start, o.end
        for f in filters:
            col = f.attribute[0] if len(f.attribute) == 1 else None
            if col == "time":
                bounds = _time_bounds(f, o.time_unit)
                if bounds is None:
                    yield f
                    continue
                lo, hi = bounds
                start = lo if start is None or (lo is not None and lo > start) else start
                end = hi if end is None or (hi is not None and hi < end) else end
            elif col in self.tag_columns and isinstance(f, (EqualTo, In, IsNull, IsNotNull)):
                self.keep.append((self.tag_columns.index(col), f))
            else:
                yield f
        if start is not None and end is not None and start > end:
            start, end = 1, 0  # nothing matches; the decoder reads no pages
        self.scan = replace(self.scan, options=replace(o, start=start, end=end), tasks=[])

    def tasks(self) -> list[Task]:
        if not self.scan.tasks:
            self.scan.keep_devices(lambda tags: all(_tag_matches(tags, i, f) for i, f in self.keep))
        return self.scan.tasks


def _tag_count(scan: Scan) -> int:
    from . import tsfile_devices

    for p in scan.paths:
        d = tsfile_devices(p, scan.options.table)
        if d:
            return len(d[0]["tags"])
    return 0


def _tag_matches(tags: tuple | None, i: int, f: Filter) -> bool:
    v = tags[i] if tags is not None and i < len(tags) else None
    if isinstance(f, IsNull):
        return v is None
    if isinstance(f, IsNotNull):
        return v is not None
    if isinstance(f, EqualTo):
        return v is not None and v == f.value
    return v is not None and v in tuple(f.value)  # In


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
# A time unit as microseconds: value * num / den.
_SCALE = {"s": (1_000_000, 1), "ms": (1_000, 1), "us": (1, 1), "ns": (1, 1_000)}


def _micros(v: Any) -> int | None:
    if not isinstance(v, _dt.datetime):
        return None
    if v.tzinfo is None:
        v = v.replace(tzinfo=_dt.timezone.utc)
    d = v - _EPOCH
    return (d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds


def _time_bounds(f: Filter, unit: str) -> tuple[int | None, int | None] | None:
    """A filter on ``time`` as an inclusive range of raw times, exactly (integers only)."""
    if isinstance(f, IsNotNull):
        return (None, None)  # time is never null
    v = _micros(getattr(f, "value", None))
    if v is None:
        return None
    num, den = _SCALE[unit]
    q, r = divmod(v * den, num)  # v in raw units is q + r/num
    if isinstance(f, GreaterThan):
        return (q + 1, None)
    if isinstance(f, GreaterThanOrEqual):
        return (q + (r > 0), None)
    if isinstance(f, LessThan):
        return (None, q - (r == 0))
    if isinstance(f, LessThanOrEqual):
        return (None, q)
    if isinstance(f, EqualTo):
        return (q, q) if r == 0 else (1, 0)
    return None
