"""The database failures the layers above the store may meet, named by the store.

They are SQLAlchemy's own classes: the store raises them as they come (with bound values
hidden); this module is where the API's error mapper, the idempotency replay and the CLI
take them from, so nothing above the seam imports SQLAlchemy itself.
"""

from __future__ import annotations

from sqlalchemy.exc import (
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

__all__ = [
    "DBAPIError",
    "DisconnectionError",
    "IntegrityError",
    "OperationalError",
    "PoolTimeout",
    "SQLAlchemyError",
]
