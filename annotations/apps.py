from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "HED annotations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from annotations import checks  # noqa: F401 - registers the settings checks
        from annotations.access import ensure_reviewers_group

        # After the permissions are created (the auth app's handler runs first): a new or flushed database
        # gets the reviewers group with them.
        post_migrate.connect(ensure_reviewers_group, sender=self)
