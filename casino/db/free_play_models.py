"""SQLAlchemy model of a stored free-play War game (`FreePlayGame`)."""
