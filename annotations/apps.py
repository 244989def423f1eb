from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "HED annotations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotations import checks  # noqa: F401 - registers the settings checks
