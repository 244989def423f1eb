"""System checks of the app's settings: a bad value is reported by ``manage.py check`` and at start-up."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from annotations.datasets.bids.limits import UploadLimits


@register()
def check_upload_limits(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Every ``HEDIT_UPLOAD_MAX_*`` variable names a known limit and holds a positive whole number."""
    try:
        UploadLimits.from_mapping(getattr(settings, "HEDIT_UPLOAD_LIMITS", {}))
    except ValueError as exc:
        return [Error(str(exc), hint="See the upload limits in the README's Datasets section.",
                      id="annotations.E001")]
    return []
