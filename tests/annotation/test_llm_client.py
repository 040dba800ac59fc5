"""The openai client against the local OpenAI-compatible endpoint, over HTTP: structured replies
with token counts, every injected fault (retried by the library, or given back as what it is),
scripted accuracy reproducible by its seed, and the key never logged."""

from __future__ import annotations

import logging
import random
import urllib.error

import openai
import pytest

from annotation.llm.client import MissingKey, ModelError, client_for, complete, list_models
from annotation.llm.local import LocalModelServer
from tests.annotation.llm_helpers import admin, connection

SCHEMA = {
    "type": "object",
    "properties": {"label": {"enum": ["pos", "neg", "neu"]}, "score": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["label", "score"],
    "additionalProperties": False,
}


def ask(server, item="i1", model="local-model", **options):
    messages = [{"role": "system", "content": "Label it."}, {"role": "user", "content": f"Item: {item}\n\nText."}]
    return complete(connection(server, model), messages=messages, schema=SCHEMA, **options)


def test_a_reply_follows_the_schema_and_counts_its_tokens(local_model):
    reply = ask(local_model)
    assert reply.content["label"] in ("pos", "neg", "neu") and 1 <= reply.content["score"] <= 5
    assert reply.input_tokens > 10 and reply.output_tokens > 0 and reply.attempts == 1 and not reply.refusal
    assert ask(local_model).content == reply.content  # derived from the request: the same again
    assert "local-model" in list_models(connection(local_model))


@pytest.mark.parametrize("fault", ["429", "500"])
def test_a_rate_limit_or_server_error_is_retried_and_succeeds(local_model, fault):
    admin(local_model, "POST", "faults", {"next": [fault], "retry_after": 0.05})
    reply = ask(local_model, max_retries=2)
    assert reply.content is not None and reply.attempts == 2
    counts = admin(local_model, "GET", "requests")
    assert counts["by_status"] == {fault: 1, "200": 1} and counts["paid"] == 1


def test_what_is_left_after_the_retries_is_one_transient_error(local_model):
    admin(local_model, "POST", "faults", {"next": ["500", "500"]})
    with pytest.raises(ModelError) as raised:
        ask(local_model, max_retries=1)
    assert raised.value.transient and raised.value.status == 500


def test_a_slow_reply_times_out_and_is_asked_again(local_model):
    admin(local_model, "POST", "faults", {"next": ["slow"], "slow_seconds": 1.5})
    with pytest.raises(ModelError) as raised:
        ask(local_model, timeout=0.3, max_retries=0)
    assert raised.value.transient and "no reply within" in str(raised.value)
    admin(local_model, "POST", "faults", {"next": ["slow"], "slow_seconds": 1.5})
    reply = ask(local_model, timeout=0.5, max_retries=1)
    assert reply.content is not None and reply.attempts == 2


def test_malformed_json_and_a_refusal_come_back_as_they_are(local_model):
    admin(local_model, "POST", "faults", {"next": ["malformed", "refusal"]})
    malformed = ask(local_model)
    assert malformed.content is None and malformed.text and not malformed.refusal
    refused = ask(local_model)
    assert refused.content is None and "refusal" in refused.refusal.lower()


def test_rates_of_faults_are_drawn_from_their_seed(local_model):
    rates = {"rates": {"429": 0.2, "500": 0.1, "malformed": 0.1}, "seed": 7, "retry_after": 0.01}
    drawn = []
    for _ in range(2):
        admin(local_model, "POST", "faults", rates)
        drawn.append([local_model.app.faults.take() for _ in range(50)])
    assert drawn[0] == drawn[1] and 5 <= sum(1 for f in drawn[0] if f) <= 40


def scripted_answers(server: LocalModelServer, *, seed: int, accuracy: float, items: int = 300) -> list:
    truth = {f"q{n}": {"label": random.Random(n).choice(["pos", "neg", "neu"])} for n in range(items)}
    admin(server, "POST", "models", {"model": "m", "accuracy": accuracy, "seed": seed, "answers": truth})
    replies = [ask(server, item=f"q{n}", model="m").content["label"] for n in range(items)]
    return [reply == truth[f"q{n}"]["label"] for n, reply in enumerate(replies)], replies


def test_scripted_accuracy_is_right_with_its_probability_and_reproducible_by_seed():
    with LocalModelServer() as first, LocalModelServer() as second:
        right, replies = scripted_answers(first, seed=3, accuracy=0.8)
        again_right, again = scripted_answers(second, seed=3, accuracy=0.8)
        other_right, other = scripted_answers(second, seed=4, accuracy=0.8)
    assert replies == again and replies != other
    assert 0.74 <= sum(right) / len(right) <= 0.86  # 300 draws of p = 0.8: within 2.6 SD


def test_a_bias_takes_the_wrong_answers(local_model):
    truth = {f"q{n}": {"label": "pos"} for n in range(60)}
    admin(local_model, "POST", "models", {"model": "m", "accuracy": 0.5, "bias": {"label": "neg"}, "answers": truth})
    labels = {ask(local_model, item=f"q{n}", model="m").content["label"] for n in range(60)}
    assert labels == {"pos", "neg"}


def test_the_key_comes_from_the_environment_and_is_never_logged(local_model, monkeypatch, caplog):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-secret-key-123")
    caplog.set_level(logging.DEBUG)
    messages = [{"role": "user", "content": "Item: k\n\nText."}]
    reply = complete(connection(local_model, key_env="TEST_LLM_KEY"), messages=messages, schema=SCHEMA)
    assert reply.content is not None
    assert "sk-secret-key-123" not in caplog.text
    monkeypatch.delenv("TEST_LLM_KEY")
    with pytest.raises(MissingKey) as raised:
        complete(connection(local_model, key_env="TEST_LLM_KEY"), messages=messages, schema=SCHEMA)
    assert not raised.value.transient and "TEST_LLM_KEY" in str(raised.value)


def test_the_endpoint_lists_scripted_models_and_refuses_what_it_does_not_answer(local_model):
    admin(local_model, "POST", "models", {"model": "sim-85", "accuracy": 0.85, "answers": {}})
    assert {"local-model", "sim-85"} <= set(list_models(connection(local_model)))
    with pytest.raises(openai.BadRequestError) as raised:  # no structured output asked for
        client_for(connection(local_model)).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    assert "json_schema" in str(raised.value)
    with pytest.raises(urllib.error.HTTPError) as refused:
        admin(local_model, "POST", "faults", {"rates": {"teapot": 0.5}})
    assert refused.value.code == 400 and "teapot" in refused.value.read().decode()
