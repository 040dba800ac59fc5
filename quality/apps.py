from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "quality"
    verbose_name = "Quality and exports"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The quality run is where MTurk review takes its decisions from: register it with the
        # channel's review service (annotation never imports quality; quality plugs in here).
        from quality.services import review  # noqa: F401
