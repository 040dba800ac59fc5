from django.urls import path

from . import adjudicate, mturk, preview, prolific, views

app_name = "surveys"
urlpatterns = [
    path("i/<str:token>/", views.invite, name="invite"),
    path("a/<str:key>/", views.work, name="work"),
    path("adj/<str:key>/", adjudicate.adjudicate, name="adjudicate"),
    path("adjudicate/batch/<int:batch_id>/", adjudicate.adjudicate_login, name="adjudicate-login"),
    # MTurk's ExternalQuestion URL, and the worker's pages inside MTurk's frame
    path("mturk/", mturk.entry, name="mturk"),
    path("mturk/work/<str:token>/", mturk.work, name="mturk-work"),
    # Prolific's study URL, and the participant's pages bound to their submission (session)
    path("prolific/", prolific.entry, name="prolific"),
    path("prolific/work/<str:token>/", prolific.work, name="prolific-work"),
    # the researcher's read-only preview of a project's pages (staff of the project's team)
    path("preview/<int:project_id>/", preview.preview, name="preview"),
]
