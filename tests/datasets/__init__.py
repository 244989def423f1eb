"""Tests of the dataset-project core (bidsdata): no database needed."""
