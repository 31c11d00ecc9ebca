"""WSGI entry point: ``gunicorn wsgi:app``."""

from casino import create_app

app = create_app()
