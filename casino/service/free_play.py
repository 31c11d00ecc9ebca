"""Free-play War use cases over a unit of work: create, view, move, autoplay, simulate.

Games are stored in the database (`casino.db.free_play_models.FreePlayGame`) so that any
worker can serve the next move. The caller commits.
"""
