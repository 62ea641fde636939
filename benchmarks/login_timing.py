"""How long a failed login takes, by what the name is: the answer's timing must not tell
which names exist (issue 12, item 5). Before the fix, on the same machine class: unknown
0.67 s, known 0.15 s, disabled 0.002 s.

A fresh SQLite database holds an enabled account, a disabled one and one without a
password (imported judgments). Each case tries its name ROUNDS times with a wrong password;
the throttle's count is cleared before each attempt, so every attempt waits the same
(nothing) and what is timed is the work: the two short transactions and one scrypt. The
throttle's waits themselves are the same for every name (tests/security/test_login_guessing.py).

    python benchmarks/login_timing.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import delete

from annotator.auth import add_user, login
from storage import accounts
from storage.db import make_engine, session_scope, upgrade
from storage.models import LoginThrottle

CASES = {
    "known, wrong password": "ann",
    "disabled": "gone",
    "no password": "imported",
    "unknown": "nobody",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'qrels.db'}")
        upgrade(engine)
        with session_scope(engine) as session:
            add_user("ann", "annotator", "password-1", session=session)
            add_user("gone", "annotator", "password-1", session=session)
            accounts.disable_user("gone", session=session)
            accounts.create_user("imported", "annotator", None, session=session)
        login(engine, "warm-up", "x")  # the dummy hash is made once per process
        timings = {case: [] for case in CASES}
        for _ in range(rounds):
            for case, name in CASES.items():  # interleaved, so drift hits every case alike
                with session_scope(engine) as session:
                    session.execute(delete(LoginThrottle))
                start = time.perf_counter()
                assert login(engine, name, "wrong-password") is None
                timings[case].append(time.perf_counter() - start)
    baseline = statistics.median(timings["known, wrong password"])
    print(f"{'failed login':<24}{'median s':>10}{'vs known':>10}")
    for case, seconds in timings.items():
        median = statistics.median(seconds)
        print(f"{case:<24}{median:>10.3f}{median / baseline:>9.2f}x")


if __name__ == "__main__":
    main()
