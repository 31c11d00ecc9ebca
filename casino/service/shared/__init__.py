"""Shared tables' use cases (docs/shared-tables.md): the table mode ``shared`` as one
adapter beside the private rounds of casino.service.rounds.

| module | what it holds |
|---|---|
| ``tables`` | creating a shared table (its chain, public value), its rules and shoes |
| ``money`` | the wallet seam: debits, credits and refunds of shared bets (every wallet mode) |
| ``bets`` | a bettor's bet and decision on the current round; the round as a client sees it |
| ``dealer`` | the dealer's steps: the clock, settlement in batches, voiding, leases |
| ``verify`` | the shoes and bets re-dealt and re-settled (audit, ``casino verify``) |
"""
