"""Domain errors of the engine. Each carries a stable machine-readable ``code``.

The API maps these codes to problem+json responses; the engine itself knows nothing of HTTP.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "engine_error"

    def __init__(self, detail: str, *, code: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code


class InvalidRules(EngineError):
    """Table rules or game options that cannot be played.

    ``rule`` names the rule refused (a ``TableRules`` field such as ``"tie_ladder"``), so an
    API can answer naming it; None where no single rule is at fault.
    """

    code = "invalid_rules"

    def __init__(self, detail: str, *, code: str | None = None, rule: str | None = None) -> None:
        super().__init__(detail)
        if code is not None:
            self.code = code
        self.rule = rule


class InvalidBet(EngineError):
    """A stake the table's rules do not accept."""

    code = "invalid_bet"


class IllegalAction(EngineError):
    """An action the game's state does not allow now."""

    code = "illegal_action"


class InvalidSeed(EngineError):
    """A seed or nonce outside what the fairness scheme accepts."""

    code = "invalid_seed"
