"""The API's status fields of a dataset project: its progress, its levels' states and where its job is.

The states are :func:`annotations.datasets.selectors.status_counts`, the same numbers the project page's header,
filters and task cards show; the job is :func:`annotations.datasets.job_progress.job_progress`.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotations.datasets.job_progress import job_progress
from annotations.models import DatasetProject


class StatesSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    running = serializers.IntegerField()
    valid = serializers.IntegerField()
    invalid = serializers.IntegerField()
    reviewed = serializers.IntegerField()
    needs_description = serializers.IntegerField(help_text="Levels whose meaning the lab has yet to give.")


class QueueSerializer(serializers.Serializer):
    jobs_ahead = serializers.IntegerField(help_text="Other projects' jobs queued or running before this one's.")
    runs_ahead = serializers.IntegerField(help_text="Single runs queued or running before this project's.")


class JobSerializer(serializers.Serializer):
    phase = serializers.ChoiceField(choices=["idle", "queued", "drafting", "annotating", "validating", "done",
                                             "failed"])
    remaining = serializers.IntegerField(help_text="This project's runs queued or running.")
    running = serializers.IntegerField()
    queue = QueueSerializer()
    average_run_seconds = serializers.FloatField(allow_null=True, help_text="Of this job's finished runs.")
    estimate_seconds = serializers.IntegerField(allow_null=True, help_text="Average run times remaining / concurrency; "
                                                "null until a run of this job has ended.")
    label = serializers.CharField()


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    done = serializers.IntegerField(help_text="Levels annotated (their runs ended), open question or not.")
    valid = serializers.IntegerField(help_text="Levels valid or reviewed: states.valid + states.reviewed.")
    reviewed = serializers.IntegerField()
    states = StatesSerializer(help_text="Levels at each status, as the project page's filters count them.")
    job = JobSerializer()


def with_job(project: DatasetProject, figures: dict[str, Any]) -> dict[str, Any]:
    """*figures* (:func:`selectors.progress`) with where the project's job is."""
    return {**figures, "job": job_progress(project).to_dict()}
