"""History: find past runs with filters and search, page through them cheaply."""
