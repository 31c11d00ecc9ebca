"""Which operator's rows a unit of work may read and write (docs/operators.md).

Every tenant-owned row (players, tables, rounds, accounts, ledger transactions, game
sessions, operator tokens, checkpoints, and what hangs off a player) belongs to one
operator. Authentication decides the operator once per request and sets it on the unit of
work (``UnitOfWork.act_for``); every repository method that touches tenant-owned rows asks
this object for it and filters by it, so nothing above the store names the operator again.

Asking without an operator set raises ``TenantRequired``: a code path that forgot to
authenticate, or a command that forgot to say which operator it serves, is a programming
error, never a read of every operator's rows. Platform-level commands (the audit, the
sealer, resolving stale rounds, the export of everything) read across operators through an
explicit all-operators mode (``UnitOfWork.all_operators``); writing tenant-owned rows always
needs one operator.
"""

from __future__ import annotations

from casino.ledger.accounts import DEFAULT_OPERATOR

__all__ = ["DEFAULT_OPERATOR", "Tenancy", "TenantRequired"]


class TenantRequired(RuntimeError):
    """A repository method touched tenant-owned rows with no operator set."""


class Tenancy:
    """The operator of a unit of work: none yet, one, or (commands only) all of them."""

    __slots__ = ("_every", "_operator")

    def __init__(self, operator_id: str | None = None) -> None:
        self._operator = operator_id
        self._every = False

    def set(self, operator_id: str) -> None:
        """Act for ``operator_id`` from now on; set once (again with the same id is a no-op)."""
        if not isinstance(operator_id, str) or not operator_id:
            raise ValueError("an operator id is required")
        if self._every or (self._operator is not None and self._operator != operator_id):
            raise RuntimeError("this unit of work already acts for another operator")
        self._operator = operator_id

    def every(self) -> None:
        """Read across every operator (platform-level commands)."""
        if self._operator is not None:
            raise RuntimeError("this unit of work already acts for one operator")
        self._every = True

    @property
    def operator_id(self) -> str | None:
        """The operator set, if any (None also in all-operators mode)."""
        return self._operator

    @property
    def all_operators(self) -> bool:
        return self._every

    def require(self) -> str:
        """The one operator rows are written for (and read by id); raises without one."""
        if self._operator is None:
            raise TenantRequired(
                "tenant-owned rows need the operator: authenticate the request, or open the "
                "unit of work for an operator"
                + (" (all-operators mode only reads)" if self._every else "")
            )
        return self._operator

    def scope(self) -> str | None:
        """What reads filter by: the operator, or None in all-operators mode (no filter);
        raises when neither was chosen."""
        if self._every:
            return None
        return self.require()
