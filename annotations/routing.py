from django.urls import path

from annotations.runs.consumers import SessionConsumer

websocket_urlpatterns: list = [
    path("ws/sessions/<uuid:pk>/", SessionConsumer.as_asgi(), name="session-ws"),
]
