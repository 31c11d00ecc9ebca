"""Free-play War games table.

Revision ID: 0002
Revises: 0001
"""
