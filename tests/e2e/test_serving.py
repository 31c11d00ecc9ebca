"""The real servers: ``casino.api.serve.serve`` and the Procfile's gunicorn command."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from casino.ledger.checkpoints import SigningKey
from casino.store.migrate import upgrade
from config.token_policy import random_token

REPO = Path(__file__).resolve().parents[2]
# Production refuses guessable operator tokens (issue 10).
OPERATOR_TOKEN = random_token("op_")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stdout.read() if process.stdout else b""
        try:
            if _get(url)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not come up")


@pytest.fixture
def server_env(tmp_path: Path) -> dict[str, str]:
    url = f"sqlite:///{tmp_path / 'served.db'}"
    upgrade(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASINO_")}
    env.update(
        CASINO_ENV="production",
        DATABASE_URL=url,
        CASINO_OPERATOR_TOKENS=OPERATOR_TOKEN,
        # The web tier's key: the public one only (the private key is the sealer's).
        CASINO_SIGNING_PUBLIC_KEY=SigningKey.parse("44" * 32).verifying.hex,
        WEB_CONCURRENCY="1",
        # One worker: per-process counters are the whole count (production asks to be told).
        RATELIMIT_STORAGE_URI="memory://",
    )
    return env


def _commands(port: int) -> dict[str, list[str]]:
    procfile = dict(
        line.split(":", 1) for line in (REPO / "Procfile").read_text().strip().splitlines()
    )
    return {
        "serve": [
            sys.executable,
            "-c",
            f"from casino.api.serve import serve; serve('127.0.0.1', {port})",
        ],
        # PORT comes from the environment, as on a platform that reads Procfiles.
        "procfile-web": ["bash", "-c", f"exec {procfile['web'].strip()}"],
    }


@pytest.mark.parametrize("how", ["serve", "procfile-web"])
def test_server_answers_over_http(server_env: dict[str, str], how: str) -> None:
    port = _free_port()
    env = {
        **server_env,
        "PORT": str(port),
        "PATH": f"{Path(sys.executable).parent}:{server_env.get('PATH', '')}",
    }
    process = subprocess.Popen(
        _commands(port)[how],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}/api/v1"
        _wait_until_up(f"{base}/health", process)
        assert _get(f"{base}/ready")[0] == 200
        request = urllib.request.Request(
            f"{base}/tables", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
        status, body = _get(f"{base}/tables")
        assert status == 401 and b"unauthenticated" in body
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    # The access log shows paths, never the bearer token.
    assert OPERATOR_TOKEN.encode() not in output
    # Threaded workers (issue 10): a slow client holds a thread, not a whole worker.
    assert b"Using worker: gthread" in output, output[-2000:]


def _start(how: str, env: dict[str, str]) -> tuple[int, subprocess.Popen[bytes]]:
    port = _free_port()
    process = subprocess.Popen(
        _commands(port)[how],
        cwd=REPO,
        env={**env, "PORT": str(port)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    return port, process


def _stop(process: subprocess.Popen[bytes]) -> bytes:
    process.send_signal(signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    return output


def test_instances_on_one_host_share_no_control_socket(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    """gunicorn >= 25 opened one control socket per user (~/.gunicorn/gunicorn.ctl, or under
    XDG_RUNTIME_DIR): a second instance took it over. Now no instance opens one."""
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir()
    env = {
        **server_env,
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "PATH": f"{Path(sys.executable).parent}:{server_env.get('PATH', '')}",
    }
    started = [_start(how, env) for how in ("procfile-web", "procfile-web", "serve")]
    try:
        for port, process in started:
            _wait_until_up(f"http://127.0.0.1:{port}/api/v1/health", process)
        sockets = [p for p in (*home.rglob("*"), *runtime.rglob("*")) if p.name.endswith(".ctl")]
        assert sockets == []
    finally:
        outputs = [_stop(process) for _, process in started]
    for output in outputs:
        assert b"Control socket" not in output, output[-2000:]


@pytest.mark.parametrize("named", [True, False], ids=["CASINO_ENV=production", "no CASINO_ENV"])
def test_production_refuses_to_start_with_a_guessable_operator_token(
    server_env: dict[str, str], named: bool
) -> None:
    """Also where nobody set CASINO_ENV: what the Procfile's gunicorn loads (wsgi.py) is
    production unless told otherwise (issue 19), so it refuses what production refuses."""
    env = {
        **server_env,
        "CASINO_OPERATOR_TOKENS": "weak-operator-secret",
        "PATH": f"{Path(sys.executable).parent}:{server_env.get('PATH', '')}",
    }
    if not named:
        del env["CASINO_ENV"]
    _, process = _start("procfile-web", env)
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        output = _stop(process)
        raise AssertionError(f"gunicorn kept running: {output[-2000:]!r}") from None
    assert process.returncode != 0
    assert b"guessable" in output and b"weak-operator-secret" not in output
