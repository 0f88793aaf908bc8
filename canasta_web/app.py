"""The web app: a FastAPI application over the tables (:mod:`canasta_web.live`,
:mod:`canasta_web.replays`, kept in :mod:`canasta_web.store`), and the page.

Routes (every error is a 4xx JSON ``{"error": "..."}`` and changes nothing)::

    GET  /                               the page (static/index.html)
    GET  /api/options                    presets, player counts, bot names, rules fields
    POST /api/tables                     {variant, seats, seed?, rules?} -> a new live table
    GET  /api/tables/{id}                its view from the person's seat
    POST /api/tables/{id}/act            {version, action}: the person's move
    POST /api/tables/{id}/advance        {version}: one bot move
    POST /api/tables/{id}/next-hand      {version}: deal the next hand
    POST /api/replays                    {replay} or {arena, hand} -> a replay table
    GET  /api/replays/{id}?position=&viewer=&open=   one position of it

    GET  /api/openapi.json               this API's OpenAPI schema

A POST body must be JSON (``Content-Type: application/json``), so that another web
site cannot post to the local server with a plain form; every request passes
:class:`canasta_web.guard.Guard` first (Host, Origin, body size, session cookie).
Agents come from an allowlist only (:func:`canasta_web.bots.check_bot_name`):
what a request may name, and why, is in docs/security.md. ``create_app(startup=...)``
preloads a replay table that the page opens first (``canasta serve --replay``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.exceptions import HTTPException
from starlette.routing import Match

from canasta_env.replay import Replay
from canasta_env.rules import PRESETS, Rules
from canasta_web.bots import MAX_SEARCH_SIMULATIONS, bot_names, make_bot
from canasta_web.guard import MAX_BODY, Guard, cut
from canasta_web.live import HUMAN, LiveTable
from canasta_web.replays import (
    ARENA_REPLAY_SECONDS,
    REPLAY_BUILD_SECONDS,
    ReplayTable,
    play_arena_hand,
    read_arena_hand,
)
from canasta_web.store import TableStore, client_key
from canasta_web.tables import TableError

STATIC = resources.files("canasta_web") / "static"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _takes(app: FastAPI, scope) -> bool:
    """Whether a route of ``app`` takes this request's path and method."""
    return any(route.matches(scope)[0] == Match.FULL for route in app.router.routes)


def _plain(name: str) -> str:
    """A bot name as it stands in a pattern (the names hold no pattern characters)."""
    if not re.fullmatch(r"[A-Za-z0-9:_-]+", name):
        raise ValueError(f"bot name {name!r} would need escaping in the schema's pattern")
    return name


#: What the schema says a seat may be; anything else is refused with 400 naming it.
SEAT_PATTERN = (
    "^(" + "|".join(_plain(name) for name in (HUMAN, *bot_names())) + "|openspiel:random"
    "|openspiel:ismcts(-[1-9][0-9]{0,3})?)$"
)
#: How long an error message may be (it repeats no more than a short prefix of the input).
MAX_MESSAGE = 400
#: How much of one quoted value or one unbroken run of characters a message repeats: a
#: message made deeper down (a rules check, the JSON reader) may quote the input whole.
MAX_QUOTE = 80
_LONG = f"{{{MAX_QUOTE - 1},}}"  # a quoted value longer than MAX_QUOTE with its quotes
#: A quoted value (a quote with no letter before the opening one or after the closing one,
#: so "the client's ... server's" is not one) or an unbroken run, longer than MAX_QUOTE.
_QUOTED = re.compile(
    f"(?<!\\w)'[^']{_LONG}'(?!\\w)|(?<!\\w)\"[^\"]{_LONG}\"(?!\\w)|\\S{{{MAX_QUOTE + 1},}}"
)


def _rule_fields(rules: Rules) -> dict:
    """The preset's simple fields (numbers and flags) and their values, for house rules."""
    return {
        field.name: getattr(rules, field.name)
        for field in dataclasses.fields(rules)
        if isinstance(getattr(rules, field.name), (bool, int))
    }


def _simple_rule_fields() -> list[str]:
    return sorted({name for rules in PRESETS.values() for name in _rule_fields(rules)})


class NewTable(Strict):
    variant: StrictStr = Field(
        default="classic", max_length=40, json_schema_extra={"enum": sorted(PRESETS)}
    )
    seats: list[StrictStr] = Field(
        min_length=2,
        max_length=6,
        description=(
            f"one seat {HUMAN!r}, the others bots; openspiel:ismcts-N needs "
            f"N <= {MAX_SEARCH_SIMULATIONS}"
        ),
        json_schema_extra={"items": {"type": "string", "pattern": SEAT_PATTERN}},
    )
    seed: StrictInt | None = Field(default=None, ge=0, lt=2**63)
    rules: dict[StrictStr, StrictBool | StrictInt] = Field(
        default_factory=dict,
        max_length=64,
        description="house rules: a preset's simple fields (GET /api/options lists them)",
        json_schema_extra={"propertyNames": {"enum": _simple_rule_fields()}},
    )


