"""LLM settings: a user's endpoint, key and models, the server's defaults, the response cache."""
