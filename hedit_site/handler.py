"""The site's ASGI handler for pages: each request's middleware, URL resolution and view in one thread call."""

from __future__ import annotations

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneThreadASGIHandler(ASGIHandler):
    """Django's ASGI handler with the whole synchronous request path run in one trip to the request's thread.

    Django's own handler builds an asynchronous chain: the middleware (made synchronous by
    :class:`hedit_site.middleware.OneThreadMiddleware`) runs in the request's thread, but the innermost step,
    URL resolution and the call of a synchronous view, is asynchronous, so every page went thread, loop,
    thread (the view), loop, thread (the way out), loop. Under socket load each return to the loop waits
    behind every socket's callbacks and each return to the thread waits for the interpreter lock
    (benchmarks/README.md, "History under load", issue 40). Here the chain is the synchronous one a WSGI
    server runs, called once from the loop: the request crosses to its thread and back once. The page
    views are all synchronous (an asynchronous one would still work: Django's synchronous path runs it
    with ``async_to_sync``).
    """

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        if is_async:
            # thread_sensitive: the request's own thread (ASGIHandler opens a ThreadSensitiveContext per
            # request), as Django's adapters use, so the response's close and its signals find the same one.
            self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)


def get_asgi_application() -> OneThreadASGIHandler:
    """``django.core.asgi.get_asgi_application`` with :class:`OneThreadASGIHandler`."""
    django.setup(set_prefix=False)
    return OneThreadASGIHandler()
