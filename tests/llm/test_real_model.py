"""A real (tiny) model: SmolLM2-135M behind the llama.cpp server, under the llama_cpp grammar constraint."""

from __future__ import annotations

import pytest

from agents.llm.openai_model import OpenAIChatModel
from agents.llm.providers import resolve_config
from agents.state import WorkflowOptions
from agents.workflow import run_workflow

pytestmark = pytest.mark.llm

DESCRIPTIONS = [
    "A red circle appears on the left side of the screen.",
    "The participant presses the left mouse button.",
    "A 1000 Hz tone is played through the headphones.",
    "A green fixation cross is shown in the center of the screen.",
    "Feedback: the word 'correct' is displayed in white.",
]


@pytest.fixture(scope="module")
def smollm2(llama_server) -> OpenAIChatModel:
    # The same path as a deployment: settings-style values, the llama.cpp preset, the grammar constraint.
    config = resolve_config({"PROVIDER": "llamacpp", "BASE_URL": llama_server, "CONSTRAINT": "llama_cpp",
                             "TIMEOUT": 300, "MAX_RETRIES": 0, "MAX_TOKENS": 200})
    assert config is not None and config.constraint == "llama_cpp"
    return OpenAIChatModel(config)


@pytest.mark.parametrize("description", DESCRIPTIONS)
async def test_constrained_smollm2_annotates_end_to_end(smollm2, description):
    # One refinement round for the first description; one attempt for the rest keeps the suite quick.
    attempts = 2 if description == DESCRIPTIONS[0] else 1
    options = WorkflowOptions(max_validation_attempts=attempts, max_total_iterations=attempts)
    state = await run_workflow(description, options, llm=smollm2)

    assert state.status in {"succeeded", "invalid"}, state.error
    assert state.iterations and state.iterations[0].annotation, "the grammar always yields at least one tag"
    codes = {issue.code for it in state.iterations for issue in it.issues}
    assert "TAG_INVALID" not in codes and "PARSE_ERROR" not in codes
    annotation_calls = [c for c in state.llm_calls if c.agent == "annotation"]
    assert annotation_calls and all(c.prompt_tokens > 0 and c.completion_tokens > 0 for c in annotation_calls)
    assert state.usage()["prompt_tokens"] > 0
