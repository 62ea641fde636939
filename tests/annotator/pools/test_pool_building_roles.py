"""Building and topping up a pool from the app (issue 40), on both backends and without
Streamlit: the Pools page calls ``build_pool`` and ``topup_pool`` as ``qrels pool build``
and ``pool topup`` do, with the acting account, which the server checks; an annotator's
call is refused and writes nothing."""

from __future__ import annotations

import pytest

from annotator.pools.pool_building import build_pool, topup_pool
from pooling.i18n import Refused
from storage.accounts import get_user
from storage.db import session_scope
from storage.pool_records import find_pool, get_pool, pool_report


def candidates(engine, name: str) -> int | None:
    with session_scope(engine) as session:
        pool = find_pool(name, session=session)
        return None if pool is None else sum(pool_report(pool, session=session).sizes.values())


def test_a_lead_builds_and_tops_up_and_an_annotator_cannot(engine, two_runs):
    with session_scope(engine) as session:
        boss = get_user("boss", session=session).id
    x = two_runs["x"]
    with pytest.raises(Refused):
        build_pool(engine, "mine", systems="run:a", depth=1, by=x)
    assert candidates(engine, "mine") is None
    result = build_pool(engine, "mine", systems="run:a", depth=1, overlap=1, by=boss)
    assert result.added == candidates(engine, "mine") == 2  # one per query
    with session_scope(engine) as session:
        assert get_pool("mine", session=session).overlap == 1
    with pytest.raises(Refused):
        topup_pool(engine, "mine", systems="run:b", depth=5, by=x)
    assert candidates(engine, "mine") == 2
    topped = topup_pool(engine, "mine", systems="run:a", depth=5, by=boss)
    assert topped.added > 0 and candidates(engine, "mine") == 2 + topped.added
    active = build_pool(engine, "act", systems="run:a,run:b", budget=2, active=True, by=boss)
    assert active.added > 0
