"""Language-model access for the agents (OpenAI-compatible endpoints)."""

from agents.llm.base import ChatModel, LLMError, LLMReply, UnavailableModel, constraint_of

__all__ = ["ChatModel", "LLMError", "LLMReply", "UnavailableModel", "constraint_of"]
