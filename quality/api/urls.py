"""Quality API routes (included at /api/). Names: api-project-quality-runs, api-quality-run-detail,
api-project-export, api-project-score."""
from django.urls import path

from . import views

urlpatterns = [
    path(
        "projects/<int:project_id>/quality-runs/",
        views.ProjectQualityRunsView.as_view(),
        name="api-project-quality-runs",
    ),
    path("quality-runs/<int:pk>/", views.QualityRunDetailView.as_view(), name="api-quality-run-detail"),
    path("projects/<int:project_id>/export/", views.ProjectExportView.as_view(), name="api-project-export"),
    path("projects/<int:project_id>/score/", views.ProjectScoreView.as_view(), name="api-project-score"),
]
