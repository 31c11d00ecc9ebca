"""Recognising a database server that refuses writes: a hot standby, or one set read-only.

During a failover the app can meet a server that is no longer, or not yet, the primary (the
multi-host URL's ``target_session_attrs=read-write`` keeps new connections off standbys, but
an operator may freeze writes with ``default_transaction_read_only``, or a URL may lack it).
Such a refusal is a passing unavailability, not a bug: the API answers it like a lost
connection (503 with Retry-After), and nothing was written.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

#: SQLSTATE read_only_sql_transaction ("cannot execute UPDATE in a read-only transaction").
READ_ONLY_SQL_TRANSACTION = "25006"


def refused_as_read_only(error: DBAPIError) -> bool:
    return getattr(error.orig, "sqlstate", None) == READ_ONLY_SQL_TRANSACTION
