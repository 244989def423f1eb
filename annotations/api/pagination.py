"""Page-number pagination with a caller-chosen page size, capped."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import PageNumberPagination
from rest_framework.settings import api_settings


class SessionPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Any) -> int | None:
        # The default is read per request (not at import), so PAGE_SIZE can change with settings.
        self.page_size = api_settings.PAGE_SIZE or 50
        return super().get_page_size(request)
