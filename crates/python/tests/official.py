"""The official TsFile reader (PyPI tsfile, its C++ core) drained into one pyarrow Table: the
reference the tests compare with and the peer the benchmark times."""

import pyarrow as pa


def query_table(path, table, columns, **query):
    """``query_table(table, columns, **query)`` with every ``read_arrow_batch`` concatenated
    (``None`` when the query has no rows)."""
    import tsfile

    r = tsfile.TsFileReader(path)
    rs = r.query_table(table, columns, batch_size=65536, **query)
    batches = []
    while True:
        b = rs.read_arrow_batch()
        if b is None or b.num_rows == 0:
            break
        batches.append(b)
    rs.close()
    r.close()
    return pa.concat_tables(batches) if batches else None