class Move(Strict):
    version: StrictInt
    action: StrictInt


class Version(Strict):
    version: StrictInt


class NewReplay(Strict):
    replay: dict[str, Any] | None = Field(default=None, description="a replay file's JSON")
    arena: dict[str, Any] | None = Field(
        default=None,
        description="an arena results.json (its config and hands); the page sends the one hand",
    )
    hand: StrictInt | None = Field(default=None, ge=0, description="with arena: a hand's index")


class ErrorBody(BaseModel):
    error: str


def _errors(*statuses: int) -> dict:
    """The refusals a route may answer, for the OpenAPI schema."""
    known = {
        400: "a request the table refuses (illegal move, unknown bot, bad rule...)",
        403: "a state-changing request from another site",
        404: "no such table or replay",
        409: "stale version, out of turn, or a bot still thinking",
        413: "body too large",
        415: "a POST body that is not JSON",
        421: "a Host this server does not answer for",
        422: "a body or query of the wrong shape",
        429: "this client holds its share of the server's tables, replays or thinking bots",
        500: "a bot failed",
        503: "the server is full or busy; try again later",
    }
    everywhere = (421,)
    return {
        status: {"model": ErrorBody, "description": known[status]}
        for status in sorted({*statuses, *everywhere})
    }


POST_ERRORS = (400, 403, 413, 415, 422)


def one_line(message: str) -> str:
    """``message`` as an answer says it: one line, every quoted value or unbroken run
    longer than :data:`MAX_QUOTE` cut with an ellipsis, the whole at most
    :data:`MAX_MESSAGE` characters."""
    message = " ".join(message.split())

    def shorten(match: re.Match) -> str:
        text = match.group()
        if text[0] in "'\"" and text[-1] == text[0]:
            return cut(text[:-1], MAX_QUOTE - 1) + text[-1]
        return cut(text, MAX_QUOTE)

    return cut(_QUOTED.sub(shorten, message), MAX_MESSAGE)


def _error(status: int, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


def client_address(request: Request) -> str:
    """The address a request's connection comes from (behind a proxy, the proxy's)."""
    return request.client.host if request.client is not None else "unknown"


def client_of(request: Request) -> str:
    """Whom the request's tables and bots count against
    (:func:`~canasta_web.store.client_key`): its address, or on loopback the session
    cookie it sent."""
    state = request.state
    sent = getattr(state, "cookie", False)
    return client_key(client_address(request), state.session if sent else None)


def _where(location: tuple) -> str:
    parts = [str(part)[:40] for part in location if part not in ("body", "query", "path")]
    return ".".join(parts) or "body"


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI):
    """When the server stops, requests that wait for a thinking bot stop waiting."""
    stopping = app.state.tables.thinking.stopping
    stopping.clear()
    yield
    stopping.set()


