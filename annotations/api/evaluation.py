"""``GET /api/evaluation/``: the evaluation table as the page's JSON download gives it."""

from __future__ import annotations

import uuid

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.evaluation.scope import HISTORY_FILTERS, read_scope
from annotations.evaluation.selectors import evaluation_table
from annotations.history.filters import BY_NAME

SCOPE_PARAMETERS = [
    OpenApiParameter("project", uuid.UUID, description="A dataset project's runs and the evaluations of its sets "
                                                       "(another user's project is a 404)."),
    OpenApiParameter("set", uuid.UUID, description="The evaluations of one evaluation set."),
    *(OpenApiParameter(f.name, f.api_type, description=f.help,
                       enum=[value for value, _ in f.choices()] if f.enum and f.choices else None)
      for f in (BY_NAME[name] for name in HISTORY_FILTERS)),
]


class EvaluationTableView(APIView):
    @extend_schema(parameters=SCOPE_PARAMETERS, summary="Per-model evaluation table",
                   description="One object per model configuration (provider, model, constrained decoding, prompt "
                               "version, schema) over the finished runs of the scope you may see: validity, attempts, "
                               "tag precision/recall/F1 against the reviewed annotation or the set's gold (definitions "
                               "kept and expanded), reviewers' acceptance and rating, faithfulness, tokens, cost, "
                               "latency and failures, with 95% bootstrap intervals below 200 runs.",
                   responses={200: OpenApiTypes.OBJECT, 400: OpenApiResponse(description="a filter value that "
                                                                                          "cannot be used"),
                              404: OpenApiResponse(description="a project or set you may not see")})
    def get(self, request: Request) -> Response:
        scope = read_scope(request.user, request.query_params)  # 400 and 404 through the API's error handler
        return Response(evaluation_table(scope, request.user).as_dict())
