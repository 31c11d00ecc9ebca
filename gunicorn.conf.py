"""gunicorn reads this file from the working directory (the Procfile names it too).

It prepares prometheus_client's multiprocess directory before the app is imported and
installs the hooks that keep it right (see casino/api/gunicorn_hooks.py). Everything else
is given on the command line.
"""

from casino.api.gunicorn_hooks import child_exit, on_exit, prepare_metrics_dir

prepare_metrics_dir()

__all__ = ["child_exit", "on_exit"]
