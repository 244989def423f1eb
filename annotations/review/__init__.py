"""Review: ratings, verdicts, corrections kept as revisions, and the review queue."""
