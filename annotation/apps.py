from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation projects"
    default_auto_field = "django.db.models.BigAutoField"
