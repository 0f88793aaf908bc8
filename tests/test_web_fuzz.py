"""A property-based fuzz of ``canasta serve``'s HTTP API from the OpenAPI schema FastAPI builds.

Schemathesis draws requests from the app's own schema (``/api/openapi.json``), valid and
not, and sends them to the app in this process. For every one: no 5xx; the answer is one
the schema declares, in the shape it declares; and a 4xx changes nothing (every table's
version and the set of tables are as they were). Path ids are mostly those of a live table
and a replay made first, so the fuzz reaches the moves and not only 404s.

About a minute in the default run; ``make soak`` runs the longer one (marked ``slow``).
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="the fuzz needs schemathesis (dev extra)")
pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")

from hypothesis import HealthCheck, settings  # noqa: E402

from canasta_env.replay import Replay  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.live import LiveTable  # noqa: E402
from canasta_web.replays import ReplayTable  # noqa: E402
from canasta_web.store import TableStore  # noqa: E402
from tests.replays import random_replay  # noqa: E402

#: Room for every table the fuzz makes: no 503 for a full store.
APP = create_app(
    store=TableStore(limit=100_000, per_session=100_000, per_client=100_000),
    allowed_hosts=("testserver",),
)
LIVE = LiveTable("classic", ["you", "random"], seed=7)
REPLAY = ReplayTable(Replay.from_dict(random_replay(3, 120).to_dict()))
APP.state.tables.add(LIVE, pinned=True)
APP.state.tables.add(REPLAY, pinned=True)
SCHEMA = schemathesis.openapi.from_asgi("/api/openapi.json", APP)


def snapshot() -> tuple:
    store = APP.state.tables
    return tuple((key, getattr(table, "version", None)) for key, table in store.tables.items())


def aim_at_our_tables(case) -> None:
    """Point most generated table ids at the live table or the replay made above."""
    table_id = (case.path_parameters or {}).get("table_id")
    if table_id is None or len(table_id) % 5 == 0:  # a fifth keep their made-up id
        return
    replay = case.path.startswith("/api/replays")
    case.path_parameters["table_id"] = REPLAY.id if replay else LIVE.id


def check(case) -> None:
    aim_at_our_tables(case)
    before = snapshot()
    response = case.call_and_validate(
        excluded_checks=[schemathesis.checks.positive_data_acceptance]
    )
    assert response.status_code < 500, response.text
    if 400 <= response.status_code < 500:
        assert snapshot() == before, f"{response.status_code} changed the tables"


FAST = settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None
)
LONG = settings(
    max_examples=2_000, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


@SCHEMA.parametrize()
@FAST
def test_the_api_answers_every_request_as_its_schema_says(case):
    check(case)


@pytest.mark.slow
@SCHEMA.parametrize()
@LONG
def test_the_api_answers_every_request_as_its_schema_says_long(case):
    check(case)
