from django.urls import path

from . import views

app_name = "surveys"
urlpatterns = [
    path("i/<str:token>/", views.invite, name="invite"),
    path("a/<str:key>/", views.work, name="work"),
]
