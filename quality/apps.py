from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "quality"
    verbose_name = "Quality and exports"
    default_auto_field = "django.db.models.BigAutoField"
