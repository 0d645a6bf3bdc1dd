"""A small RAG application instrumented the way users instrument theirs, for trace-evaluation tests.

``phoenix.otel.register`` + ``OpenInferenceInstrumentor``-style auto-instrumentation of the OpenAI client
(``openinference-instrumentation-openai``), a manual CHAIN root span and a RETRIEVER span (as LangChain
/ LlamaIndex instrumentors emit them), ``using_metadata`` for the reference. The "LLM" is
:class:`RagStub` on loopback: it answers the application's chat requests with a planned answer and
judges faithfulness (tests/support/stub_judge.py) for every other request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from openinference.semconv.trace import DocumentAttributes, SpanAttributes

from tests.support.stub_judge import MODEL_NAME, StubJudge

SYSTEM_PROMPT = "Answer the question from the context below in one sentence.\n\nContext:\n"


@dataclass(frozen=True)
class Request:
    """One user request: what is asked, what the retriever finds, what the app answers, the gold answer."""

    key: str
    question: str
    documents: tuple[str, ...]  # empty: this request skips retrieval
    answer: str
    reference: Any  # the gold answer: a text, several texts, or None when none was recorded
    expected: str | None  # the disagreement label the evaluation should give (None: no label)


class RagStub(StubJudge):
    """One loopback server for both: the app's chat model and the faithfulness judge."""

    def __init__(self, answers: Mapping[str, str] | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.answers: dict[str, str] = dict(answers or {})
        self.app_requests = 0

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
        messages = body.get("messages") or []
        system = messages[0].get("content", "") if messages and isinstance(messages[0], dict) else ""
        if isinstance(system, str) and system.startswith(SYSTEM_PROMPT):
            self.app_requests += 1
            question = messages[-1]["content"]
            reply = {
                "id": "chatcmpl-app",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", MODEL_NAME),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.answers[question]},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
            return 200, reply, "application"
        return super().answer(body)


@contextmanager
def instrumented_app(endpoint: str, project: str, stub: RagStub) -> Iterator[Any]:
    """Yields ``ask(request) -> root span id``; spans go to ``project`` at ``endpoint`` (OTLP/HTTP).

    The OpenAI instrumentation is removed on exit, so later OpenAI calls in this process (the judge)
    are not traced into the project.
    """
    import openai
    from openinference.instrumentation import using_metadata
    from openinference.instrumentation.openai import OpenAIInstrumentor
    from phoenix.otel import register

    provider = register(
        project_name=project, endpoint=endpoint, batch=False, verbose=False, set_global_tracer_provider=False
    )
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    tracer = provider.get_tracer("rag-app")
    llm = openai.OpenAI(base_url=stub.base_url, api_key="sk-app")

    def ask(request: Request) -> str:
        stub.answers[request.question] = request.answer
        metadata = {"request": request.key}
        if request.reference is not None:
            metadata["reference"] = request.reference
        with (
            using_metadata(metadata),
            tracer.start_as_current_span("rag_query", openinference_span_kind="chain") as root,
        ):
            root.set_input(request.question)
            if request.documents:
                with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as span:
                    span.set_input(request.question)
                    for position, document in enumerate(request.documents):
                        span.set_attribute(
                            f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{position}.{DocumentAttributes.DOCUMENT_CONTENT}",
                            document,
                        )
            completion = llm.chat.completions.create(
                model="rag-app-model",
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT + "\n".join(request.documents)},
                    {"role": "user", "content": request.question},
                ],
            )
            root.set_output(completion.choices[0].message.content)
            return format(root.get_span_context().span_id, "016x")

    try:
        yield ask
    finally:
        provider.force_flush()
        instrumentor.uninstrument()
        provider.shutdown()


def send(endpoint: str, project: str, stub: RagStub, requests: Iterable[Request]) -> dict[str, str]:
    """Run the app on every request; returns ``{root span id: request key}``."""
    with instrumented_app(endpoint, project, stub) as ask:
        return {ask(request): request.key for request in requests}


def metadata_of(span: Mapping[str, Any]) -> dict[str, Any]:
    value = (span.get("attributes") or {}).get(SpanAttributes.METADATA)
    return json.loads(value) if isinstance(value, str) else dict(value or {})
