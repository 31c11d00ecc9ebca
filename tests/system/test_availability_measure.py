"""The unavailability window the HA test reports (``harness.availability.measure``)."""

from __future__ import annotations

from harness.availability import Answer, Switch, measure, window_summary


def bet(at: float, status: int | None, latency: float = 0.01) -> Answer:
    return Answer(at, at - latency, "bet", status, status == 503)


def test_window_runs_from_the_first_failure_to_the_first_success_sent_after_it() -> None:
    switch = Switch("planned failover", began=10.0, primary_before="node1")
    answers = [
        bet(9.0, 201),  # before the switch: not its business
        bet(10.5, 201),
        bet(11.0, 503),  # first failure
        bet(11.01, 201, latency=0.5),  # in flight since 10.51: says nothing about recovery
        bet(11.5, None),  # a lost answer fails too
        bet(12.0, 503),
        bet(12.4, 201, latency=0.1),  # sent at 12.3, after the first failure: play is back
        bet(13.0, 201),
    ]
    measure([switch], answers, end=20.0)
    assert switch.failed_bets == 3
    assert switch.first_failure == 11.0 and switch.last_failure == 12.0
    assert round(switch.window, 6) == 1.4
    assert round(switch.span, 6) == 1.0
    assert switch.to_first_success is not None and round(switch.to_first_success, 6) == 2.4


def test_each_switch_sees_only_its_own_answers_and_an_unnoticed_one_is_zero() -> None:
    first = Switch("kill -9 postmaster", began=0.0, primary_before="node1")
    quiet = Switch("kill -9 keeper", began=5.0, primary_before="node1")
    last = Switch("kill -9 node", began=10.0, primary_before="node1")
    answers = [bet(1.0, 503), bet(2.0, 201), bet(6.0, 201), bet(11.0, 503), bet(20.0, 201)]
    measure([first, quiet, last], answers, end=30.0)
    assert (first.window, quiet.window, last.window) == (1.0, 0.0, 9.0)
    assert quiet.failed_bets == 0 and quiet.to_first_success == 1.0
    assert window_summary([first, quiet, last]) == (1.0, 9.0)


def test_a_switch_never_recovered_has_an_infinite_window() -> None:
    switch = Switch("kill -9 node", began=0.0, primary_before="node1")
    measure([switch], [bet(1.0, 503), bet(2.0, 503)], end=5.0)
    assert switch.window == float("inf")
    assert switch.to_first_success is None
