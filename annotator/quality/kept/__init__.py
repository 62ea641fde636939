"""The kept state behind the lead's figures: what the app keeps up to date as judgments
arrive, so that a view costs what changed since the last one (issue 27). Everything here
has a recount beside it, which counts the same figure from every judgment and which the
tests pin it equal to (``tests/annotator/quality/test_kept_figures.py``):

- ``current_grades``: per pool, the current human grade of each (candidate, person) and
  the count tables drawn from it (``Kept``), saved now and then (``storage.figure_tables``);
- ``views``: each candidate's agreement status and final grade under a policy, read off
  the kept counts by ``pooling.resolution``'s rule (recount: its ``statuses``);
- ``progress_rows``: each assignment's current judgment and who first judged each candidate,
  for the Team progress figures (recount: ``progress.counted_team_figures``);
- ``figures``: the views themselves, the agreement report and the adjudication queue
  (recounts: ``pool_quality.pool_agreement`` and ``pool_queue``), and the grades the Pools
  figures are drawn from (``pools.pool_figures``).

Kept in the database instead (what a keypress reads and updates): ``storage.tallies``,
whose ``recount`` it is pinned equal to."""
