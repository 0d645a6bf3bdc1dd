"""The local judge's side of OpenAI's chat-completions protocol: every field honoured or refused by name.

:func:`read_request` turns a request body into a :class:`Request`, or raises :class:`Refused` (HTTP 400,
the field's path in ``param``, as OpenAI names it). Nothing is ignored silently:

- honoured: ``model`` (must be the served one), ``messages`` (system, developer, user and assistant turns;
  content as text or a list of text parts), ``max_tokens`` / ``max_completion_tokens`` (1..64),
  ``temperature`` (0: the likeliest token; above: sampled), ``top_p``, ``seed``, ``stop``, ``logprobs`` /
  ``top_logprobs`` (0..20), ``n`` (1), ``stream`` (false), ``response_format`` (text, or a JSON schema whose
  answer is a choice among labels), ``tools`` + ``tool_choice`` (a function whose arguments are such a
  choice), ``parallel_tool_calls``, ``user`` / ``metadata`` / ``store`` (recorded nowhere: no effect on the
  answer), ``frequency_penalty`` / ``presence_penalty`` (0 only: no penalty is applied);
- a choice among labels (structured output or a tool call) is answered by scoring each label by its log
  probability after the prompt (:mod:`.decoding`) and writing the answer in the requested shape: the label
  in the schema's label field, and in its other text fields how it was chosen;
- anything else (another field, an image part, ``stream: true``, ``n: 2``, a lone surrogate in a text)
  is a 400 naming it.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from bertscore_plugins.errors import Refused
from bertscore_plugins.json_types import JSONObject, JSONValue

MAX_TOKENS = 64
MAX_TOP_LOGPROBS = 20
MAX_STOP = 4
ROLES = ("system", "developer", "user", "assistant")
#: fields read only to check them: they change nothing in the answer, so any value of their type is fine
NO_EFFECT = {"user": str, "metadata": dict, "store": bool, "parallel_tool_calls": bool}
KNOWN_FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "seed",
    "stop",
    "logprobs",
    "top_logprobs",
    "n",
    "stream",
    "response_format",
    "tools",
    "tool_choice",
    "frequency_penalty",
    "presence_penalty",
    *NO_EFFECT,
}


@dataclass(frozen=True)
class Choice:
    """A choice among ``labels`` asked as structured output (``shape`` "json_schema") or as a call of the
    tool ``tool`` (``shape`` "tool"); the answer goes in ``label_key``, the other text fields in ``text_keys``."""

    labels: tuple[str, ...]
    label_key: str
    text_keys: tuple[str, ...]
    shape: str
    tool: str = ""
    #: the request's path to the labels (what a refusal of them names)
    param: str = ""


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, str]]
    max_tokens: int = 16
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()
    logprobs: bool = False
    top_logprobs: int = 0
    choice: Choice | None = None
    extra: dict[str, object] = field(default_factory=dict)


def _integer(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(name, f"{name} must be an integer from {low} to {high}, got {json.dumps(value)[:40]}")
    return value


def _number(value: object, name: str, low: float, high: float) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (math.isfinite(value) and low <= value <= high)
    ):
        raise Refused(name, f"{name} must be a number from {low:g} to {high:g}, got {json.dumps(value)[:40]}")
    return float(value)


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise Refused(name, f"{name} must be a string, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = value[error.start]
        raise Refused(
            name, f"{name} has a lone surrogate (\\u{ord(bad):04x}) at character {error.start}: not text"
        ) from None
    return value


def _content(value: object, name: str) -> str:
    """A message's content: a string, or a list of text parts (joined)."""
    if isinstance(value, str):
        return _text(value, name)
    if not isinstance(value, list) or not value:
        raise Refused(name, f"{name} must be a string or a list of text parts")
    texts = []
    for k, part in enumerate(value):
        where = f"{name}[{k}]"
        if not isinstance(part, dict) or part.get("type") != "text":
            kind = part.get("type") if isinstance(part, dict) else type(part).__name__
            raise Refused(f"{where}.type", f"{where} is a {kind!r} part; this server reads text parts only")
        unknown = set(part) - {"type", "text"}
        if unknown:
            raise Refused(
                f"{where}.{sorted(unknown)[0]}",
                f"{where} has a field this server does not read: {sorted(unknown)[0]}",
            )
        texts.append(_text(part.get("text"), f"{where}.text"))
    return "".join(texts)


def _messages(value: object) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise Refused("messages", "messages must be a non-empty list of {role, content} objects")
    out = []
    for i, message in enumerate(value):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise Refused(where, f"{where} must be an object with role and content")
        role = message.get("role")
        if role not in ROLES:
            raise Refused(
                f"{where}.role",
                f"{where}.role must be one of {', '.join(ROLES)}, got {json.dumps(role)[:40]}",
            )
        unknown = set(message) - {"role", "content", "name"}
        if unknown:
            name = sorted(unknown)[0]
            raise Refused(
                f"{where}.{name}",
                f"{where}.{name} is not read by this server (no tool results or calls in the history)",
            )
        if "name" in message:
            _text(message["name"], f"{where}.name")
        out.append(
            {
                "role": "user" if role in ("system", "developer") else role,
                "content": _content(message.get("content"), f"{where}.content"),
            }
        )
    return out


