"""Tests of the dataset-project core (annotations.datasets.bids): no database needed."""
