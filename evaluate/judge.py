"""The LLM judge: asked only when the deterministic parser finds no answer.

Each judge reads the question, the options (if any) and the model's response, and
replies with the final answer alone. With several judges, an answer is accepted
when at least ``agree`` of them give the same one (CoreCognition's k-of-n rule).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cogforge.evaluate.client import Endpoint, EndpointError, chat
from cogforge.evaluate.extract import extract

PROMPT = """You extract the final answer from a model's response to a question.
Question:
{question}
{options}
Response:
{response}

Reply with the final answer only: {form}. If the response gives no answer, reply NONE."""


@dataclass(frozen=True)
class Judges:
    endpoints: tuple[Endpoint, ...]
    agree: int = 1

    def __post_init__(self):
        if not 1 <= self.agree <= len(self.endpoints):
            raise ValueError(f"--judge-agree must be between 1 and the number of judges ({len(self.endpoints)})")


def ask(judges: Judges, question: str, options: list[str] | None, response: str) -> tuple[str | None, dict]:
    """(answer or None, a record of what each judge said)."""
    listed = "Options:\n" + "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options)) if options else ""
    form = "the option letter" if options else "a short answer, e.g. a caption"
    prompt = PROMPT.format(question=question, options=listed, response=response, form=form)
    said = []
    for endpoint in judges.endpoints:
        try:
            text = chat(endpoint, [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=64)
        except EndpointError as err:
            said.append({"judge": endpoint.model, "error": str(err)})
            continue
        answer, _ = extract(text, options) if text.strip().upper() != "NONE" else (None, "none")
        said.append({"judge": endpoint.model, "raw": text, "answer": answer})
    votes = Counter(s["answer"] for s in said if s.get("answer"))
    if votes:
        answer, n = votes.most_common(1)[0]
        if n >= judges.agree:
            return answer, {"judges": said, "agreeing": n}
    return None, {"judges": said, "agreeing": max(votes.values(), default=0)}
