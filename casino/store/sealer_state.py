"""The sealer's own record of the last checkpoint it signed or accepted (``CASINO_SEALER_STATE``):
kept on the sealer's host, out of reach of whoever can only write to the database.

A JSON file, ``{"seq", "hash", "key_id", "recorded_at"}``. Written after the checkpoints are
committed (a crash in between leaves the record behind the ledger, which the next run
accepts once it has verified what follows; a record ahead of the ledger would be refused),
atomically: a temporary file in the same directory, flushed to disk, renamed over the old
one. Several sealers may share one file (on one host, or a shared directory that supports
``flock``): a sealer holds an exclusive lock on ``FILE.lock`` from reading the record to
writing it (``holding``), and writes only a record that goes forward, so the record never
moves back and no sealer reads it while another has signed and not recorded yet.

A file that exists but cannot be read as a record is an error, never "no record": a sealer
that took a damaged record for a first run would trust whatever the database holds.
Each operator's chain of checkpoints has its record (``for_operator``): the operator
``default``'s is the file named, another operator's sits beside it with the operator's id
before the suffix (``sealer-state.json`` -> ``sealer-state.acme.json``).
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from casino.ledger.accounts import DEFAULT_OPERATOR
from casino.ledger.checkpoints import CheckpointRef
from casino.store.types import utcnow


class SealerStateError(Exception):
    """The record exists but cannot be read or written."""


class SealerStateFile:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        # Threads of this process take turns here (re-entrant: ``save`` within ``holding``);
        # processes, on the lock file.
        self._threads = threading.RLock()
        self._depth = 0

    def for_operator(self, operator: str) -> SealerStateFile:
        """The record of ``operator``'s chain (this file for ``default``)."""
        if operator == DEFAULT_OPERATOR:
            return self
        return SealerStateFile(
            self.path.with_name(f"{self.path.stem}.{operator}{self.path.suffix}")
        )

    @contextmanager
    def holding(self) -> Iterator[None]:
        """The record to this sealer alone (sealers sharing the file wait), from reading it
        to writing it."""
        with self._threads:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = os.open(f"{self.path}.lock", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._depth = 1
                yield
            finally:
                self._depth = 0
                os.close(lock)  # closing releases the lock

    def load(self) -> CheckpointRef | None:
        """The record, or None when there is none yet (no file)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise SealerStateError(f"{self.path} cannot be read: {error}") from None
        try:
            document = json.loads(text)
            seq, digest = document["seq"], document["hash"]
        except (ValueError, TypeError, KeyError):
            raise SealerStateError(f"{self.path} is not a sealer record") from None
        if type(seq) is not int or seq < 1 or not isinstance(digest, str) or len(digest) != 64:
            raise SealerStateError(f"{self.path} is not a sealer record")
        return CheckpointRef(seq, digest)

    def save(self, record: CheckpointRef, key_id: str) -> None:
        """Record ``record`` unless the file already holds a later checkpoint."""
        with self.holding():
            current = self.load()
            if current is not None and current.seq >= record.seq:
                return
            document = {
                "seq": record.seq,
                "hash": record.hash,
                "key_id": key_id,
                "recorded_at": utcnow().isoformat(),
            }
            self._replace(json.dumps(document, sort_keys=True) + "\n")

    def _replace(self, text: str) -> None:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a crash
        finally:
            os.close(directory)
