"""Benchmarks. ``python -m bench`` (``make bench``) runs every ``bench/bench_*.py`` module."""
