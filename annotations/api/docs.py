"""A self-contained API docs page: the OpenAPI schema's operations rendered on the server.

drf-spectacular's Swagger and Redoc pages load their JavaScript from a CDN; this page
needs nothing but the schema, so it works offline.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from annotations.api.tokens import has_token

_METHODS = ("get", "post", "put", "patch", "delete")


@functools.cache
def _schema() -> dict[str, Any]:
    # The API's shape is fixed at start-up; generating it walks every view, so once is enough.
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per path and method: what it does, its parameters, body and answers."""
    found = []
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            body = op.get("requestBody", {}).get("content", {})
            body_ref = next((c.get("schema", {}).get("$ref", "") for c in body.values()), "")
            found.append({
                "path": path, "method": method.upper(), "summary": op.get("summary", ""),
                "description": op.get("description", ""),
                "parameters": [{"name": p["name"], "where": p.get("in", ""), "required": p.get("required", False),
                                "description": p.get("description", "")} for p in op.get("parameters", [])],
                "body": body_ref.rsplit("/", 1)[-1],
                "responses": [{"code": code, "description": r.get("description", "")}
                              for code, r in op.get("responses", {}).items()],
            })
    return found


def components(schema: dict[str, Any]) -> list[dict[str, Any]]:
    result = []
    for name, comp in sorted(schema.get("components", {}).get("schemas", {}).items()):
        required = set(comp.get("required", []))
        fields = [{"name": f, "type": spec.get("type") or spec.get("$ref", "").rsplit("/", 1)[-1]
                   or ", ".join(s.get("$ref", s.get("type", "")).rsplit("/", 1)[-1]
                                for s in spec.get("allOf", spec.get("oneOf", []))),
                   "required": f in required, "read_only": spec.get("readOnly", False),
                   "description": spec.get("description", "")}
                  for f, spec in comp.get("properties", {}).items()]
        result.append({"name": name, "fields": fields, "description": comp.get("description", "")})
    return result


@login_required
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = _schema()
    return render(request, "annotations/api/docs.html", {
        "info": schema.get("info", {}), "operations": operations(schema), "components": components(schema),
        "schema_url": reverse("api:schema"), "limits": limits(), "has_token": has_token(request.user),
    })


def limits() -> dict[str, Any]:
    """The limits the docs page states, read from the settings in force."""
    from agents.validation.agent import MAX_ISSUES, MAX_TAGS
    from annotations.validation.forms import MAX_HED_CHARS

    return {"run_rate": settings.HEDIT_RUN_RATE, "validate_rate": settings.HEDIT_VALIDATE_RATE,
            "max_hed_chars": MAX_HED_CHARS, "max_tags": MAX_TAGS, "max_issues": MAX_ISSUES,
            "max_request_bytes": settings.HEDIT_MAX_REQUEST_BYTES, "max_json_depth": settings.HEDIT_MAX_JSON_DEPTH}
