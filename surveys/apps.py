from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Annotator pages"

    def ready(self) -> None:
        from .csrf_masks import install

        install()
