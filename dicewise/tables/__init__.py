"""Table files: the versioned, checksummed msgpack format and the on-disk cache."""

from .format import Table, TableError, read_header, read_table, write_table

__all__ = ["Table", "TableError", "read_header", "read_table", "write_table"]