def _labels(schema: object, where: str) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """(labels, the label field, the other text fields) of an object schema with one choice among labels."""
    if (
        not isinstance(schema, dict)
        or schema.get("type") != "object"
        or not isinstance(schema.get("properties"), dict)
    ):
        raise Refused(
            where,
            f"{where} must be an object schema with properties (this server answers a choice among labels)",
        )
    choice, texts = None, []
    for key, spec in schema["properties"].items():
        options = None
        if isinstance(spec, dict):
            if isinstance(spec.get("enum"), list):
                options = spec["enum"]
            elif isinstance(spec.get("oneOf"), list) and all(
                isinstance(o, dict) and "const" in o for o in spec["oneOf"]
            ):
                options = [o["const"] for o in spec["oneOf"]]
        if options is not None:
            if choice is not None:
                raise Refused(
                    f"{where}.properties.{key}",
                    f"{where} has two choices ({choice[0]}, {key}); this server answers one",
                )
            if (
                len(options) < 2
                or not all(isinstance(o, str) and o.strip() for o in options)
                or len(set(options)) < len(options)
            ):
                raise Refused(
                    f"{where}.properties.{key}",
                    f"{where}.properties.{key} must list at least two distinct labels",
                )
            choice = (key, tuple(_text(o, f"{where}.properties.{key}") for o in options))
        elif isinstance(spec, dict) and spec.get("type") == "string":
            texts.append(key)
        else:
            raise Refused(
                f"{where}.properties.{key}",
                f"{where}.properties.{key} is neither a choice among labels nor a text field",
            )
    if choice is None:
        raise Refused(
            where, f"{where} has no choice among labels (an enum); this server answers only such a choice"
        )
    return choice[1], choice[0], tuple(texts)


def _response_format(value: object) -> Choice | None:
    if not isinstance(value, dict) or value.get("type") not in ("text", "json_schema"):
        kind = value.get("type") if isinstance(value, dict) else value
        raise Refused(
            "response_format.type",
            f"response_format.type must be 'text' or 'json_schema', got {json.dumps(kind)[:40]}",
        )
    if value["type"] == "text":
        return None
    spec = value.get("json_schema")
    if not isinstance(spec, dict):
        raise Refused(
            "response_format.json_schema", "response_format.json_schema must be an object with a schema"
        )
    where = "response_format.json_schema.schema"
    labels, key, texts = _labels(spec.get("schema"), where)
    return Choice(labels, key, texts, "json_schema", param=f"{where}.properties.{key}")


def _tools(tools: object, tool_choice: object) -> Choice | None:
    if not isinstance(tools, list) or not tools:
        raise Refused("tools", "tools must be a non-empty list of functions")
    by_name = {}
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) and tool.get("type") == "function" else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise Refused(
                f"tools[{i}]", f"tools[{i}] must be {{type: function, function: {{name, parameters}}}}"
            )
        by_name[function["name"]] = (i, function)
    if tool_choice == "none":
        return None
    if tool_choice == "required" and len(by_name) == 1:
        name = next(iter(by_name))
    elif (
        isinstance(tool_choice, dict)
        and isinstance(tool_choice.get("function"), dict)
        and tool_choice.get("type") == "function"
    ):
        name = tool_choice["function"].get("name")
        if name not in by_name:
            raise Refused(
                "tool_choice.function.name",
                f"tool_choice names {json.dumps(name)[:40]}, which is not among tools",
            )
    else:
        raise Refused(
            "tool_choice",
            "tool_choice must name the function ({type: function, function: {name}}), or be 'required' with one tool, "
            "or 'none': this server calls a tool only when told which",
        )
    index, function = by_name[name]
    where = f"tools[{index}].function.parameters"
    labels, key, texts = _labels(function.get("parameters"), where)
    return Choice(labels, key, texts, "tool", name, param=f"{where}.properties.{key}")


def read_request(body: object, served_model: str) -> Request:
    """The request ``body`` as this server answers it, or Refused naming the first field it cannot honour."""
    if not isinstance(body, dict):
        raise Refused(None, "the request body must be a JSON object")
    _check_fields(body, served_model)
    logprobs, top = _logprobs(body)
    choice = _choice(body)
    if choice is not None and logprobs:
        raise Refused(
            "logprobs", "logprobs are not given with a choice among labels (see the answer's text fields)"
        )
    return Request(
        messages=_messages(body.get("messages")),
        max_tokens=_max_tokens(body),
        temperature=_number(body.get("temperature", 1.0), "temperature", 0.0, 2.0),
        top_p=_number(body.get("top_p", 1.0), "top_p", 1e-9, 1.0),
        seed=_seed(body.get("seed")),
        stop=_stops(body.get("stop")),
        logprobs=logprobs,
        top_logprobs=top,
        choice=choice,
    )


