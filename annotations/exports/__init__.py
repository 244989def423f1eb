"""Exports: CSV, JSONL and BIDS sidecars, streamed from keyset pages."""
