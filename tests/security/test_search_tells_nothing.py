"""Issue 21, item 5: the search box's message was the same whether or not a system had found
the chunk an annotator added, but their progress was not: adding a chunk already in the pool
left the totals as they were, adding a new one raised them by one. Here an annotator adds
both, through the functions the label page calls, and sees the same progress before and
after each; the new chunk is judged by the others, never offered to its finder."""

from __future__ import annotations

from annotator.labeling import assignment
from annotator.labeling.search import ManualSearch
from storage import accounts, tallies
from storage.db import session_scope
from storage.pool_records import get_pool, pool_candidates

ALL = {"a#0", "a#1", "b#0", "c#0"}


def test_adding_a_pooled_chunk_and_a_new_one_look_the_same(pooled):
    with session_scope(pooled) as session:
        ann1, ann2 = (accounts.get_user(n, session=session).id for n in ("ann1", "ann2"))
        pooled_ids = {(c.query_id, c.chunk_id) for c in pool_candidates(
            get_pool("p", session=session), session=session)}  # fmt: skip
    item = assignment.next_item(pooled, "p", ann1)
    query = item.query_id
    here = {chunk for q, chunk in pooled_ids if q == query}
    in_pool = sorted(here - {item.chunk_id})[0]  # a system found it; ann1 has not judged it
    new = sorted(ALL - here)[0]  # no system found it
    search = ManualSearch(pooled, "p")

    seen = [assignment.progress(pooled, "p", ann1, query)]
    for chunk in (in_pool, new):
        search.add(query, chunk, ann1)
        seen.append(assignment.progress(pooled, "p", ann1, query))
        assert assignment.next_item(pooled, "p", ann1) == item  # the item in hand stays
    assert seen[0] == seen[1] == seen[2], seen

    # ann1 works through everything open to them: never the chunk they added.
    given = []
    while (item := assignment.next_item(pooled, "p", ann1)) is not None:
        given.append((item.query_id, item.chunk_id))
        assignment.submit(pooled, item, ann1, grade=1)
    assert (query, in_pool) in given and (query, new) not in given
    done = assignment.progress(pooled, "p", ann1, query)
    assert done.pool_done == done.pool_total == len(pooled_ids)
    # ann2 is offered it like any other passage.
    offered = []
    while (item := assignment.next_item(pooled, "p", ann2)) is not None:
        offered.append((item.query_id, item.chunk_id))
        assignment.submit(pooled, item, ann2, grade=2)
    assert (query, new) in offered and len(offered) == len(pooled_ids) + 1
    with session_scope(pooled) as session:
        pool = get_pool("p", session=session)
        assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)
