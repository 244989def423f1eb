"""The agents' workflow through the real client against a scripted endpoint over HTTP."""

from __future__ import annotations

import base64
import json

from agents.state import WorkflowOptions
from agents.workflow import StimulusImage, run_workflow
from tests.support.fake_openai import Recorded, Reply, closed_port_url

# A 1x1 PNG.
PNG = base64.b64decode("iVBORw0KGBgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
                       "AAAABJRU5ErkJggg==")


def _is_annotation(request: Recorded) -> bool:
    return request.messages[0].get("role") == "system" and "HED rules" in str(request.messages[0]["content"])


async def test_validator_errors_are_fed_back_until_the_cap(fake_llm, make_model):
    fake_llm.script = ["Sensory-event, Blorp-tag"]
    state = await run_workflow("A red circle appears.", WorkflowOptions(max_validation_attempts=3),
                               llm=make_model(fake_llm.base_url))

    assert state.status == "invalid"
    assert len(state.iterations) == 3
    assert all("TAG_INVALID" in {i.code for i in it.errors} for it in state.iterations)
    annotation_requests = [r for r in fake_llm.chat_requests() if _is_annotation(r)]
    assert len(annotation_requests) == 3
    assert "TAG_INVALID" not in annotation_requests[0].text
    for later in annotation_requests[1:]:
        assert "TAG_INVALID (Blorp-tag)" in later.text and "Hint:" in later.text
    usage = state.usage()
    assert usage["llm_calls"] >= 3 and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


async def test_system_message_is_the_same_for_every_attempt(fake_llm, make_model):
    fake_llm.script = ["Sensory-event, Blorp-tag"]
    await run_workflow("A red circle appears.", WorkflowOptions(max_validation_attempts=2),
                       llm=make_model(fake_llm.base_url))
    systems = {r.messages[0]["content"] for r in fake_llm.chat_requests() if _is_annotation(r)}
    assert len(systems) == 1


async def test_unreachable_endpoint_fails_the_run_with_one_line(make_model):
    url = closed_port_url()
    state = await run_workflow("A red circle appears.", llm=make_model(url, max_retries=0))
    assert state.status == "failed"
    assert state.error.startswith(f"cannot reach the LLM endpoint {url}") and "\n" not in state.error


async def test_json_schema_constraint_limits_tags_to_the_slice(fake_llm, make_model):
    fake_llm.script = [json.dumps({"tags": ["Sensory-event", "Visual-presentation", ["Red", "Circle", "Red"], []]})]
    state = await run_workflow("A red circle appears.", WorkflowOptions(max_total_iterations=1),
                               llm=make_model(fake_llm.base_url, constraint="json_schema"))

    request = next(r for r in fake_llm.chat_requests() if _is_annotation(r))
    schema = request.body["response_format"]["json_schema"]["schema"]
    enum = schema["$defs"]["tag"]["anyOf"][0]["enum"] if "anyOf" in schema["$defs"]["tag"] \
        else schema["$defs"]["tag"]["enum"]
    assert {"Sensory-event", "Red", "Circle"} <= set(enum)
    assert '"tags"' in request.messages[0]["content"]  # the system message asks for the structure
    assert state.iterations[0].annotation == "Sensory-event, Visual-presentation, (Red, Circle)"
    assert state.is_valid


async def test_llama_cpp_constraint_sends_a_grammar(fake_llm, make_model):
    fake_llm.script = ['{"tags": ["Sensory-event", ["Tone", "Frequency/1000 Hz"]]}']
    state = await run_workflow("A 1000 Hz tone is played.", WorkflowOptions(max_total_iterations=1),
                               llm=make_model(fake_llm.base_url, constraint="llama_cpp"))
    request = next(r for r in fake_llm.chat_requests() if _is_annotation(r))
    assert "response_format" not in request.body
    assert request.body["grammar"].startswith("root ::= ")
    assert '"Frequency/"' in request.body["grammar"]
    assert state.iterations[0].annotation == "Sensory-event, (Tone, Frequency/1000 Hz)"


async def test_image_is_sent_as_a_data_url_to_the_vision_model(fake_llm, make_model):
    def answer(request: Recorded) -> str:
        content = request.messages[0]["content"]
        return "A red circle on a grey screen." if isinstance(content, list) else "Sensory-event, Red"

    fake_llm.script = [answer]
    state = await run_workflow("", WorkflowOptions(max_total_iterations=1),
                               llm=make_model(fake_llm.base_url, model="main", agent_models={"vision": "eyes"}),
                               image=StimulusImage(PNG, "image/png"))

    vision = fake_llm.chat_requests()[0]
    assert vision.body["model"] == "eyes"
    parts = vision.messages[0]["content"]
    image_part = next(p for p in parts if p["type"] == "image_url")
    assert image_part["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert state.image_description == "A red circle on a grey screen."
    assert fake_llm.chat_requests()[1].body["model"] == "main"
    vision_call = state.llm_calls[0]
    assert vision_call.agent == "vision" and "<image data:image/png;base64" in vision_call.request
    assert base64.b64encode(PNG).decode() not in vision_call.request  # the record keeps no image data


async def test_vision_falls_back_to_the_annotation_model(fake_llm, make_model):
    fake_llm.script = [Reply("A blue square.")]
    await run_workflow("", WorkflowOptions(max_total_iterations=1), llm=make_model(fake_llm.base_url, model="main"),
                       image=StimulusImage(PNG, "image/png"))
    assert fake_llm.chat_requests()[0].body["model"] == "main"
