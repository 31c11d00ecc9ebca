"""WSGI entry point: ``gunicorn wsgi:app`` (the Procfile's ``web:``).

Whatever loads this module is taken for production unless ``CASINO_ENV`` says otherwise: a
deployment that forgets to set it gets production's refusals (no database URL, weak operator
tokens, no counter store, no public key) instead of development's silent defaults (SQLite
under ``instance/``, a signing key made on the spot, DEBUG logs). ``make run`` and
``casino serve`` choose development themselves.
"""

import os

from casino import create_app

app = create_app(os.environ.get("CASINO_ENV", "").strip() or "production")
