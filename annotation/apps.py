from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation projects"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotation.api import lockout  # noqa: F401  (connects the axes lockout receiver)
