"""Validation page: check a HED string as you type."""
