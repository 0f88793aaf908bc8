"""The web app: a FastAPI application over :mod:`canasta_web.tables`, and the page.

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

A POST body must be JSON (``Content-Type: application/json``), so that another web
site cannot post to the local server with a plain form. ``create_app(startup=...)``
preloads a replay table that the page opens first (``canasta serve --replay``).
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException

from canasta_env.replay import Replay
from canasta_env.rules import PRESETS, Rules
from canasta_web.tables import (
    HUMAN,
    LiveTable,
    ReplayTable,
    TableError,
    TableStore,
    arena_replay,
    bot_names,
)

STATIC = resources.files("canasta_web") / "static"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewTable(Strict):
    variant: StrictStr = "classic"
    seats: list[StrictStr] = Field(min_length=2, max_length=6)
    seed: StrictInt | None = Field(default=None, ge=0, lt=2**63)
    rules: dict[StrictStr, Any] = Field(default_factory=dict)


class Move(Strict):
    version: StrictInt
    action: StrictInt


class Version(Strict):
    version: StrictInt


class NewReplay(Strict):
    replay: dict[str, Any] | None = None
    arena: dict[str, Any] | None = None
    hand: StrictInt | None = None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _where(location: tuple) -> str:
    parts = [str(part) for part in location if part not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def create_app(startup: ReplayTable | None = None, store: TableStore | None = None) -> FastAPI:
    """The app; ``startup`` is a replay table the page opens when it loads."""
    app = FastAPI(title="canasta-env table", docs_url=None, redoc_url=None, openapi_url=None)
    tables = store or TableStore()
    if startup is not None:
        tables.add(startup)
    app.state.tables = tables

    @app.exception_handler(TableError)
    async def table_error(_request: Request, error: TableError) -> JSONResponse:
        return _error(error.status, error.message)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # the framework's own refusals (no such route, a body it cannot parse) in the
        # same {"error": ...} shape as ours
        if error.status_code == 404:
            return _error(404, f"no such page or API route: {request.url.path}")
        if error.status_code == 400 and "parsing the body" in str(error.detail):
            return _error(400, "the body could not be read as JSON (e.g. a number too long)")
        return _error(error.status_code, str(error.detail))

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
        if request.method == "POST":
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return _error(415, "a POST body must be JSON (Content-Type: application/json)")
        return await call_next(request)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.get("/api/options")
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
    @app.post("/api/tables", status_code=201)
    def new_table(body: NewTable) -> dict:
        table = LiveTable(body.variant, body.seats, seed=body.seed, rules=body.rules)
        tables.add(table)
        with table.lock:
            return table.view()

    @app.get("/api/tables/{table_id}")
    def get_table(table_id: str) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            return table.view()

    @app.post("/api/tables/{table_id}/act")
    def act(table_id: str, body: Move) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            table.act(body.action, body.version)
            return table.view()

    @app.post("/api/tables/{table_id}/advance")
    def advance(table_id: str, body: Version) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            table.advance(body.version)
            return table.view()

    @app.post("/api/tables/{table_id}/next-hand")
    def next_hand(table_id: str, body: Version) -> dict:
        table = tables.get(table_id, LiveTable)
        with table.lock:
            table.next_hand(body.version)
            return table.view()

    # ------------------------------------------------------------ replays
    @app.post("/api/replays", status_code=201)
    def new_replay(body: NewReplay) -> dict:
        if (body.replay is None) == (body.arena is None):
            raise TableError(400, "give either 'replay' (a replay file) or 'arena' and 'hand'")
        try:
            if body.replay is not None:
                table = ReplayTable(Replay.from_dict(body.replay))
            else:
                if body.hand is None:
                    raise TableError(400, "'arena' needs 'hand': the index of a hand in it")
                replay, names = arena_replay(body.arena, body.hand)
                table = ReplayTable(replay, names, title=f"arena hand {body.hand}")
        except ValueError as error:
            raise TableError(400, str(error)) from None
        tables.add(table)
        return table.view(0, 0, False)

    @app.get("/api/replays/{table_id}")
    def get_replay(
        table_id: str,
        position: Annotated[int, Query()] = 0,
        viewer: Annotated[int, Query()] = 0,
        open: Annotated[bool, Query()] = False,  # noqa: A002 - the query's name
    ) -> dict:
        table = tables.get(table_id, ReplayTable)
        with table.lock:
            return table.view(position, viewer, open)

    return app


def _rule_fields(rules: Rules) -> dict:
    """The preset's simple fields (numbers and flags) and their values, for house rules."""
    return {
        field.name: getattr(rules, field.name)
        for field in dataclasses.fields(rules)
        if isinstance(getattr(rules, field.name), (bool, int))
    }
