"""The reference wallet's fault plan: parsed strictly, drawn at the planned rates, repeatable
with a seed."""

from __future__ import annotations

import pytest

from casino.wallet.demo.faults import FaultPlan, Faults


def test_a_plan_is_parsed_from_kind_probability_pairs() -> None:
    plan = FaultPlan.parse("timeout=0.05, error=0.1,drop=0")
    assert plan == FaultPlan(timeout=0.05, error=0.1, drop=0.0)
    assert str(plan) == "timeout=0.05,error=0.1"
    assert FaultPlan.parse("") == FaultPlan() and FaultPlan.parse(None) == FaultPlan()


@pytest.mark.parametrize(
    "text", ["slow=0.1", "timeout", "timeout=x", "error=1.5", "drop=-0.1", "timeout=0.6,error=0.6"]
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        FaultPlan.parse(text)


def test_no_plan_draws_nothing() -> None:
    faults = Faults(FaultPlan())
    assert {faults.draw() for _ in range(1000)} == {None}


def test_certain_faults_always_happen() -> None:
    faults = Faults(FaultPlan(drop=1.0))
    assert {faults.draw() for _ in range(100)} == {"drop"}
    assert faults.counts == {"drop": 100}


def test_draws_follow_the_plan_and_a_seed_repeats_them() -> None:
    plan = FaultPlan(timeout=0.1, error=0.2, drop=0.3)
    first = Faults(plan, seed=3)
    draws = [first.draw() for _ in range(20_000)]
    share = {kind: draws.count(kind) / len(draws) for kind in ("timeout", "error", "drop")}
    assert share == pytest.approx({"timeout": 0.1, "error": 0.2, "drop": 0.3}, abs=0.015)
    again = Faults(plan, seed=3)
    assert [again.draw() for _ in range(20_000)] == draws
