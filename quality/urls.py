"""Researcher pages of the quality app (staff only), linked from the Project admin by name:
`quality:report` (args: project id), `quality:run` (POST), `quality:export` (project id, dataset,
format: a download at once), `quality:export-start` (POST: an export job),
`quality:export-download` (project id, job id: the job's file)."""
from django.urls import path

from . import views

app_name = "quality"
urlpatterns = [
    path("projects/<int:project_id>/", views.report, name="report"),
    path("projects/<int:project_id>/run/", views.run_now, name="run"),
    path("projects/<int:project_id>/export/<slug:dataset>.<slug:fmt>", views.export, name="export"),
    path("projects/<int:project_id>/exports/", views.export_start, name="export-start"),
    path("projects/<int:project_id>/exports/<int:job_id>/download", views.export_download, name="export-download"),
]
