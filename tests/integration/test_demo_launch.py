"""`casino seed-demo` (and so `make run`) prints a launch URL for the demo player."""

from __future__ import annotations

import re

from click.testing import CliRunner

from casino.cli import main as cli
from casino.service.auth import authenticate

from .conftest import Svc


def test_seed_demo_prints_a_launch_url_for_the_demo_player(svc: Svc, db_url: str) -> None:
    result = CliRunner().invoke(cli, ["seed-demo", "--database-url", db_url])
    assert result.exit_code == 0, result.output
    launch = re.search(
        r"^  http://127\.0\.0\.1:8000/play/\?table=classic#token=(gs_\S+)$", result.output, re.M
    )
    assert launch, result.output
    player = re.search(r"demo player:\s+(\S+)", result.output)
    assert player
    with svc.uow() as uow:
        principal = authenticate(uow, launch.group(1), [])
    assert principal.role == "player" and principal.player_id == player.group(1)
    assert principal.session_id is not None
    assert "http://127.0.0.1:8000/play/free/" in result.output
