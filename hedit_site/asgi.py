"""ASGI entry point: HTTP through Django, websockets through Channels (serve with daphne)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hedit_site.settings")

from hedit_site.handler import get_asgi_application

# Pages: one trip from the loop to the request's thread and back (see OneThreadASGIHandler).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from annotations.routing import websocket_urlpatterns  # noqa: E402 - needs Django set up first
from annotations.runs.runtime import LoopCapturingApp  # noqa: E402
from annotations.runs.sockets import auth_middleware_stack  # noqa: E402
from annotations.runs.startup import on_server_start  # noqa: E402
from hedit_site.request_limits import BodyLimitMiddleware, limit_daphne_bodies  # noqa: E402
from hedit_site.ws_origin import SameOriginValidator  # noqa: E402

# Daphne receives a whole body before the application sees it: refuse oversized ones as they arrive.
limit_daphne_bodies()

on_server_start()

application = LoopCapturingApp(ProtocolTypeRouter(
    {
        "http": BodyLimitMiddleware(django_asgi_app),
        # Same origin by scheme, host and port (Channels' own validator checks the host only).
        "websocket": SameOriginValidator(auth_middleware_stack(URLRouter(websocket_urlpatterns))),
    }
))
