"""The states a stored free-play game and a simulation job can be in, for the layers above
the store (casino.store.free_play_models keeps the tables)."""

from __future__ import annotations

IN_PROGRESS = "in_progress"
AWAITING_DECISION = "awaiting_decision"
FINISHED = "finished"
STATUSES = (IN_PROGRESS, AWAITING_DECISION, FINISHED)

SIMULATION_RUNNING = "running"
SIMULATION_DONE = "done"
SIMULATION_FAILED = "failed"
