"""The web server's start: the schema warm-up and the resume of cut-off runs and validations happen once per
process."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from annotations.datasets import recovery as dataset_recovery
from annotations.evaluation import batches as evaluation_batches
from annotations.runs import recovery, startup


def test_server_start_warms_up_and_resumes_once(monkeypatch, settings):
    settings.HEDIT_TASK_BACKEND = "thread"
    warmed, resumed = [], []
    monkeypatch.setattr(startup, "warm_up_schema", warmed.append)
    monkeypatch.setattr(recovery, "resume_cut_off_runs", lambda: resumed.append("runs"))
    monkeypatch.setattr(dataset_recovery, "resume_cut_off_validation", lambda: resumed.append("validation"))
    monkeypatch.setattr(evaluation_batches, "recover_evaluations",
                        lambda at_start: resumed.append(f"evaluations (at start: {at_start})"))
    startup.forget_start()  # a start earlier in this process (the ASGI app imported by another test)
    try:
        startup.on_server_start()
        startup.on_server_start()
        for thread in [t for t in threading.enumerate() if t.name == "hedit-warm-up"]:
            thread.join(timeout=5)
    finally:
        startup.forget_start()
    assert warmed == [settings.HEDIT_DEFAULT_SCHEMA]
    assert resumed == ["runs", "validation", "evaluations (at start: True)"]


def test_a_management_command_does_not_start_the_server():
    # Django's setup (AppConfig.ready) runs in every command; the server's start belongs to the ASGI app only.
    code = ("import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'hedit_site.settings'); "
            "django.setup(); from annotations.runs import startup; print(startup.has_started())")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
