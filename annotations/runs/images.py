"""Stimulus images: only PNG and JPEG, checked by content, not by name."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile

from annotations.errors import RequestError

ALLOWED_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg"}


def check_image(image: UploadedFile, max_bytes: int) -> str:
    """The image's MIME type after checking size and content; raises :class:`RequestError`."""
    if image.size is not None and image.size > max_bytes:
        raise RequestError(f"Image is {image.size} bytes; the limit is {max_bytes}.", field="image")
    head = image.read(16)
    image.seek(0)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    raise RequestError("Image must be a PNG or JPEG file.", field="image")


def sniff_image_type(head: bytes) -> str:
    # Only PNG and JPEG are ever accepted (check_image), so the signature decides between them.
    return "image/png" if head.startswith(b"\x89PNG") else "image/jpeg"


def image_type(image: Any) -> str:
    """The MIME type of a stored stimulus."""
    with image.open("rb") as fh:
        return sniff_image_type(fh.read(8))
