"""URL names of the app; each area keeps its routes beside its views."""

from annotations.urls_llm import urlpatterns as llm_urls
from annotations.urls_pages import urlpatterns as page_urls
from annotations.urls_review import urlpatterns as review_urls

app_name = "annotations"

urlpatterns = [*page_urls, *review_urls, *llm_urls]
