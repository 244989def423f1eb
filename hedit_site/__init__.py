"""The Django project: settings, ASGI, URLs."""

# Before anything imports hedtools: see agents.quickstart (about 2 s less for every process).
import agents  # noqa: F401
