"""annotations.hooks: each moment a lower concern announces reaches the concerns above, registered by path."""

from __future__ import annotations

import pytest

from annotations import hooks
from annotations.datasets.jobs import level_run_ended
from annotations.datasets.recovery import resume_cut_off_validation
from annotations.evaluation.batches import evaluation_run_ended, recover_at_start
from annotations.evaluation.watch import rerun_watched
from annotations.usage.acceptance import revision_stored


def test_the_app_registers_each_hook_in_order() -> None:
    # Registered by dotted path in AnnotationsConfig.ready: a typo there would only show when the moment comes.
    assert list(hooks.RUN_ENDED.targets()) == [level_run_ended, evaluation_run_ended]
    assert list(hooks.SERVER_STARTED.targets()) == [resume_cut_off_validation, recover_at_start]
    assert list(hooks.REVISION_STORED.targets()) == [revision_stored]
    assert list(hooks.MODEL_CHANGED.targets()) == [rerun_watched]


def test_a_hook_calls_what_the_module_holds_now(monkeypatch: pytest.MonkeyPatch) -> None:
    hook = hooks.Hook("test")
    hook.register("annotations.usage.acceptance.revision_stored")
    hook.register("annotations.usage.acceptance.revision_stored")  # ready run again: still once
    called: list[tuple] = []
    monkeypatch.setattr("annotations.usage.acceptance.revision_stored", lambda *args: called.append(args))
    for target in hook.targets():
        target("task", "digest")
    assert called == [("task", "digest")]
