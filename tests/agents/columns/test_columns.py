"""The column agent over HTTP against the scripted OpenAI-compatible server: one request per column, one more
per feedback round, the task's context in the prompt, and every level valid in the end."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agents.columns import (
    MAX_LEVELS_PER_REQUEST,
    MIN_LEVELS_PER_REQUEST,
    ColumnContext,
    ColumnLevel,
    OtherColumn,
    annotate_column,
)
from agents.llm.openai_model import OpenAIChatModel
from agents.llm.providers import ProviderConfig
from agents.state import Draft, WorkflowOptions
from agents.validation import validate_hed
from agents.workflow import run_workflow
from tests.support.fake_openai import FakeOpenAI, Recorded, Reply, closed_port_url
from tests.support.llm import ScriptedLLM

SCHEMA = "8.2.0"
FACE = "Sensory-event, Visual-presentation, (Face, Image)"
HOUSE = "Sensory-event, Visual-presentation, (Building, Image)"
PRESS = "Agent-action, Participant-response, (Experiment-participant, (Press, Push-button))"
CONTEXT = ColumnContext(
    column="event_type", description="What happened on the screen or the keyboard", long_name="Event category",
    readme="Zorblat study: participants watch faces and houses on a screen while their EEG is recorded.",
    task_name="FaceHouse", task_description="Passive viewing of faces and houses, with a button press on targets.",
    instructions="Press the button whenever a house appears.",
    levels=(ColumnLevel("show_portrait", "A face appears in the centre of the screen.", 40),
            ColumnLevel("show_house", "A house appears in the centre of the screen.", 20),
            ColumnLevel("press", "event type: press", 12, made_up=True)),
    other_columns=(OtherColumn("hand", "categorical", "The hand that pressed", ("left", "right")),
                   OtherColumn("response_time", "value", "Seconds from the stimulus to the press", ("0.43", "0.51"))))


def reply(levels: dict[str, object], **extra: object) -> str:
    return json.dumps({"role": "event", "levels": levels, "definitions": {}, "questions": [], **extra})


def is_column_request(request: Recorded) -> bool:
    return "one column of a BIDS events file" in str(request.messages[0]["content"])


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


def model(base_url: str, **overrides: object) -> OpenAIChatModel:
    values = {"api_key": "k", "model": "m", "timeout": 5.0, "max_retries": 0, **overrides}
    return OpenAIChatModel(ProviderConfig(base_url=base_url, **values))


def assert_valid(result) -> None:
    for draft in result.drafts.values():
        assert draft.annotation and not [i for i in validate_hed(draft.annotation, SCHEMA) if i.is_error], draft


async def test_a_column_whose_reply_is_valid_costs_one_request(fake):
    fake.script = [reply({"show_portrait": FACE, "show_house": HOUSE, "press": PRESS})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    assert len(fake.chat_requests()) == 1 and result.requests == 1
    assert {v: d.annotation for v, d in result.drafts.items()} == {"show_portrait": FACE, "show_house": HOUSE,
                                                                     "press": PRESS}
    assert {d.source for d in result.drafts.values()} == {"model"} and result.role == "event"
    [call] = result.calls
    assert call.model == "m" and call.prompt_tokens > 0 and "show_house" in call.request and not call.error


async def test_the_prompt_carries_the_study_the_task_the_siblings_and_the_other_columns(fake):
    fake.script = [reply({"show_portrait": FACE, "show_house": HOUSE, "press": PRESS})]
    await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    [request] = fake.chat_requests()
    text = request.text
    assert "Zorblat study" in text  # the README
    assert "Passive viewing of faces and houses" in text and "Press the button whenever a house appears" in text
    assert "Event category" in text and "What happened on the screen" in text
    for sibling in ("show_portrait: A face appears", "show_house: A house appears", "press: event type: press"):
        assert sibling in text
    assert "(made up from the names)" in text and "[40]" in text
    assert "hand (categorical): The hand that pressed (values: left, right)" in text
    assert "response_time (value)" in text
    assert "Write the HED of these 3 levels: show_portrait, show_house, press" in text


async def test_invalid_and_missing_levels_go_back_in_one_follow_up(fake):
    first_reply = reply({"show_portrait": FACE, "show_house": "Sensory-event, Blorp-house"})
    fake.script = [first_reply, reply({"show_house": HOUSE, "press": PRESS})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    first, second = fake.chat_requests()
    assert result.requests == 2
    # The follow-up continues the conversation: the first request, the model's reply, then the errors.
    assert second.messages[:2] == first.messages
    assert second.messages[2] == {"role": "assistant", "content": first_reply}
    follow_up = second.messages[-1]["content"]
    assert "TAG_INVALID (Blorp-house)" in follow_up and "Hint:" in follow_up
    assert "- press: no HED was given." in follow_up
    assert follow_up.endswith("for these levels only: show_house, press")
    assert "show_portrait" not in follow_up  # a valid level is not asked again
    assert result.drafts["show_house"].annotation == HOUSE and result.drafts["show_house"].attempts == 2
    assert result.drafts["show_portrait"].attempts == 1
    assert {d.source for d in result.drafts.values()} == {"model"}
    assert_valid(result)


async def test_each_follow_up_carries_the_request_the_last_reply_and_the_errors_only(fake):
    fake.script = [reply({"show_portrait": FACE, "show_house": "Blorp-one", "press": PRESS}),
                   reply({"show_house": "Blorp-two"}), reply({"show_house": HOUSE})]
    await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    first, second, third = fake.chat_requests()
    assert len(third.messages) == len(second.messages) == 4 and third.messages[:2] == first.messages
    assert "Blorp-two" in third.messages[2]["content"] and "Blorp-one" not in third.text
    assert third.messages[3]["content"].startswith("Attempt 3.")


async def test_a_reply_that_is_not_json_is_fed_back_and_asked_again(fake):
    fake.script = ["Sure! Show face is a sensory event and press is an action.",
                   reply({"show_portrait": FACE, "show_house": HOUSE, "press": PRESS})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    assert len(fake.chat_requests()) == 2
    follow_up = fake.chat_requests()[1].messages[-1]["content"]
    assert "could not be read" in follow_up and follow_up.endswith("show_portrait, show_house, press")
    assert {d.source for d in result.drafts.values()} == {"model"}
    assert_valid(result)


async def test_a_reply_cut_short_keeps_the_levels_it_finished(fake):
    whole = reply({"show_portrait": FACE, "show_house": HOUSE, "press": PRESS})
    fake.script = [whole[: whole.index(HOUSE) + len(HOUSE) + 8], reply({"press": PRESS})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    assert len(fake.chat_requests()) == 2
    assert fake.chat_requests()[1].messages[-1]["content"].endswith("for these levels only: press")
    assert result.drafts["show_house"].annotation == HOUSE and result.drafts["press"].annotation == PRESS


async def test_levels_still_invalid_at_the_cap_get_the_offline_annotation(fake):
    fake.script = [reply({"show_portrait": FACE, "show_house": "Blorp", "press": "Sensory-event, ((("})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA, max_attempts=3)

    assert len(fake.chat_requests()) == 3  # the first request and one per feedback round
    assert result.drafts["show_portrait"].source == "model"
    for value in ("show_house", "press"):
        draft = result.drafts[value]
        assert draft.source == "offline" and draft.attempts == 3 and draft.issues
    assert "TAG_INVALID" in {i.code for i in result.drafts["show_house"].issues}
    assert_valid(result)


async def test_siblings_given_the_same_hed_are_asked_to_differ(fake):
    fake.script = [reply({"show_portrait": FACE, "show_house": FACE, "press": PRESS}),
                   reply({"show_portrait": FACE, "show_house": HOUSE})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    assert len(fake.chat_requests()) == 2
    follow_up = fake.chat_requests()[1].messages[-1]["content"]
    assert "SAME_AS_SIBLING" in follow_up and follow_up.endswith("show_portrait, show_house")
    assert result.drafts["show_house"].annotation == HOUSE and result.drafts["show_portrait"].annotation == FACE


async def test_definitions_are_expanded_into_the_levels_that_use_them(fake):
    fake.script = [reply({"show_portrait": "Sensory-event, (Def/Centre-image, Face)", "show_house":
                          "Sensory-event, (Def/Centre-image, Building)", "press": PRESS},
                         definitions={"Centre-image": "(Definition/Centre-image, (Visual-presentation, Image))"})]
    result = await annotate_column(CONTEXT, model(fake.base_url), schema_version=SCHEMA)

    assert len(fake.chat_requests()) == 1
    assert result.definitions == {"Centre-image": "Visual-presentation, Image"}
    assert result.drafts["show_portrait"].annotation == "Sensory-event, ((Visual-presentation, Image), Face)"
    assert_valid(result)


async def test_levels_already_annotated_are_shown_not_asked_for(fake):
    context = ColumnContext(column="hand", levels=(ColumnLevel("left", "The left hand.", annotation="Hand, Label/Left"),
                                                   ColumnLevel("right", "The right hand.")))
    fake.script = [reply({"right": "Hand, Label/Right"})]
    result = await annotate_column(context, model(fake.base_url), schema_version=SCHEMA)

    [request] = fake.chat_requests()
    assert "- left: Hand, Label/Left" in request.text and request.text.endswith("these 1 levels: right")
    assert list(result.drafts) == ["right"]


async def test_a_long_column_is_asked_for_in_batches(fake):
    levels = tuple(ColumnLevel(f"code_{n:02d}", f"Code {n}.") for n in range(MAX_LEVELS_PER_REQUEST + 5))

    def answer(request: Recorded) -> str:
        asked = request.text.rsplit(": ", 1)[1].split(", ")
        return reply({value: f"Sensory-event, Label/{value}" for value in asked})

    fake.script = [answer]
    result = await annotate_column(ColumnContext(column="code", levels=levels), model(fake.base_url),
                                   schema_version=SCHEMA)
    assert len(fake.chat_requests()) == 2 and len(result.drafts) == len(levels)
    assert {d.source for d in result.drafts.values()} == {"model"}
    # Each batch still sees the whole column.
    assert all(f"code_{len(levels) - 1:02d}: Code" in r.text for r in fake.chat_requests())


async def test_a_batch_the_model_cannot_answer_in_time_is_asked_again_in_halves(fake):
    # A slow local model: twenty levels time out where a handful are answered.
    levels = tuple(ColumnLevel(f"code_{n:02d}", f"Code {n}.") for n in range(MIN_LEVELS_PER_REQUEST * 2 + 2))

    def answer(request: Recorded) -> Reply:
        asked = request.text.rsplit(": ", 1)[1].split(", ")
        if len(asked) > MIN_LEVELS_PER_REQUEST + 1:
            return Reply(hang=True)
        return Reply(text=reply({value: f"Sensory-event, Label/{value}" for value in asked}))

    fake.script = [answer]
    result = await annotate_column(ColumnContext(column="code", levels=levels), model(fake.base_url, timeout=0.5),
                                   schema_version=SCHEMA)
    sizes = [len(r.text.rsplit(": ", 1)[1].split(", ")) for r in fake.chat_requests()]
    assert sizes == [10, 5, 5]
    assert {d.source for d in result.drafts.values()} == {"model"} and len(result.drafts) == len(levels)
    assert not result.error and "did not answer within" in result.calls[0].error


async def test_json_schema_constraint_asks_for_exactly_the_pending_levels(fake):
    fake.script = [json.dumps({"role": "event", "questions": [], "levels": {
        "show_portrait": ["Sensory-event", "Visual-presentation", ["Face", ["Center-of", "Computer-screen"]]],
        "show_house": ["Sensory-event", "Visual-presentation", ["Building", "Blorp", ["Center-of", "Computer-screen"]]],
        "press": ["Agent-action", "Participant-response", ["Experiment-participant", "Press"]]}})]
    result = await annotate_column(CONTEXT, model(fake.base_url, constraint="json_schema"), schema_version=SCHEMA)

    [request] = fake.chat_requests()
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["levels"]["required"] == ["show_portrait", "show_house", "press"]
    assert '"levels"' in request.messages[0]["content"]
    # A tag outside the offered slice is dropped, as for single annotations.
    assert result.drafts["show_house"].annotation == ("Sensory-event, Visual-presentation, "
                                                      "(Building, (Center-of, Computer-screen))")
    assert result.drafts["press"].annotation == "Agent-action, Participant-response, (Experiment-participant, Press)"
    assert_valid(result)


async def test_llama_cpp_constraint_sends_a_grammar_naming_each_level(fake):
    fake.script = [json.dumps({"role": "modifier", "levels": {"left": ["Hand", "Label/Left"],
                                                              "right": ["Hand", "Label/Right"]},
                               "questions": [{"level": "left", "question": "Left of what?"}]})]
    context = ColumnContext(column="hand", levels=(ColumnLevel("left", "The left hand."),
                                                   ColumnLevel("right", "The right hand.")))
    result = await annotate_column(context, model(fake.base_url, constraint="llama_cpp"), schema_version=SCHEMA)

    [request] = fake.chat_requests()
    grammar = request.body["grammar"]
    assert grammar.startswith("root ::= ") and '"\\"left\\": " annotation' in grammar
    assert result.role == "modifier" and result.questions == [("left", "Left of what?")]
    assert result.drafts["left"].question == "Left of what?"
    assert {d.annotation for d in result.drafts.values()} == {"Hand, Label/Left", "Hand, Label/Right"}


async def test_an_unreachable_model_leaves_valid_offline_drafts_and_says_why():
    url = closed_port_url()
    result = await annotate_column(CONTEXT, model(url), schema_version=SCHEMA)

    assert result.error.startswith(f"cannot reach the LLM endpoint {url}")
    [call] = result.calls
    assert call.error and "show_portrait" in call.request
    assert {d.source for d in result.drafts.values()} == {"offline"}
    assert_valid(result)


# --- the workflow's draft ---------------------------------------------------------------------


async def test_a_run_with_a_draft_makes_no_request_and_validates_and_evaluates_it():
    llm = ScriptedLLM({"annotation": ["Sensory-event"], "evaluation": ['{"faithful": false, "feedback": "no"}']})
    state = await run_workflow("A face appears in the centre of the screen.", WorkflowOptions(schema_version=SCHEMA),
                               llm=llm, draft=Draft(FACE, note="Drafted with column `event_type`."))

    # Judged by the rule-based checker and kept: a refinement blind to the siblings would undo the column's work.
    assert llm.calls_for("annotation") == [] and llm.calls_for("evaluation") == []
    assert state.status == "succeeded" and state.annotation == FACE and state.is_valid
    first, validation, evaluation = state.steps
    assert (first.agent, first.action) == ("annotation", "Took the column draft as attempt 1")
    assert first.feedback == "Drafted with column `event_type`." and first.output == FACE
    assert (validation.agent, validation.ok, evaluation.agent) == ("validation", True, "evaluation")
    assert "Drafted with column `event_type`." in state.notes


async def test_an_invalid_draft_is_fed_back_to_the_annotator_like_any_attempt():
    llm = ScriptedLLM({"annotation": [FACE], "feedback": ["Use a schema tag."],
                       "evaluation": ['{"faithful": true, "feedback": ""}']})
    state = await run_workflow("A face appears.", WorkflowOptions(schema_version=SCHEMA), llm=llm,
                               draft=Draft("Sensory-event, Blorp-face"))

    assert [it.annotation for it in state.iterations] == ["Sensory-event, Blorp-face", FACE]
    assert len(llm.calls_for("annotation")) == 1
    assert "Blorp-face" in str(llm.calls_for("annotation")[0])
    assert state.is_valid
