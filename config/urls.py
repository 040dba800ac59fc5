from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    path("api/", include("quality.api.urls")),
    path("quality/", include("quality.urls")),
    path("", include("surveys.urls")),
]
