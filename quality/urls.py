"""Researcher pages of the quality app (staff only), linked from the Project admin by name:
`quality:report` (args: project id), `quality:run` (POST), `quality:export` (project id, dataset,
format: a download at once), `quality:export-start` (POST: an export job), `quality:hub-export-start` (POST: a Hub folder's job),
`quality:export-download` (project id, job id: the job's file), and per run (project id, run id):
`quality:plot` (+ plot name), `quality:run_status` (JSON), `quality:report_download` (one HTML file);
per item (project id, item id): `quality:item` (its annotations side by side) and
`quality:item-decide` (POST: accept or reject one annotation)."""

from django.urls import path

from . import hub_views, item_views, views

app_name = "quality"
urlpatterns = [
    path("projects/<int:project_id>/", views.report, name="report"),
    path("projects/<int:project_id>/run/", views.run_now, name="run"),
    path("projects/<int:project_id>/runs/<int:run_id>/plots/<slug:name>.svg", views.plot, name="plot"),
    path("projects/<int:project_id>/runs/<int:run_id>/status/", views.run_status, name="run_status"),
    path("projects/<int:project_id>/runs/<int:run_id>/report.html", views.report_download, name="report_download"),
    path("projects/<int:project_id>/export/<slug:dataset>.<slug:fmt>", views.export, name="export"),
    path("projects/<int:project_id>/exports/", views.export_start, name="export-start"),
    path("projects/<int:project_id>/exports/hub/", hub_views.hub_export_start, name="hub-export-start"),
    path("projects/<int:project_id>/exports/<int:job_id>/download", views.export_download, name="export-download"),
    path("projects/<int:project_id>/items/<int:item_id>/", item_views.item, name="item"),
    path("projects/<int:project_id>/items/<int:item_id>/decide/", item_views.item_decide, name="item-decide"),
]
