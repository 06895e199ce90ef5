"""The simulator's HTTP routes (Starlette): vLLM's OpenAI-compatible surface over the engine."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .engine import Engine, Sequence
from .faults import FAULT_HEADER, FaultInjector
from .generation import REASONING, plan_output, request_rng
from .groundtruth import GroundTruthLog, RequestRecord
from .metrics import CONTENT_TYPE_LATEST
from .profile import Profile
from .protocol import Parsed, ProtocolError, chat_message, dumps, error_body, group_deltas, parse_chat, parse_completion, usage_body
from .tokenizer import TOKENIZER, render_chat

__all__ = ["create_app", "SimulatedDrop", "SimState"]

DONE = b"data: [DONE]\n\n"


class SimulatedDrop(Exception):
    """Raised inside a response on purpose, so the server cuts the connection mid-response."""


class _EventStream(StreamingResponse):
    """A streaming response that notices a client going away even while it sends nothing.

    (Starlette only watches for the disconnect before ASGI 2.4; a stalled stream must be
    cancelled as soon as the client gives up, so its sequence is aborted like vLLM's.)
    """

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        except BaseExceptionGroup as errors:
            if len(errors.exceptions) == 1:
                raise errors.exceptions[0] from None
            raise


class SimState:
    """Everything the routes share: profile, engine, fault injector, ground-truth log."""

    def __init__(self, profile: Profile, time_scale: float, ground_truth: str | Path | None, bodies: bool = False):
        self.profile = profile
        # The ground truth holds what each request sent (its messages, its x- headers) and the content it was
        # answered with: how a test sees a conversation's history grow, as the engine received it.
        self.bodies = bodies
        self.engine = Engine(profile, time_scale=time_scale)
        self.faults = FaultInjector(profile.faults)
        self.ground_truth = GroundTruthLog(ground_truth)
        self.started = int(time.time())
        self.requests = 0

    def next_request_id(self, request: Request, parsed: Parsed, prefix: str) -> str:
        self.requests += 1
        given = request.headers.get("x-request-id") or parsed.request_id
        if given:
            return f"{prefix}-{given}"
        return f"{prefix}-{request_rng(self.profile.seed, 'request', self.requests).getrandbits(128):032x}"


def _error(message: str, status: int = 400, kind: str = "BadRequestError") -> JSONResponse:
    return JSONResponse(error_body(message, status, kind), status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProtocolError(f"request body is not valid JSON ({err})") from None
    if not isinstance(body, dict):
        raise ProtocolError("request body must be a JSON object")
    return body


def _check_model(state: SimState, parsed: Parsed) -> None:
    served = state.profile.identity.served_model_name
    if parsed.model not in (None, served):
        raise ProtocolError(f"The model `{parsed.model}` does not exist.", 404, "NotFoundError")


class _Generation:
    """One generation request in flight: its sequence, fault, record and stream framing."""

    def __init__(self, state: SimState, seq: Sequence, parsed: Parsed, fault: str | None, record: RequestRecord, chat: bool):
        self.state, self.seq, self.parsed, self.fault, self.record, self.chat = state, seq, parsed, fault, record, chat
        self.fault_pending = fault in ("stall", "malformed", "drop")  # mid-stream faults strike once
        self.reasoning_field = state.profile.output.reasoning_field
        model = state.profile.identity.served_model_name
        kind = "chat.completion.chunk" if chat else "text_completion"
        # Every chunk shares this prefix; only "choices" (and "usage") change.
        self.prefix = f'data: {{"id":{dumps(seq.request_id)},"object":"{kind}","created":{int(time.time())},"model":{dumps(model)}'

    def usage(self) -> dict[str, Any]:
        plan, produced = self.seq.plan, self.seq.produced
        reasoning = sum(1 for k in plan.kinds[:produced] if k == REASONING)
        reported = produced + (1 if self.fault == "wrong-usage" else 0)
        cached = self.seq.cached_tokens
        if cached is not None and self.fault == "wrong-cached":
            cached = cached + 1 if cached < self.seq.prompt_tokens else cached - 1  # one token off the counters
        return usage_body(self.seq.prompt_tokens, reported, reasoning, cached)

    def _chunk(self, choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> bytes:
        tail = f',"choices":{dumps(choices)}' + (f',"usage":{dumps(usage)}' if usage is not None else "")
        return f"{self.prefix}{tail}}}\n\n".encode()

    def _choices(self, start: int, end: int, finish: str | None) -> list[list[dict[str, Any]]]:
        """The ``choices`` lists for output tokens ``start:end`` (the last one carries ``finish``)."""
        plan = self.seq.plan
        if self.chat:
            deltas = group_deltas(plan, start, end, self.reasoning_field)
            if finish is not None and not deltas:
                deltas = [{}] if plan.tool_name else [{"content": ""}]
            out: list[list[dict[str, Any]]] = [[{"index": 0, "delta": d, "logprobs": None, "finish_reason": None}] for d in deltas]
        else:
            out = (
                [[{"index": 0, "text": "".join(plan.texts[start:end]), "logprobs": None, "finish_reason": None, "stop_reason": None}]]
                if end > start or finish
                else []
            )
        if finish is not None and out:
            out[-1][0]["finish_reason"] = finish
            if self.chat:
                out[-1][0]["stop_reason"] = None
        return out

    async def events(self) -> AsyncIterator[bytes]:
        seq, record = self.seq, self.record
        sent = 0
        try:
            if self.chat:
                record.sent("role")
                yield self._chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}])
            while (n := await seq.outbox.get()) is not None:
                end = sent + n
                finish = seq.plan.finish_reason if end >= len(seq.plan) else None
                chunks = self._choices(sent, end, finish)
                if not chunks:
                    record.sent("held", n)  # produced, nothing to show yet (a tool call's head or tail)
                for choices in chunks:
                    record.sent("delta", n)
                    n = 0  # a step's tokens are counted once, on its first event
                    yield self._chunk(choices)
                sent = end
                async for extra in self._stream_fault(sent):
                    yield extra
            if self.parsed.include_usage:
                record.sent("usage")
                yield self._chunk([], self.usage())
            record.sent("done")
            yield DONE
        finally:
            self.close()

    async def _stream_fault(self, sent: int) -> AsyncIterator[bytes]:
        fault, total = self.fault, len(self.seq.plan)
        if not self.fault_pending or sent == 0:
            return
        if fault == "stall":
            self.fault_pending = False
            self.record.sent("stall")
            seconds = self.state.faults.stall_seconds
            self.seq.paused_until = time.monotonic() + seconds
            await asyncio.sleep(seconds)
        elif fault == "malformed":
            self.fault_pending = False
            self.record.sent("malformed")
            yield self.prefix.encode() + b',"choices":[{"index":0,"delta":{"content":\n\n'
        elif fault == "drop" and sent >= total // 2:
            self.record.sent("drop")
            self.state.engine.abort(self.seq)
            raise SimulatedDrop(f"request {self.seq.request_id}: connection dropped by fault injection")

    def close(self) -> None:
        """End of the response, whatever ended it: free the engine's blocks, write ground truth."""
        if not self.seq.finished:
            self.state.engine.abort(self.seq)
        if "end" not in self.record.fields:
            seq = self.seq
            self.record.fields.update(
                end=time.monotonic(),
                admitted=seq.admitted_at,
                first_token=seq.first_token_at,
                finished=seq.finished_at,
                prompt_tokens=seq.prompt_tokens,
                completion_tokens=seq.produced,
                cached_tokens=seq.cached_tokens,
                finish_reason=seq.finish_reason,
                fault=self.fault,
            )
            if self.state.bodies and self.chat:
                self.record.fields["content"] = chat_message(seq.plan, seq.produced, self.reasoning_field)["content"]
            self.state.ground_truth.write(self.record)

    async def whole(self) -> Response:
        """The non-streamed response, once every token is produced."""
        try:
            while await self.seq.outbox.get() is not None:
                pass
            if self.fault == "stall":
                await asyncio.sleep(self.state.faults.stall_seconds)
            body = self._whole_body()
        finally:
            self.close()
        raw = dumps(body).encode()
        if self.fault == "malformed":
            return Response(raw[: len(raw) // 2], media_type="application/json")
        if self.fault == "drop":
            return _EventStream(_cut(raw), media_type="application/json")
        return Response(raw, media_type="application/json")

    def _whole_body(self) -> dict[str, Any]:
        seq, plan = self.seq, self.seq.plan
        model = self.state.profile.identity.served_model_name
        if self.chat:
            choice = {
                "index": 0,
                "message": chat_message(plan, seq.produced, self.reasoning_field),
                "logprobs": None,
                "finish_reason": seq.finish_reason,
                "stop_reason": None,
            }
            return {
                "id": seq.request_id,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [choice],
                "service_tier": None,
                "system_fingerprint": None,
                "usage": self.usage(),
                "prompt_logprobs": None,
                "kv_transfer_params": None,
            }
        choice = {
            "index": 0,
            "text": "".join(plan.texts[: seq.produced]),
            "logprobs": None,
            "finish_reason": seq.finish_reason,
            "stop_reason": None,
            "prompt_logprobs": None,
        }
        return {
            "id": seq.request_id,
            "object": "text_completion",
            "created": int(time.time()),
            "model": model,
            "choices": [choice],
            "usage": self.usage(),
            "kv_transfer_params": None,
        }


async def _cut(raw: bytes) -> AsyncIterator[bytes]:
    yield raw[: len(raw) // 2]
    raise SimulatedDrop("connection dropped by fault injection")


def _generation_route(chat: bool) -> Callable[[Request], Awaitable[Response]]:
    async def route(request: Request) -> Response:
        state: SimState = request.app.state.sim
        arrival = time.monotonic()
        try:
            body = await _json_body(request)
            limit = state.profile.scheduler.max_model_len
            parsed = parse_chat(body, limit) if chat else parse_completion(body, limit)
            _check_model(state, parsed)
            fault = state.faults.choose(request.headers.get(FAULT_HEADER))
        except ProtocolError as err:
            return _error(str(err), err.status, err.kind)
        except ValueError as err:
            return _error(str(err))
        request_id = state.next_request_id(request, parsed, "chatcmpl" if chat else "cmpl")
        record = RequestRecord(request_id, request.url.path, parsed.stream, arrival)
        if state.bodies:
            record.fields.update(messages=body.get("messages"), headers={k: v for k, v in sorted(request.headers.items()) if k.startswith("x-")})
        if fault in ("http-500", "http-503"):
            record.fields.update(end=time.monotonic(), fault=fault, status=int(fault[-3:]))
            state.ground_truth.write(record)
            if fault == "http-500":
                return _error("simulated internal server error", 500, "InternalServerError")
            return _error("simulated: the engine is overloaded, retry later", 503, "ServiceUnavailableError")
        plan = plan_output(parsed.plan_request, state.profile.output, state.profile.seed)
        # The engine's clock starts here, as vLLM's does: its arrival_time is stamped when the API server
        # hands the request to the engine, after parsing the body, the chat template and tokenisation
        # (vllm/v1/engine/input_processor.py); the ground-truth record keeps the HTTP arrival.
        caching = state.profile.kv_cache.prefix_caching
        seq = Sequence(
            request_id,
            parsed.prompt_tokens,
            plan,
            arrival=time.monotonic(),
            prompt_ids=tuple(TOKENIZER.encode(parsed.plan_request.prompt)) if caching else (),
            spec_rng=request_rng("accept", state.profile.seed, parsed.plan_request.seed, parsed.plan_request.prompt),
        )
        state.engine.submit(seq)
        generation = _Generation(state, seq, parsed, fault, record, chat)
        if parsed.stream:
            return _EventStream(generation.events(), media_type="text/event-stream")
        return await generation.whole()

    return route


async def health(request: Request) -> Response:
    return Response(status_code=200)


async def version(request: Request) -> Response:
    ident = request.app.state.sim.profile.identity
    return JSONResponse(
        {
            "version": ident.engine_version,
            "simulated": True,
            "model_path": ident.model_path,
            "revision": ident.revision,
            "image": ident.image,
            "host": ident.host,
            "container_id": ident.container_id,
            "gpu_uuids": ident.gpu_uuids,
        }
    )


async def models(request: Request) -> Response:
    state: SimState = request.app.state.sim
    ident = state.profile.identity
    card = {
        "id": ident.served_model_name,
        "object": "model",
        "created": state.started,
        "owned_by": "vllm",
        "root": ident.model_path,
        "parent": None,
        "max_model_len": state.profile.scheduler.max_model_len,
        "permission": [
            {
                "id": "modelperm-simulated",
                "object": "model_permission",
                "created": state.started,
                "allow_create_engine": False,
                "allow_sampling": True,
                "allow_logprobs": True,
                "allow_search_indices": False,
                "allow_view": True,
                "allow_fine_tuning": False,
                "organization": "*",
                "group": None,
                "is_blocking": False,
            }
        ],
    }
    return JSONResponse({"object": "list", "data": [card]})


async def tokenize(request: Request) -> Response:
    state: SimState = request.app.state.sim
    try:
        body = await _json_body(request)
        if "messages" in body:
            text = render_chat(body["messages"], body.get("tools"))
        elif isinstance(body.get("prompt"), str):
            text = body["prompt"]
        else:
            raise ProtocolError("give a prompt (string) or messages")
    except ProtocolError as err:
        return _error(str(err), err.status, err.kind)
    except (AttributeError, TypeError):
        return _error("messages must be a list of message objects")
    tokens = TOKENIZER.encode(text)
    return JSONResponse({"count": len(tokens), "max_model_len": state.profile.scheduler.max_model_len, "tokens": tokens, "token_strs": None})


async def detokenize(request: Request) -> Response:
    try:
        body = await _json_body(request)
        tokens = body.get("tokens")
        if not isinstance(tokens, list):
            raise ProtocolError("tokens must be a list of token ids")
        return JSONResponse({"prompt": TOKENIZER.decode(tokens)})
    except ProtocolError as err:
        return _error(str(err), err.status, err.kind)
    except ValueError as err:
        return _error(str(err))


async def metrics(request: Request) -> Response:
    if request.app.state.sim.faults.choose_metrics():
        return Response("metrics unavailable (simulated fault)\n", status_code=503, media_type="text/plain")
    return Response(request.app.state.sim.engine.metrics.render(), media_type=CONTENT_TYPE_LATEST)


async def sim_stats(request: Request) -> Response:
    """Simulator-only facts a real engine does not serve (faults injected, steps, pool)."""
    state: SimState = request.app.state.sim
    return JSONResponse(
        {
            "profile": state.profile.name,
            "token_slots": state.profile.token_slots,
            "num_gpu_blocks": state.profile.num_gpu_blocks,
            "requests": state.requests,
            "steps": state.engine.steps,
            "aborted": state.engine.aborted,
            "faults_injected": dict(sorted(state.faults.injected.items())),
            "time_scale": state.engine.time_scale,
        }
    )


def create_app(profile: Profile, *, time_scale: float = 1.0, ground_truth: str | Path | None = None, ground_truth_bodies: bool = False) -> Starlette:
    """The ASGI app of one simulated engine (its engine task runs for the app's lifespan); with
    ``ground_truth_bodies`` each ground-truth line also holds the request's messages, its ``x-`` headers and
    the content it was answered with."""
    state = SimState(profile, time_scale, ground_truth, ground_truth_bodies)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.ground_truth.open()
        state.engine.start()
        try:
            yield
        finally:
            await state.engine.stop()
            state.ground_truth.close()

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/version", version, methods=["GET"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/chat/completions", _generation_route(chat=True), methods=["POST"]),
        Route("/v1/completions", _generation_route(chat=False), methods=["POST"]),
        Route("/tokenize", tokenize, methods=["POST"]),
        Route("/detokenize", detokenize, methods=["POST"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/sim/stats", sim_stats, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.sim = state
    return app
