"""Assessment agent (optional): how complete is the final annotation?"""

from agents.assessment.agent import assess

__all__ = ["assess"]
