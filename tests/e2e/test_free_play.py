"""Free-play War over REST through the Flask test client (SQLite and PostgreSQL)."""
