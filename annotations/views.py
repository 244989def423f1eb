from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse


@login_required
def annotate(request: HttpRequest) -> HttpResponse:
    return HttpResponse("annotate")


@login_required
def session_detail(request: HttpRequest, pk: str) -> HttpResponse:
    return HttpResponse(str(pk))
