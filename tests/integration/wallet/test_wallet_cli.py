"""``casino demo-wallet`` and ``casino wallet-check`` as an operator runs them: two processes,
a pass/fail table, exit 1 on any failure, the records exported as CSV."""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from casino.cli import main as cli
from casino.wallet.demo.admin import DemoAdmin
from casino.wallet.demo.store import CSV_COLUMNS

CASINO = str(Path(sys.executable).with_name("casino"))
SECRET = "cli-test-secret-0123456789"

StartWallet = Callable[..., str]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"demo-wallet exited: {process.stderr.read()!r}")  # type: ignore[union-attr]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("demo-wallet did not start listening")


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "wallet.secret"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def start_wallet(tmp_path: Path, secret_file: Path) -> Iterator[StartWallet]:
    processes: list[subprocess.Popen[bytes]] = []

    def start(*extra: str, database: Path | None = None) -> str:
        port = _free_port()
        args = [CASINO, "demo-wallet", "--port", str(port), "--secret-file", str(secret_file),
                "--database", str(database or tmp_path / f"wallet-{port}.db"),
                "--player", "kit:EUR:100000", *extra]  # fmt: skip
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        processes.append(process)
        _wait_until_listening(port, process)
        return f"http://127.0.0.1:{port}"

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def check(url: str, secret_file: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [CASINO, "wallet-check", "--url", url, "--secret-file", str(secret_file),
            "--player", "kit", "--currency", "EUR", *extra]  # fmt: skip
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_the_kit_passes_the_demo_wallet_and_prints_its_table(
    start_wallet: StartWallet, secret_file: Path
) -> None:
    url = start_wallet()
    run = check(url, secret_file)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["check", "verdict", "detail"]
    assert any(line.startswith("concurrent duplicates") and " pass" in line for line in lines)
    assert "0 failed" in lines[-1] and "balance changed by" in lines[-1]


def test_the_kit_fails_a_broken_wallet_with_exit_1(
    start_wallet: StartWallet, secret_file: Path
) -> None:
    url = start_wallet("--broken", "double-credit")
    run = check(url, secret_file, "--json")
    assert run.returncode == 1
    report = json.loads(run.stdout)
    verdicts = {result["name"]: result["verdict"] for result in report["results"]}
    assert verdicts["win"] == "FAIL"
    assert verdicts["bet"] == "pass"


def test_the_demo_wallet_with_faults_still_passes(
    start_wallet: StartWallet, secret_file: Path
) -> None:
    url = start_wallet("--faults", "timeout=0.05,error=0.05,drop=0.05", "--fault-delay", "0.4",
                       "--seed", "11")  # fmt: skip
    run = check(url, secret_file, "--timeout-ms", "200", "--attempts", "12")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_records_export_as_csv(
    start_wallet: StartWallet, secret_file: Path, tmp_path: Path
) -> None:
    database = tmp_path / "exported.db"
    url = start_wallet(database=database)
    assert check(url, secret_file, "--only", "bet", "--only", "rollback").returncode == 0
    over_http = DemoAdmin(url, [SECRET.encode()]).transactions()
    out = tmp_path / "records.csv"
    export = ["demo-wallet", "--database", str(database), "--export-csv", str(out)]
    result = CliRunner().invoke(cli, export)  # no secret needed to read its own file
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert rows == over_http
    assert [(row["kind"], row["status"]) for row in rows] == [
        ("bet", "OK"), ("win", "OK"), ("bet", "OK"), ("rollback", "OK"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--faults", "slow=0.1"], "not a fault"),
        (["--player", "alice"], "ID:CUR:BALANCE"),
        (["--broken", "nothing"], "nothing"),
    ],
)
def test_bad_options_are_usage_errors(secret_file: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["demo-wallet", "--secret-file", str(secret_file), *args])
    assert result.exit_code == 2 and message in result.output


def test_serving_needs_the_secret() -> None:
    result = CliRunner().invoke(cli, ["demo-wallet", "--port", "0"])
    assert result.exit_code == 2 and "--secret-file is required" in result.output


def test_a_short_secret_is_refused(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("tiny\n")
    result = CliRunner().invoke(cli, ["wallet-check", "--url", "http://127.0.0.1:1",
                                      "--secret-file", str(short), "--player", "p",
                                      "--currency", "EUR"])  # fmt: skip
    assert result.exit_code == 2 and "at least 16 bytes" in result.output


def test_an_unknown_check_name_is_refused(secret_file: Path) -> None:
    result = CliRunner().invoke(cli, ["wallet-check", "--url", "http://127.0.0.1:1",
                                      "--secret-file", str(secret_file), "--player", "p",
                                      "--currency", "EUR", "--only", "nope"])  # fmt: skip
    assert result.exit_code == 2 and "no check 'nope'" in result.output
