"""Maintenance jobs: consistency check, cleanup, retention tiers, purge."""
