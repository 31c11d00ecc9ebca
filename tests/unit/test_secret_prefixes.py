"""Every kind of token the service issues has its prefix in ``SECRET_PREFIXES``: what keeps
them out of request ids and logs (casino.api.observability)."""

from __future__ import annotations

from casino.service import auth, free_play, game_sessions


def test_every_issued_prefix_is_a_secret_prefix() -> None:
    issued = {
        auth.OPERATOR_PREFIX,
        auth.PLATFORM_PREFIX,
        auth.PLAYER_PREFIX,
        auth.GAME_SESSION_PREFIX,
        auth.LAUNCH_CODE_PREFIX,
        free_play.GAME_TOKEN_PREFIX,
    }
    assert issued == set(auth.SECRET_PREFIXES)
    assert game_sessions.LAUNCH_CODE_SECONDS <= 120
