"""What every repository of a unit of work shares: its session and which database it is on."""

from __future__ import annotations

from sqlalchemy.orm import Session


class Repository:
    def __init__(self, session: Session, postgres: bool) -> None:
        self.session = session
        self.postgres = postgres