def _check_fields(body: Mapping[str, object], served_model: str) -> None:
    """Refuse an unknown field, another model, and values this server cannot honour (n, stream, penalties)."""
    for name in body:
        if name not in KNOWN_FIELDS:
            raise Refused(name, f"{name} is not a field this server honours")
    model = body.get("model")
    if model is not None and model != served_model:
        raise Refused(
            "model",
            f"model {json.dumps(model)[:60]} is not served here; this server serves {served_model!r}",
            status=404,
            code="model_not_found",
        )
    for name, kind in NO_EFFECT.items():
        if name in body and not isinstance(body[name], kind):
            raise Refused(name, f"{name} must be a {kind.__name__}")
    for name in ("frequency_penalty", "presence_penalty"):
        if name in body and _number(body[name], name, -2, 2) != 0:
            raise Refused(name, f"{name} must be 0: this server applies no penalty")
    if body.get("n", 1) != 1 or isinstance(body.get("n"), bool):
        raise Refused("n", "n must be 1: this server writes one answer")
    if body.get("stream", False) is not False:
        raise Refused("stream", "stream must be false: this server answers in one piece")


def _max_tokens(body: Mapping[str, object]) -> int:
    if "max_tokens" in body and "max_completion_tokens" in body:
        raise Refused("max_completion_tokens", "give max_tokens or max_completion_tokens, not both")
    name = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
    value = body.get(name)
    return 16 if value is None else _integer(value, name, 1, MAX_TOKENS)


def _logprobs(body: Mapping[str, object]) -> tuple[bool, int]:
    logprobs = body.get("logprobs")
    logprobs = False if logprobs is None else logprobs
    if not isinstance(logprobs, bool):
        raise Refused("logprobs", "logprobs must be true or false")
    top = body.get("top_logprobs")
    top = 0 if top is None else _integer(top, "top_logprobs", 0, MAX_TOP_LOGPROBS)
    if top and not logprobs:
        raise Refused("top_logprobs", "top_logprobs needs logprobs: true")
    return logprobs, top


def _stops(stop: object) -> tuple[str, ...]:
    stops = () if stop is None else (stop,) if isinstance(stop, str) else stop
    if (
        not isinstance(stops, (list, tuple))
        or len(stops) > MAX_STOP
        or not all(isinstance(s, str) and s for s in stops)
    ):
        raise Refused("stop", f"stop must be a non-empty string or a list of at most {MAX_STOP}")
    return tuple(_text(s, "stop") for s in stops)


def _seed(seed: object) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise Refused("seed", "seed must be an integer")
    return seed


def _choice(body: Mapping[str, object]) -> Choice | None:
    """The choice among labels asked by ``response_format`` or ``tools``, or None for free text."""
    choice = None
    if body.get("response_format") is not None:
        choice = _response_format(body["response_format"])
    if body.get("tools") is not None:
        if choice is not None:
            raise Refused("tools", "ask for response_format or tools, not both")
        return _tools(body["tools"], body.get("tool_choice", "auto"))
    if body.get("tool_choice") is not None:
        raise Refused("tool_choice", "tool_choice needs tools")
    return choice


def completion(
    model: str,
    message: JSONObject,
    finish_reason: str,
    prompt_tokens: int,
    completion_tokens: int,
    logprobs: JSONValue = None,
) -> JSONObject:
    """A chat-completions response body."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": logprobs}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tempered(probabilities: list[float], temperature: float) -> list[float]:
    """Weights ``p ** (1 / temperature)``, scaled so the likeliest is 1: finite for every temperature above
    0 (at 1e-300 the plain power underflows every weight to 0 and sampling had nothing to choose from)."""
    logs = [math.log(p) if p > 0.0 else -math.inf for p in probabilities]
    peak = max(logs)
    return [math.exp((value - peak) / temperature) if value > -math.inf else 0.0 for value in logs]


def choice_message(
    choice: Choice, probabilities: list[float], model: str, temperature: float, seed: int | None
) -> JSONObject:
    """The assistant message answering ``choice``: the likeliest label (sampled above temperature 0)."""
    import random

    if temperature > 0.0:
        index = random.Random(seed).choices(
            range(len(probabilities)), weights=tempered(probabilities, temperature)
        )[0]
    else:
        index = max(range(len(probabilities)), key=probabilities.__getitem__)
    label = choice.labels[index]
    how = ", ".join(f"p({name})={p:.3f}" for name, p in zip(choice.labels, probabilities, strict=True))
    text = f"{model} scored each label by log probability after the prompt: {how}; chose {label!r}"
    answer = {key: text for key in choice.text_keys}
    answer[choice.label_key] = label
    arguments = json.dumps(answer)
    if choice.shape == "tool":
        call: JSONObject = {
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": choice.tool, "arguments": arguments},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": arguments}
