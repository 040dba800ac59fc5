"""Quality API routes (included at /api/). Names: api-project-quality-runs, api-quality-run-detail,
api-project-export, api-project-export-jobs, api-project-hub-folder, api-export-job-detail, api-export-download,
api-project-predictions, api-project-scorers, api-project-score."""

from django.urls import path

from . import exports, hub, predictions, scores, views

urlpatterns = [
    path(
        "projects/<int:project_id>/quality-runs/",
        views.ProjectQualityRunsView.as_view(),
        name="api-project-quality-runs",
    ),
    path("quality-runs/<int:pk>/", views.QualityRunDetailView.as_view(), name="api-quality-run-detail"),
    path("projects/<int:project_id>/export/", exports.ProjectExportView.as_view(), name="api-project-export"),
    path("projects/<int:project_id>/exports/", exports.ProjectExportJobsView.as_view(), name="api-project-export-jobs"),
    path("projects/<int:project_id>/exports/hub/", hub.ProjectHubFolderView.as_view(), name="api-project-hub-folder"),
    path("exports/<int:pk>/", exports.ExportJobDetailView.as_view(), name="api-export-job-detail"),
    path("exports/<int:pk>/download/", exports.ExportJobDownloadView.as_view(), name="api-export-download"),
    path(
        "projects/<int:project_id>/predictions/",
        predictions.ProjectPredictionsView.as_view(),
        name="api-project-predictions",
    ),
    path("projects/<int:project_id>/scores/", scores.ProjectScorersView.as_view(), name="api-project-scorers"),
    path("projects/<int:project_id>/scores/<str:scorer>/", scores.ProjectScoreView.as_view(), name="api-project-score"),
]
