"""A small client for OpenAI-compatible chat-completions endpoints (vLLM, Ollama, hosted APIs).

Retries connection errors, timeouts, HTTP 429 and 5xx, and unusable bodies, with
exponential backoff. The API key is read from an environment variable and is never
put into an error message, a log line or an output file.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import httpx

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class EndpointError(RuntimeError):
    """A request that still failed after every retry."""


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    retries: int = 4
    backoff: float = 0.5  # seconds before the first retry; doubles each time, capped at 30 s

    def headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env)
        return {"Authorization": f"Bearer {key}"} if key else {}

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def chat(endpoint: Endpoint, messages: list[dict], temperature: float = 0.0, max_tokens: int = 512,
         client: httpx.Client | None = None, sleep=time.sleep) -> str:
    """One completion's text; raises EndpointError after the last retry."""
    body = {"model": endpoint.model, "messages": messages, "temperature": temperature,
            "max_tokens": max_tokens}
    owned = client is None
    client = client or httpx.Client(timeout=endpoint.timeout)
    last = "no attempt"
    try:
        for attempt in range(endpoint.retries + 1):
            if attempt:
                sleep(min(30.0, endpoint.backoff * 2 ** (attempt - 1)))
            try:
                response = client.post(endpoint.url, json=body, headers=endpoint.headers(),
                                       timeout=endpoint.timeout)
            except httpx.TimeoutException:
                last = f"timed out after {endpoint.timeout:.0f} s"
                continue
            except httpx.HTTPError as err:
                last = f"{err.__class__.__name__}"
                continue
            if response.status_code in RETRY_STATUS:
                last = f"HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise EndpointError(f"{endpoint.url} answered HTTP {response.status_code}: "
                                    f"{response.text[:200]}")
            try:
                return response.json()["choices"][0]["message"]["content"] or ""
            except (ValueError, KeyError, IndexError, TypeError):
                last = "a body that is not a chat completion"
                continue
        raise EndpointError(f"{endpoint.url} failed {endpoint.retries + 1} times; last: {last}")
    finally:
        if owned:
            client.close()
