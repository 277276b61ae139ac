"""Model clients for AtariBench: one method, ``complete(messages) -> str``.

``OpenAIChatClient`` speaks the OpenAI-compatible ``/chat/completions`` API with the standard library
(urllib), so any hosted or local server with that API works (vLLM, llama.cpp server, Ollama, OpenAI,
gateways). Images travel as ``data:image/png;base64`` URLs inside the messages. Timeouts and transient
errors (connection failures, 429, 5xx) are retried with backoff; anything else fails at once with a
:class:`ModelError` that says what the server answered.
"""
from __future__ import annotations

import json
import os
import random
import re
import socket
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod

ENV_ENDPOINT = "ARCADE_LAB_VLM_ENDPOINT"
ENV_MODEL = "ARCADE_LAB_VLM_MODEL"
ENV_KEY = "OPENAI_API_KEY"


class ModelError(RuntimeError):
    """The model could not be asked (network, timeout, HTTP error, a reply without text)."""


class ModelClient(ABC):
    """What the harness needs from a model. ``name`` identifies it in records (``agent:vlm:<name>``)."""

    name: str = "model"

    @abstractmethod
    def complete(self, messages: list[dict]) -> str:
        """The model's reply text to OpenAI-style chat ``messages``; ModelError when there is none."""

    def describe(self) -> dict:
        """Settings worth recording with a run (never secrets)."""
        return {"name": self.name, "client": type(self).__name__}

    def close(self) -> None:
        pass


class OpenAIChatClient(ModelClient):
    def __init__(self, endpoint: str | None = None, model: str | None = None, api_key: str | None = None, *,
                 timeout: float = 120.0, retries: int = 2, backoff: float = 2.0, temperature: float | None = None,
                 max_tokens: int | None = 1024, extra_body: dict | None = None, settings: dict | None = None):
        """Explicit arguments win, then ``settings`` (e.g. the app's settings: ``vlm_endpoint``,
        ``vlm_model``, ``vlm_api_key``), then the environment variables ARCADE_LAB_VLM_ENDPOINT,
        ARCADE_LAB_VLM_MODEL, OPENAI_API_KEY."""
        settings = settings or {}
        endpoint = endpoint or settings.get("vlm_endpoint") or os.environ.get(ENV_ENDPOINT)
        model = model or settings.get("vlm_model") or os.environ.get(ENV_MODEL)
        if not endpoint:
            raise ValueError(f"no model endpoint: pass --endpoint URL or set {ENV_ENDPOINT} "
                             "(e.g. https://api.openai.com/v1 or http://localhost:8000/v1)")
        if not model:
            raise ValueError(f"no model name: pass --model NAME or set {ENV_MODEL}")
        if not re.match(r"^https?://", endpoint):
            raise ValueError(f"endpoint must be an http(s) URL, got {endpoint!r}")
        endpoint = endpoint.rstrip("/")
        self.url = endpoint if endpoint.endswith("/chat/completions") else endpoint + "/chat/completions"
        self.model = self.name = model
        self.api_key = api_key or settings.get("vlm_api_key") or os.environ.get(ENV_KEY) or ""
        if timeout <= 0 or retries < 0:
            raise ValueError("timeout must be > 0 and retries >= 0")
        self.timeout, self.retries, self.backoff = float(timeout), int(retries), float(backoff)
        self.temperature, self.max_tokens = temperature, max_tokens
        self.extra_body = dict(extra_body or {})
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0, "retries": 0}
        self.last_usage: dict = {}

    def describe(self) -> dict:
        return {"name": self.name, "client": "openai-chat", "url": self.url, "timeout": self.timeout,
                "retries": self.retries, "temperature": self.temperature, "max_tokens": self.max_tokens,
                **({"extra_body": self.extra_body} if self.extra_body else {})}

    def _body(self, messages: list[dict]) -> bytes:
        body = {"model": self.model, "messages": messages, **self.extra_body}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        return json.dumps(body).encode()

    def _once(self, data: bytes) -> str:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            payload = resp.read()
        try:
            d = json.loads(payload)
            msg = d["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(f"{self.url}: not a chat-completions reply: {payload[:200]!r}") from None
        self.last_usage = d.get("usage") or {}
        for k in ("prompt_tokens", "completion_tokens"):
            self.usage[k] += int(self.last_usage.get(k) or 0)
        content = msg.get("content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise ModelError(f"{self.url}: reply has no text content (refusal or tool call?): {str(msg)[:200]}")
        return content

    def complete(self, messages: list[dict]) -> str:
        data = self._body(messages)
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.usage["retries"] += 1
                time.sleep(self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random() / 2))
            self.usage["requests"] += 1
            try:
                return self._once(data)
            except urllib.error.HTTPError as e:
                detail = e.read()[:300].decode("utf-8", "replace")
                e.close()
                last = f"HTTP {e.code} from {self.url}: {detail}"
                if e.code != 429 and e.code < 500:  # our request is wrong (key, model, size): retrying won't help
                    raise ModelError(last) from None
            except (TimeoutError, socket.timeout):
                last = f"no reply from {self.url} within {self.timeout:g} s"
            except urllib.error.URLError as e:
                if isinstance(e.reason, (TimeoutError, socket.timeout)):
                    last = f"no reply from {self.url} within {self.timeout:g} s"
                else:
                    last = f"cannot reach {self.url}: {e.reason}"
            except (ConnectionError, OSError) as e:
                last = f"connection to {self.url} failed: {e}"
        raise ModelError(f"{last} (after {self.retries + 1} attempts)")


class ScriptedClient(ModelClient):
    """Replies from a list (cycled) or a function of the messages: tests and dry runs, no network."""

    def __init__(self, replies, name: str = "scripted"):
        self.replies = replies
        self.name = name
        self.calls: list[list[dict]] = []

    def complete(self, messages: list[dict]) -> str:
        self.calls.append(messages)
        if callable(self.replies):
            r = self.replies(messages)
        else:
            r = self.replies[(len(self.calls) - 1) % len(self.replies)]
        if isinstance(r, Exception):
            raise r
        return r


class RandomClient(ModelClient):
    """The paper's random-action baseline as a 'model': a random sequence of 1..max_len valid actions.
    It reads the action names from the prompt, so it needs nothing but the messages."""

    def __init__(self, seed: int = 0, max_len: int = 1):
        self.rng = random.Random(seed)
        self.max_len = max_len
        self.name = "random"

    def complete(self, messages: list[dict]) -> str:
        text = " ".join(p.get("text", "") for m in messages[:1] for p in (m["content"] if isinstance(m["content"], list) else [])
                        if isinstance(p, dict))
        names = re.findall(r"^- ([A-Z]+):", text, re.M) or ["NOOP"]
        n = self.rng.randint(1, self.max_len)
        return "Thought: random.\nActions: " + ", ".join(self.rng.choice(names) for _ in range(n))
