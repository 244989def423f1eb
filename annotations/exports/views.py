"""The export page: choose a format and filters, download the stream."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotations.access import can_see_all
from annotations.errors import caught
from annotations.exports.formats import FilterError, check_format, export_response, sessions_for_export
from annotations.exports.forms import ExportForm
from annotations.history.filters import filter_bar_html, filter_fields

logger = logging.getLogger(__name__)


@login_required
@require_GET
def export(request: HttpRequest) -> HttpResponse:
    """The export form; with a format chosen, the download itself (streamed)."""
    form = ExportForm(request.GET) if "format" in request.GET else ExportForm()
    errors: dict[str, str] = {}
    if form.is_bound and form.is_valid():
        with caught(FilterError) as bad:  # each filter at fault shown beside it
            qs = sessions_for_export(request.user, request.GET)
            fmt = check_format(form.cleaned_data["format"])
            logger.info("%s exported %s with %s", request.user, fmt.name, dict(request.GET.items()))
            return export_response(request, fmt, qs)
        errors = bad.error.errors if isinstance(bad.error, FilterError) else {}
    context = {"form": form, "errors": errors, "search": request.GET.get("q", ""),
               "filter_bar": filter_bar_html(filter_fields(request.GET, show_user=can_see_all(request.user)), errors)}
    return render(request, "annotations/exports/export.html", context,
                  status=400 if form.is_bound and (errors or form.errors) else 200)
