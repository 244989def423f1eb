"""Exports: CSV and JSONL of runs, streamed from keyset pages (BIDS sidecars: annotations.datasets)."""
