from django.urls import path

from annotations.datasets.consumers import DatasetConsumer
from annotations.runs.consumers import SessionConsumer

websocket_urlpatterns: list = [
    path("ws/sessions/<uuid:pk>/", SessionConsumer.as_asgi(), name="session-ws"),
    path("ws/datasets/<uuid:pk>/", DatasetConsumer.as_asgi(), name="dataset-ws"),
]
