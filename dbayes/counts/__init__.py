"""Count tables and the kernels that fill them."""

from dbayes.counts.kernels import HAVE_NUMBA, count_block, count_tables, kernel_name
from dbayes.counts.tables import CountTables, TableLayout

__all__ = ["CountTables", "TableLayout", "count_block", "count_tables", "HAVE_NUMBA", "kernel_name"]
