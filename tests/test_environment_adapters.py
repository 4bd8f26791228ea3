"""The training streams where people train and evaluate, run by each library's own code
against a real OpenAI-compatible server on loopback ("Train with cogforge").

The server (``http.server`` in a thread, ``POST /v1/chat/completions``) finds the stream item
a request shows by its question text and the bytes of its images, and answers with the
key's letter for items at even indices and another option's letter at odd ones, so the
expected reward of item ``i`` is 1 - i % 2.

* verifiers 0.4 (in .venv): the taskset's tasks, taken through the library's own views; each
  prompt goes to the server through verifiers' own ``EvalClient`` (chat dialect), the reply
  is committed to a ``vf.Trace`` as a rollout commits it, and ``Task.score`` (what a rollout
  and ``vf-replay`` call) runs the ``correct`` reward.
* inspect_ai 0.3.285 (in .venv-inspect, with the session's wheel of cogforge): inspect's own
  ``eval(task, model="openai/...")`` with the server as the model's base URL; the log's
  per-sample scores and accuracy.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from cogforge import environments as env
from chat_server import ChatServer
from conftest import ROOT, field_env, install_wheel, once

STREAM = {"benchmark": "corecognition", "task": ["boundary", "hierarchy"], "seed": 5, "size": 6}
INSPECT_VENV = ROOT / ".venv-inspect"


def _key(text: str, images: list[bytes]) -> str:
    return hashlib.sha256(json.dumps([text, [hashlib.sha256(b).hexdigest() for b in images]]).encode()).hexdigest()


def letter(item: dict, right: bool) -> str:
    k = item["options"].index(item["answer"])
    return chr(ord("A") + (k if right else (k + 1) % len(item["options"])))


class KeyServer(ChatServer):
    """Answers a chat completion about stream item ``i`` with its key's letter when ``i`` is
    even, with another option's letter when it is odd."""

    def __init__(self, items: list[dict]):
        super().__init__()
        self.replies = {_key(it["question"], it["images"]): (it["index"], letter(it, it["index"] % 2 == 0))
                        for it in items}
        self.asked: list[int] = []

    def answer(self, body: dict) -> str:
        (message,) = [m for m in body["messages"] if m["role"] == "user"]
        text = "".join(p["text"] for p in message["content"] if p["type"] == "text")
        images = [base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
                  for p in message["content"] if p["type"] == "image_url"]
        index, reply = self.replies.get(_key(text, images), (None, "I cannot see the item"))
        self.asked.append(index)
        return reply


@pytest.fixture(scope="module")
def stream():
    return env.open(STREAM["benchmark"], task=STREAM["task"], seed=STREAM["seed"], size=STREAM["size"])


def test_the_verifiers_taskset_scores_replies_from_a_loopback_model_with_its_own_code(stream, monkeypatch):
    import verifiers.v1 as vf
    from verifiers.v1.dialects import ChatDialect
    from verifiers.v1.dialects.chat import message_to_wire
    from verifiers.v1.graph import prepare_turn
    from verifiers.v1.state import state_cls
    from verifiers.v1.trace import AgentInfo, TraceTask

    from cogforge.environments.adapters import verifiers_environment

    taskset = verifiers_environment(stream)
    assert isinstance(taskset, vf.Taskset) and taskset.bounded
    tasks = list(taskset.take(STREAM["size"]))
    assert [t.data.idx for t in tasks] == [t.data.index for t in tasks] == list(range(STREAM["size"]))
    first = tasks[0].data.prompt[0]
    assert first.content[0].text == stream[0]["question"]
    assert base64.b64decode(first.content[1].image_url.url.removeprefix("data:image/png;base64,")) == stream[0]["images"][0]
    endless = verifiers_environment(env.open("carv", seed=1))
    assert not endless.bounded and [t.data.index for t in endless.take(2)] == [0, 1]

    monkeypatch.setenv("COGFORGE_TEST_KEY", "not-a-key")
    items = [stream[i] for i in range(STREAM["size"])]

    async def rollouts(url: str) -> list[vf.Trace]:
        client = vf.resolve_client(vf.EvalClientConfig(base_url=url, api_key_var="COGFORGE_TEST_KEY"))
        traces = []
        try:
            for task in tasks:
                prompt = list(task.data.prompt)
                response = await client.get_response(ChatDialect(), {"model": "gold", "messages": [
                    message_to_wire(m) for m in prompt]}, vf.SamplingConfig())
                trace = vf.Trace(task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
                                 state=state_cls(type(task))(), agent=AgentInfo(config=vf.AgentConfig(model="gold")))
                prepare_turn(trace, prompt).commit(response)
                await task.score(trace)
                traces.append(trace)
        finally:
            await client.close()
        return traces

    with KeyServer(items) as server:
        traces = asyncio.run(rollouts(server.url))
    assert server.asked == list(range(STREAM["size"]))
    assert [t.last_reply for t in traces] == [letter(it, i % 2 == 0) for i, it in enumerate(items)]
    assert [t.reward for t in traces] == [1.0 - i % 2 for i in range(STREAM["size"])]
    assert all(set(t.rewards) == {"correct"} for t in traces)


INSPECT_RUN = """
import json, sys
from inspect_ai import eval
from cogforge import environments
from cogforge.environments.adapters import inspect_task

spec, url, logs = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
stream = environments.open(spec["benchmark"], task=spec["task"], seed=spec["seed"], size=spec["size"])
(log,) = eval(inspect_task(stream), model="openai/gold", model_base_url=url, model_args={"responses_api": False},
              log_dir=logs, display="none",
              max_connections=2)
if log.status != "success":
    sys.exit(f"inspect's eval: {log.status}: {log.error}")
print(json.dumps({"status": log.status, "accuracy": log.results.scores[0].metrics["accuracy"].value,
                  "scores": {s.id: s.scores["cogforge_score"].value for s in log.samples},
                  "targets": {s.id: s.target for s in log.samples}}))
"""


@pytest.fixture(scope="session")
def inspect_python(wheel, tmp_path_factory) -> Path:
    """.venv-inspect's python with the session's wheel installed; `pip check` is clean."""
    python = INSPECT_VENV / "bin" / "python"
    assert python.is_file(), "run `make test` (it installs .venv-inspect)"
    return once(tmp_path_factory, "inspect-python", lambda _: install_wheel(python, wheel))


def test_inspect_evaluates_the_stream_against_a_loopback_model_with_its_own_eval(stream, inspect_python, tmp_path):
    items = [stream[i] for i in range(STREAM["size"])]
    with KeyServer(items) as server:
        proc = subprocess.run([str(inspect_python), "-c", INSPECT_RUN, json.dumps(STREAM), server.url,
                               str(tmp_path / "logs")], capture_output=True, text=True, cwd=tmp_path,
                              env=field_env(OPENAI_API_KEY="not-a-key", INSPECT_LOG_DIR=str(tmp_path / "logs")),
                              timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == "success"
    assert sorted(i for i in server.asked if i is not None) == list(range(STREAM["size"])) and None not in server.asked
    assert result["scores"] == {it["id"]: 1.0 - i % 2 for i, it in enumerate(items)}
    assert result["targets"] == {it["id"]: it["answer"] for it in items}
    assert result["accuracy"] == pytest.approx(0.5)
    assert list((tmp_path / "logs").glob("*.eval")), "inspect wrote no log"
