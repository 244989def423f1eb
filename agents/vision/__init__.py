"""Vision agent: describes a stimulus image in words the annotator can use."""

from agents.vision.agent import VisionUnavailable, describe_image

__all__ = ["VisionUnavailable", "describe_image"]