def create_app(
    startup: ReplayTable | None = None,
    store: TableStore | None = None,
    allowed_hosts: tuple[str, ...] = (),
    max_body: int = MAX_BODY,
) -> FastAPI:
    """The app; ``startup`` is a replay table the page opens when it loads.

    It answers requests for loopback names and ``allowed_hosts`` only
    (:class:`~canasta_web.guard.Guard`), with bodies of at most ``max_body`` bytes.
    """
    app = FastAPI(
        lifespan=_lifespan,
        title="canasta-env table",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    tables = store if store is not None else TableStore()
    if startup is not None:
        tables.add(startup, pinned=True)
    app.state.tables = tables

    @app.exception_handler(TableError)
    async def table_error(_request: Request, error: TableError) -> JSONResponse:
        return _error(error.status, error.message)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # the framework's own refusals (no such route, a body it cannot parse) in the
        # same {"error": ...} shape as ours
        if error.status_code == 404:
            return _error(404, f"no such page or API route: {cut(request.url.path, 80)}")
        if error.status_code == 400 and "parsing the body" in str(error.detail):
            return _error(
                400, "the body could not be read as JSON (not UTF-8, or a number too long)"
            )
        return _error(error.status_code, str(error.detail), headers=error.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors():
            kind = item.get("type", "")
            if kind == "json_invalid":
                problems.append(f"the body is not valid JSON ({item.get('msg', '')})")
            else:
                problems.append(f"{_where(tuple(item.get('loc', ())))}: {item.get('msg', '')}")
        return _error(422, "bad request: " + "; ".join(problems))

    @app.middleware("http")
    async def json_posts_only(request: Request, call_next):
        # (a POST to a route that takes none goes on to its 405)
        if request.method == "POST" and _takes(app, request.scope):
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return _error(415, "a POST body must be JSON (Content-Type: application/json)")
        return await call_next(request)

    app.add_middleware(Guard, allowed_hosts=allowed_hosts, max_body=max_body)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"), media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:  # browsers ask for it even with the page's own icon
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.get("/api/options", responses=_errors())
    def options() -> dict:
        return {
            "presets": {
                name: {"player_counts": list(rules.player_counts), "rules": _rule_fields(rules)}
                for name, rules in PRESETS.items()
            },
            "bots": bot_names(),
            "human": HUMAN,
            "startup": None if startup is None else {"replay": startup.id},
        }

    # ------------------------------------------------------------ live tables
    @app.post("/api/tables", status_code=201, responses=_errors(400, 429, 503, *POST_ERRORS))
    def new_table(body: NewTable, request: Request) -> dict:
        session, client = request.state.session, client_of(request)
        tables.check_room(session, client)  # before the bots are built
        table = LiveTable(body.variant, body.seats, seed=body.seed, rules=body.rules)
        tables.add(table, session=session, client=client)
        with table.lock:
            return table.view()

    @app.get("/api/tables/{table_id}", responses=_errors(404))
    def get_table(table_id: str) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            return table.view()

    @app.post("/api/tables/{table_id}/act", responses=_errors(400, 404, 409, *POST_ERRORS))
    def act(table_id: str, body: Move) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            table.act(body.action, body.version)
            view = table.view()
        tables.moved(table_id)  # a person's move: the table is protected a while
        return view

    @app.post(
        "/api/tables/{table_id}/advance", responses=_errors(404, 409, 429, 500, 503, *POST_ERRORS)
    )
    def advance(table_id: str, body: Version, request: Request) -> dict:
        table = tables.get(table_id, LiveTable)
        # it locks the table itself, but not while the bot thinks
        table.advance(body.version, tables.thinking, client_of(request))
        with table.lock:
            return table.view()

    @app.post("/api/tables/{table_id}/next-hand", responses=_errors(404, 409, *POST_ERRORS))
    def next_hand(table_id: str, body: Version) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            table.next_hand(body.version)
            view = table.view()
        tables.moved(table_id)
        return view

    # ------------------------------------------------------------ replays
    @app.post("/api/replays", status_code=201, responses=_errors(400, 429, 503, *POST_ERRORS))
    def new_replay(body: NewReplay, request: Request) -> dict:
        if (body.replay is None) == (body.arena is None):
            raise TableError(400, "give either 'replay' (a replay file) or 'arena' and 'hand'")
        if body.arena is not None and body.hand is None:
            raise TableError(400, "'arena' needs 'hand': the index of a hand in it")
        session, client = request.state.session, client_of(request)
        try:
            if body.replay is not None:
                replay = Replay.from_dict(body.replay)
                # refused before any move is played when it cannot be kept
                tables.check_room(session, client, ReplayTable.positions_of(replay))
                table = tables.thinking.build(
                    lambda check: ReplayTable(replay, check=check),
                    REPLAY_BUILD_SECONDS,
                    f"the replay takes longer than {REPLAY_BUILD_SECONDS:g} s to build on "
                    "this server; open it with: canasta serve --replay FILE",
                    client,
                )
            else:
                record = read_arena_hand(body.arena, body.hand)  # every field, before playing
                tables.check_room(session, client, 1)

                def played_again(check) -> ReplayTable:
                    # the seats' agents come from the allowlist only
                    replay, names = play_arena_hand(
                        record, build=lambda name: make_bot(name, seed=None), check=check
                    )
                    title = f"arena hand {record.index}"
                    return ReplayTable(replay, names, title=title, check=check)

                table = tables.thinking.build(
                    played_again,
                    ARENA_REPLAY_SECONDS,
                    f"hand {record.index} takes longer than {ARENA_REPLAY_SECONDS:g} s to play "
                    "again on this server; open it with: canasta serve --arena DIR --hand N",
                    client,
                )
        except ValueError as error:
            raise TableError(400, str(error)) from None
        tables.add(table, session=session, client=client)
        return table.view(0, 0, False)

    @app.get("/api/replays/{table_id}", responses=_errors(400, 404, 422))
    def get_replay(
        table_id: str,
        position: Annotated[int, Query()] = 0,
        viewer: Annotated[int, Query()] = 0,
        open: Annotated[bool, Query()] = False,  # noqa: A002 - the query's name
    ) -> dict:
        table = tables.get(table_id, ReplayTable)
        with table.lock:
            view = table.view(position, viewer, open)
        tables.moved(table_id)  # a person steps through it
        return view

    return app
