"""The REST API (mounted at /api/): researcher resources, annotator `me`, schema and docs."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from . import schema  # noqa: F401  (registers the annotator key scheme)
from .batches import BatchViewSet
from .me import MeView, MyResponsesView
from .projects import ItemViewSet, ProjectViewSet

router = SimpleRouter()
router.register("projects", ProjectViewSet, basename="project")
router.register("items", ItemViewSet, basename="item")
router.register("batches", BatchViewSet, basename="batch")

# No ReDoc page: its template loads web fonts from Google, and nothing may come from a CDN.
# Swagger UI in drf-spectacular's split view (its setup script is a second request, not inline)
# and a template without the inline <style>, so the Content-Security-Policy needs no exception.
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path("me/", MeView.as_view(), name="api-me"),
    path("me/responses/", MyResponsesView.as_view(), name="api-me-responses"),
    *router.urls,
]
