"""The REST API (mounted at /api/): researcher resources, annotator `me`, schema and docs."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
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
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("me/", MeView.as_view(), name="api-me"),
    path("me/responses/", MyResponsesView.as_view(), name="api-me-responses"),
    *router.urls,
]
