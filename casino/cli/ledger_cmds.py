"""The ledger's commands: ``casino seal`` (the sealer) and ``casino audit`` (docs/ledger.md,
docs/audit.md)."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from casino.cli.ops_cmds import _db_option, _unit_of_work, _url, parse_duration

log = logging.getLogger("casino.sealer")


@dataclass(frozen=True)
class SigningSettings:
    """The checkpoint keys as the app reads them: the private key (the sealer's only), its
    public key, and the earlier keys still trusted (``KEY`` or ``KEY@FIRST-LAST``)."""

    private: str | None
    public: str | None
    others: list[str]
    values: dict[str, Any]

    def trusted(self) -> list[Any]:
        from casino.service.sealing import trusted_keys

        return trusted_keys(self.public, self.others)


def signing_settings() -> SigningSettings:
    import config

    try:
        values = config.settings()
    except config.ConfigError as error:
        raise click.ClickException(str(error)) from None
    return SigningSettings(
        private=values.get("SIGNING_KEY"),
        public=values.get("SIGNING_PUBLIC_KEY"),
        others=list(values.get("TRUSTED_SIGNING_KEYS") or []),
        values=values,
    )


def _max_age(text: str | None, values: dict[str, Any]) -> timedelta:
    if text is None:
        return timedelta(seconds=float(values.get("UNSEALED_MAX_AGE_SECONDS") or 600))
    try:
        age = parse_duration(text)
    except click.BadParameter as error:
        raise click.BadParameter(error.message, param_hint="--unsealed-max-age") from None
    if age.total_seconds() <= 0:
        raise click.BadParameter("must be positive", param_hint="--unsealed-max-age")
    return age


@click.command("audit")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="The checks as one JSON document.")
@click.option(
    "--since",
    default=None,
    help="Replay only rounds started since: 2026-11-30, 2026-11-30T12:00Z or 24h (ago). "
    "The books are checked whole.",
)
@click.option(
    "--unsealed-max-age",
    "unsealed_max_age",
    default=None,
    help="Fail when a transaction is still unsealed this long after it was made, e.g. 10m, "
    "1h (default: CASINO_UNSEALED_MAX_AGE_SECONDS, else 10m).",
)
@click.option(
    "--operator",
    "operator",
    default=None,
    help="Audit this operator's books only (default: every operator's, each on its own).",
)
@click.option(
    "--state",
    "state_file",
    default=None,
    metavar="FILE",
    help="An incremental audit (one operator's: --operator, default 'default'): check only "
    "what followed the checkpoint the state in FILE was saved at (everything, when FILE does "
    "not exist yet), then save the state at the last checkpoint verified to FILE.",
)
@click.option(
    "--from-checkpoint",
    "from_checkpoint",
    type=click.IntRange(min=1),
    default=None,
    help="With --state: the checkpoint the state was saved at, said explicitly (refused when "
    "the state's is another).",
)
def audit(
    url: str | None,
    as_json: bool,
    since: str | None,
    unsealed_max_age: str | None,
    operator: str | None,
    state_file: str | None,
    from_checkpoint: int | None,
) -> None:
    """Check every invariant of the ledger (docs/ledger.md), its wallet chains and signed
    checkpoints, and replay every round; count the transactions not sealed yet. Exit 1 on any
    mismatch, or when one has been left unsealed too long (is the sealer running?). Each
    operator's books are checked on their own (docs/operators.md). With --state, only what
    followed the last audit's checkpoint is read (docs/audit.md, "Incremental audits")."""
    import json

    if state_file is not None or from_checkpoint is not None:
        _incremental_audit(url, as_json, operator or "default", state_file, from_checkpoint)
        return

    from casino.cli.report_cmds import parse_instant
    from casino.ledger.audit import format_report
    from casino.service.audit import run_audit

    signing = signing_settings()
    max_age = _max_age(unsealed_max_age, signing.values)
    rounds_since = None if since is None else parse_instant(since)
    with _unit_of_work(url, operator, every=operator is None) as uow:
        report = run_audit(
            uow, signing.trusted(), rounds_since=rounds_since, unsealed_max_age=max_age
        )
    if as_json:
        document = {
            "rounds_since": None if rounds_since is None else rounds_since.isoformat(),
            "unsealed_max_age_seconds": max_age.total_seconds(),
            **report.to_dict(),
        }
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo(format_report(report))
    if not report.ok:
        sys.exit(1)


def _incremental_audit(
    url: str | None,
    as_json: bool,
    operator: str,
    state_file: str | None,
    from_checkpoint: int | None,
) -> None:
    import json

    from casino.audit_export import casino_audit_export as verifier
    from casino.service.audit import run_incremental_audit
    from casino.store.export_plan import NoSuchCheckpoint

    if state_file is None:
        raise click.BadParameter("needs --state FILE (the state saved at that checkpoint)")
    state = None
    if os.path.exists(state_file):
        try:
            state = verifier.read_state(state_file)
        except (OSError, ValueError) as error:
            raise click.ClickException(f"bad --state: {error}") from None
    saved_at = None if state is None else state["checkpoint"]["seq"]
    if from_checkpoint is not None and from_checkpoint != saved_at:
        raise click.ClickException(
            f"refused: --from-checkpoint {from_checkpoint}, the state in {state_file} was "
            + ("never saved" if saved_at is None else f"saved at checkpoint {saved_at}")
        )
    signing = signing_settings()
    with _unit_of_work(url, operator) as uow:
        try:
            summary, saved = run_incremental_audit(uow, signing.trusted(), state)
        except (verifier.StateMismatch, NoSuchCheckpoint) as error:
            raise click.ClickException(f"refused: {error}") from None
    if saved is not None:
        verifier.write_state(state_file, saved)
        summary["state_saved"] = {"file": state_file, "checkpoint": saved["checkpoint"]["seq"]}
    click.echo(json.dumps(summary, indent=2) if as_json else verifier.format_summary(summary))
    if not summary["ok"]:
        sys.exit(1)


@click.command("seal")
@_db_option
@click.option(
    "--every",
    "every",
    default=None,
    type=float,
    help="Keep sealing, this many seconds apart (default: seal once and exit).",
)
@click.option(
    "--init",
    "first_use",
    is_flag=True,
    help="With no record yet in CASINO_SEALER_STATE, trust the ledger's checkpoints (after "
    "checking their chain and signatures) instead of refusing. Check them with casino audit "
    "first.",
)
@click.option("--while-parent", "parent", default=None, type=int, hidden=True)
def seal(url: str | None, every: float | None, first_use: bool, parent: int | None) -> None:
    """Seal every committed ledger transaction into signed checkpoints, one chain per
    operator. Idempotent; safe to run from several hosts at once. Needs the private key
    (CASINO_SIGNING_KEY) and, in production, CASINO_SEALER_STATE, the file where it records
    the last checkpoint it signed (for each operator: docs/operators.md). It refuses (exit 1,
    nothing signed) when the ledger does not continue that record, or a transaction does not
    continue its wallet's sealed chain (docs/audit.md)."""
    import time

    import config
    from casino.cli import sealer_metrics
    from casino.ledger.checkpoints import SigningKey
    from casino.service.operators import operator_ids
    from casino.service.sealing import Sealer, SealRefused
    from casino.store.database import Database
    from casino.store.errors import DBAPIError
    from casino.store.sealer_state import SealerStateError, SealerStateFile
    from casino.store.tenancy import DEFAULT_OPERATOR

    _log_to_stderr()
    signing = signing_settings()
    if not signing.private:
        raise click.ClickException(
            "no signing key: the sealer needs the private key (CASINO_SIGNING_KEY or "
            "CASINO_SIGNING_KEY_FILE)"
        )
    key = SigningKey.parse(signing.private)
    path = signing.values.get("SEALER_STATE")
    if not path and issubclass(config.resolve(None), config.ProductionConfig):
        raise click.ClickException(
            "CASINO_SEALER_STATE is required in production: the file where this sealer "
            "records the last checkpoint it signed (docs/audit.md)"
        )
    state = SealerStateFile(path) if path else None
    sealer = Sealer(key, signing.trusted())
    database = Database.open(_url(url))
    try:
        while True:
            try:
                made = []
                # Each operator's chain in turn (docs/operators.md), each with its record.
                with database.unit_of_work() as platform:
                    operators = operator_ids(platform)
                for operator in operators:
                    record = None if state is None else state.for_operator(operator)
                    with database.unit_of_work(operator) as uow:
                        run = sealer.seal(uow, record, first_use=first_use)
                    made += [(operator, checkpoint) for checkpoint in run.made]
                    if run.first_record and record is not None and run.record is not None:
                        (log.warning if first_use else log.info)(
                            "no sealer record in %s before: it now records checkpoint %s%s",
                            record.path,
                            run.record.seq,
                            " (the ledger's checkpoints before it trusted: --init)"
                            if first_use
                            else "",
                        )
            except SealRefused as refusal:
                log.error("sealer refused to sign (%s): %s", refusal.reason, refusal)
                sealer_metrics.refused(refusal.reason)
                raise click.ClickException(f"refused to sign: {refusal}") from None
            except SealerStateError as error:
                log.error("sealer refused to sign (record): %s", error)
                sealer_metrics.refused("record")
                raise click.ClickException(str(error)) from None
            except DBAPIError as error:
                if every is None:
                    raise click.ClickException(f"the database failed: {error.orig}") from None
                # A scheduled sealer outlives database restarts: the next run seals it all.
                click.echo(f"seal failed, retrying in {every:g}s: {error.orig}", err=True)
                made = []
            sealer_metrics.signed(len(made))
            for operator, checkpoint in made:
                whose = "" if operator == DEFAULT_OPERATOR else f"{operator}: "
                click.echo(
                    f"{whose}checkpoint {checkpoint.seq}: {checkpoint.tx_count} transaction(s), "
                    f"{checkpoint.total_count} in all, root {checkpoint.root[:16]}",
                )
            if every is None:
                if not made:
                    click.echo("nothing new to seal")
                return
            if parent is not None and os.getppid() != parent:
                return  # the server that started this sealer is gone
            time.sleep(max(every, 0.1))
    finally:
        database.dispose()


def _log_to_stderr() -> None:
    """The sealer's log lines (refusals, a first record) on stderr, where its supervisor
    collects them."""
    if not log.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


@click.command("new-signing-key")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def new_signing_key(path: Path) -> None:
    """Make a new checkpoint signing key in PATH (readable by its owner only; an existing
    file is never overwritten) and print its public key: for the sealer's host, and for a
    rotation (docs/audit.md, "Keys and their rotation")."""
    from casino.ledger.checkpoints import SigningKey

    key = SigningKey.generate()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        raise click.ClickException(f"{path}: {error.strerror}") from None
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key.private_hex() + "\n")
    click.echo(f"private key written to {path} (CASINO_SIGNING_KEY_FILE, the sealer's only)")
    _print_public(key.verifying)


@click.command("public-key")
def public_key() -> None:
    """Print the checkpoints' public key as configured (CASINO_SIGNING_PUBLIC_KEY, or the
    public half of CASINO_SIGNING_KEY) and the earlier keys still trusted."""
    from casino.ledger.checkpoints import VerifyingKey

    signing = signing_settings()
    if not signing.public:
        raise click.ClickException("no checkpoint key is configured")
    _print_public(VerifyingKey.parse(signing.public))
    for entry in signing.trusted()[1:]:
        click.echo(f"also trusted: {entry.text()} ({entry.span()})")


def _print_public(key: Any) -> None:
    click.echo(f"public key (CASINO_SIGNING_PUBLIC_KEY): {key.hex}")
    click.echo(f"key id: {key.key_id}")
    click.echo(key.pem().rstrip())


class _Stderr(logging.StreamHandler):
    """Whatever ``sys.stderr`` is when a line is written (tests swap it per command)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def register(group: click.Group) -> None:
    for command in (audit, seal, new_signing_key, public_key):
        group.add_command(command)
