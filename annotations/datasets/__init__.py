"""Dataset projects: BIDS datasets annotated with HED, one events.json sidecar per task."""
