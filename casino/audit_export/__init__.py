"""The offline verifier of ledger exports (``casino_audit_export.py``), shipped with the
package so that ``casino verify-export`` runs it and an auditor can be handed the one file.

The module imports nothing but the Python standard library and nothing from ``casino``: it
is an independent re-implementation, not a client of this code base.
"""
