from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    # the annotator's pages first: hundreds of requests a second are matched against them (their
    # prefixes i/, a/ and mturk/ overlap none of the others, so the order changes no match)
    path("", include("surveys.urls")),
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    path("api/", include("quality.api.urls")),
    path("quality/", include("quality.urls")),
]

# A URL under /api/ that matches no route answers JSON, as the API's schema documents.
handler404 = "annotation.api.errors.not_found"
