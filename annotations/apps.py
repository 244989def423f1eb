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
        _register_hooks()


def _register_hooks() -> None:
    """What the concerns above runs, datasets and llm do at the moments those announce (annotations.hooks):
    registered here, the one module above every concern, so the lower ones never import the higher."""
    from annotations import hooks

    # In this order: a dataset level's run ends its job before an evaluation's next runs are queued, as the
    # task did when it called both itself.
    hooks.RUN_ENDED.register("annotations.datasets.jobs.level_run_ended")
    hooks.RUN_ENDED.register("annotations.evaluation.batches.evaluation_run_ended")
    hooks.SERVER_STARTED.register("annotations.datasets.recovery.resume_cut_off_validation")
    hooks.SERVER_STARTED.register("annotations.evaluation.batches.recover_at_start")
    hooks.REVISION_STORED.register("annotations.usage.acceptance.revision_stored")
    hooks.MODEL_CHANGED.register("annotations.evaluation.watch.rerun_watched")
