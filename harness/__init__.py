"""Shared machinery of the load, fault and benchmark runs (bench/ and tests/system/).

* ``pg``: scratch PostgreSQL databases, migrations, the one-time server restart, pgbench.
* ``server``: gunicorn instances on loopback ports, their workers, killing one.
* ``http``: a small HTTP/JSON client that classifies every failure: a connection per
  request, or one kept per thread and server (``keep_alive=True``).
* ``api``: the issue-3 REST contract as Python calls (players, deposits, rounds, ...).
* ``load``: bounded client threads playing Casino War, with retries and a ledger of what the
  API said, and the fault schedule.
* ``invariants``: the checks after a run (audit, balances from the API and from the database,
  no double charge, no half-settled round, no stake without its round).

Every loop here is bounded in time and count and only talks to 127.0.0.1.
"""
