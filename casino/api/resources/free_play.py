"""Free-play War over REST: variants, games (view, moves, autoplay) and simulations.

No money and no token; rate-limited per client address. Thin flask-smorest views over
`casino.service.free_play`; errors are mapped in `casino.api.errors`.
"""
