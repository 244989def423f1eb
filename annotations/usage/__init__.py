"""Using a dataset's annotations: HED search, design matrices, tag summaries, acceptance rules and compare."""
