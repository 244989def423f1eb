"""With a language model configured, a dataset job asks once per categorical column (plus one request per
feedback round), with the task's context, and each level's run starts from its column's draft.

The model is the scripted OpenAI-compatible server, reached through the real client the job builds from
``settings.HEDIT_LLM``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator

import pytest

from annotations.datasets import inventory_edits, services
from annotations.datasets.jobs import run_dataset_job
from annotations.datasets.selectors import level_states
from annotations.models import (
    AgentStepRecord,
    AnnotationSession,
    DatasetLevel,
    DatasetProject,
    DatasetTask,
    Iteration,
    LLMCallRecord,
)
from tests.support.fake_openai import FakeOpenAI, Recorded

pytestmark = pytest.mark.django_db(transaction=True)

HED = {
    "show_star": "Sensory-event, Visual-presentation, (Star, Image)",
    "show_house": "Sensory-event, Visual-presentation, (Building, Image)",
    "press": "Agent-action, Participant-response, (Experiment-participant, (Press, Push-button))",
    "left": "(Hand, Left-side-of)",
    "right": "(Hand, Right-side-of)",
}
FAITHFUL = json.dumps({"faithful": True, "feedback": ""})


def is_column(request: Recorded) -> bool:
    return "one column of a BIDS events file" in str(request.messages[0]["content"])


def is_evaluation(request: Recorded) -> bool:
    return str(request.messages[0]["content"]).startswith("Judge whether a HED annotation")


def asked(request: Recorded) -> list[str]:
    """The levels a column request asks for (the last line of its last message names them)."""
    return str(request.messages[-1]["content"]).rsplit(": ", 1)[1].split(", ")


def column_of(request: Recorded) -> str:
    return "hand" if "left" in asked(request) or "right" in asked(request) else "event_type"


def reply(levels: dict[str, str]) -> str:
    return json.dumps({"role": "event", "levels": levels, "definitions": {}, "questions": []})


def server(column_reply: Callable[[Recorded], str]) -> Callable[[Recorded], str]:
    def answer(request: Recorded) -> str:
        if is_column(request):
            return column_reply(request)
        if is_evaluation(request):
            return FAITHFUL
        return "Sensory-event, Blorp-level"  # a level's own annotate request: none is expected

    return answer


@pytest.fixture
def fake(settings) -> Iterator[FakeOpenAI]:
    model = FakeOpenAI().start()
    settings.HEDIT_LLM = {"BASE_URL": model.base_url, "API_KEY": "k", "MODEL": "m", "MAX_RETRIES": 0, "CACHE_TTL": 0}
    yield model
    model.stop()


def annotate(user, files) -> DatasetProject:
    project = services.import_dataset(user=user, files=files, name="tiny")
    sessions = services.start_annotation(project, user=user, enqueue=False)
    asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 2))
    return project


def test_each_column_is_one_request_and_each_level_run_starts_from_its_draft(user, small_files, fake):
    fake.script = [server(lambda r: reply({v: HED[v] for v in asked(r)}))]
    project = annotate(user, small_files)

    columns = [r for r in fake.chat_requests() if is_column(r)]
    assert sorted(column_of(r) for r in columns) == ["event_type", "hand"]
    # One request per column and none per level: each draft is judged by the rule-based checker and kept.
    assert len(fake.chat_requests()) == len(columns) == 2
    states = {s.level.value: s for s in level_states(project)}
    assert {v: (s.status, s.annotation) for v, s in states.items()} == {v: ("valid", hed) for v, hed in HED.items()}
    for session in AnnotationSession.objects.all():
        first = AgentStepRecord.objects.filter(session=session).exclude(agent="memory").order_by("seq").first()
        assert (first.agent, first.action) == ("annotation", "Took the column draft as attempt 1")
        assert f"column `{session.dataset_level.column.name}`" in first.feedback
        assert Iteration.objects.get(session=session, number=1).annotation == HED[session.dataset_level.value]
    # The column's request is kept with the run of its first level, and counted in that run's usage.
    carrier = AnnotationSession.objects.get(dataset_level__value="press")
    column_calls = LLMCallRecord.objects.filter(session=carrier, iteration=0)
    assert column_calls.count() == 1 and "Write the HED of these 3 levels" in column_calls.get().request
    assert carrier.llm_call_count == 1  # the column's request
    house = AnnotationSession.objects.get(dataset_level__value="show_house")
    assert not LLMCallRecord.objects.filter(session=house, iteration=0).exists()
    assert "stored with the run of level `press`" in " ".join(house.notes)


def test_the_column_request_carries_the_task_context_the_siblings_and_the_other_columns(user, small_files, fake):
    fake.script = [server(lambda r: reply({v: HED[v] for v in asked(r)}))]
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    DatasetTask.objects.filter(project=project).update(context={
        "readme": "The Quuxley face study: faces and houses flash on a monitor.", "task_name": "faces",
        "task_description": "Participants watch faces and houses and press on a house.",
        "instructions": "Press with either hand when a house appears."})
    sessions = services.start_annotation(project, user=user, enqueue=False)
    asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 2))

    [event_type] = [r for r in fake.chat_requests() if is_column(r) and column_of(r) == "event_type"]
    text = event_type.text
    assert "The Quuxley face study" in text
    assert "Participants watch faces and houses and press on a house." in text
    assert "Press with either hand when a house appears." in text
    # Every sibling level with its description, and the other columns with their kinds.
    assert "- show_house: A picture of a house appears in the centre of the screen. [2]" in text
    assert "- press: The participant presses a button. [4]" in text
    assert "- hand (categorical): The hand that pressed (values: left, right)" in text
    assert "- response_time (value): Time from the stimulus to the press" in text
    assert "onset (skip)" not in text


def test_bad_replies_cost_one_request_per_feedback_round_and_every_level_ends_valid(user, small_files, fake):
    def column_reply(request: Recorded) -> str:
        rounds = len([m for m in request.messages if m["role"] == "assistant"])
        if column_of(request) == "hand":
            if rounds == 0:
                return "I think left and right are the hands."
            return reply({v: HED[v] for v in asked(request)})
        if rounds == 0:  # one level invalid, one left out
            return reply({"show_star": HED["show_star"], "show_house": "Sensory-event, Blorp-house"})
        return reply({v: HED[v] for v in asked(request)})

    fake.script = [server(column_reply)]
    project = annotate(user, small_files)

    columns = [r for r in fake.chat_requests() if is_column(r)]
    assert sorted(column_of(r) for r in columns) == ["event_type", "event_type", "hand", "hand"]
    follow_ups = {column_of(r): str(r.messages[-1]["content"]) for r in columns if len(r.messages) > 2}
    assert "could not be read" in follow_ups["hand"]
    assert "TAG_INVALID (Blorp-house)" in follow_ups["event_type"] and "- press: no HED was given." in follow_ups[
        "event_type"]
    assert all(is_column(r) or is_evaluation(r) for r in fake.chat_requests())
    states = {s.level.value: s for s in level_states(project)}
    assert {v: (s.status, s.annotation) for v, s in states.items()} == {v: ("valid", hed) for v, hed in HED.items()}
    assert LLMCallRecord.objects.filter(session__dataset_level__value="press", iteration=0).count() == 2


def test_a_level_the_model_never_gets_right_starts_from_the_offline_annotation(user, small_files, fake):
    def column_reply(request: Recorded) -> str:
        return reply({v: ("Sensory-event, Blorp-house" if v == "show_house" else HED[v]) for v in asked(request)})

    fake.script = [server(column_reply)]
    project = annotate(user, small_files)

    event_type = [r for r in fake.chat_requests() if is_column(r) and column_of(r) == "event_type"]
    assert len(event_type) == 3  # the attempt cap: the first request and two feedback rounds
    house = AnnotationSession.objects.get(dataset_level__value="show_house")
    step = AgentStepRecord.objects.get(session=house, agent="annotation", iteration=1)
    assert "the draft is the offline annotator's" in step.feedback and "TAG_INVALID" in step.feedback
    assert house.is_valid and "Blorp" not in house.final_annotation
    assert all(s.status == "valid" for s in level_states(project))


def test_a_level_run_again_alone_asks_for_that_level_with_its_annotated_siblings_as_context(user, small_files, fake,
                                                                                          settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    fake.script = [server(lambda r: reply({v: HED[v] for v in asked(r)}))]
    project = annotate(user, small_files)
    before = len(fake.chat_requests())
    level = DatasetLevel.objects.get(value="show_house")
    inventory_edits.set_level_description(level, "A photograph of a red brick house fills the screen.")
    session = services.queue_level_run(project, level, user=user)
    asyncio.run(run_dataset_job(project.pk, [str(session.pk)], 1))

    [column] = [r for r in fake.chat_requests()[before:] if is_column(r)]
    assert asked(column) == ["show_house"]
    assert "- show_house: A photograph of a red brick house fills the screen." in column.text
    assert f"- show_star: {HED['show_star']}" in column.text  # an annotated sibling, for consistency
    first = AgentStepRecord.objects.filter(session=session, agent="annotation").order_by("seq").first()
    assert first.action == "Took the column draft as attempt 1"
    assert "Drafted with the 1 level(s) of column `event_type`" in first.feedback


def test_a_job_of_some_levels_asks_for_those_only_and_shows_the_others(user, small_files, fake):
    fake.script = [server(lambda r: reply({v: HED[v] for v in asked(r)}))]
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    press = DatasetLevel.objects.get(value="press")
    sessions = services.start_annotation(project, user=user, levels=[press], enqueue=False)
    asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 1))

    [column] = [r for r in fake.chat_requests() if is_column(r)]
    assert asked(column) == ["press"]
    assert "- show_star: A star appears in the centre of the screen. [4]" in column.text
