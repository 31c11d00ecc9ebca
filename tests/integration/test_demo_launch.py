"""`casino seed-demo` (and so `make run`) prints a launch URL for the demo player, and
`casino launch` a fresh one: a one-time code, never a token, in the fragment."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from casino.cli import main as cli
from casino.service.auth import authenticate
from casino.service.errors import Unauthenticated
from casino.service.game_sessions import exchange
from casino.store.types import utcnow

from .conftest import Svc

_URL = r"^  http://127\.0\.0\.1:8000/play/\?table=classic#code=(lc_\S+)$"


def test_seed_demo_prints_a_launch_url_for_the_demo_player(svc: Svc, db_url: str) -> None:
    result = CliRunner().invoke(cli, ["seed-demo", "--database-url", db_url])
    assert result.exit_code == 0, result.output
    launch = re.search(_URL, result.output, re.M)
    assert launch, result.output
    assert "#token=" not in result.output and "gs_" not in result.output
    assert "within 2 minutes" in result.output and "casino launch" in result.output
    player = re.search(r"demo player:\s+(\S+)", result.output)
    assert player
    code = launch.group(1)
    with svc.uow() as uow:
        session, token = exchange(uow, code, utcnow())
        uow.commit()
    with svc.uow() as uow:
        principal = authenticate(uow, token, [])
        # The code opened the table once.
        with pytest.raises(Unauthenticated):
            exchange(uow, code, utcnow())
    assert principal.role == "player" and principal.player_id == player.group(1)
    assert principal.session_id == session.id and principal.session_table_id == "classic"
    assert "http://127.0.0.1:8000/play/free/" in result.output


def test_casino_launch_prints_a_fresh_launch_url(svc: Svc, db_url: str) -> None:
    assert CliRunner().invoke(cli, ["seed-demo", "--database-url", db_url]).exit_code == 0
    result = CliRunner().invoke(
        cli,
        [
            "launch",
            "--database-url",
            db_url,
            "--language",
            "nl",
            "--base-url",
            "https://c.example/",
        ],
    )
    assert result.exit_code == 0, result.output
    found = re.fullmatch(
        r"https://c\.example/play/\?table=classic&lang=nl#code=(lc_\S+)\n", result.output
    )
    assert found, result.output
    with svc.uow() as uow:
        session, _ = exchange(uow, found.group(1), utcnow())
    assert session.language == "nl"
    unknown = CliRunner().invoke(
        cli, ["launch", "--database-url", db_url, "--external-ref", "nobody"]
    )
    assert unknown.exit_code == 1 and "no player" in unknown.output
    bad = CliRunner().invoke(cli, ["launch", "--database-url", db_url, "--language", "fr"])
    assert bad.exit_code == 1 and "language" in bad.output
