"""Runs: start, execute, cancel and re-run annotation sessions; record and push every step."""
