"""The harness protocol from Python, without a test runner: the binding's
client (python/cassette_pytest) lists the cases (`cassette cases --json`)
and judges each through one `cassette check` co-process, one line and its
answer at a time, as a test of the pytest plugin does; the fake is an
in-process echo. Run in the project's directory by bench/check-batch.sh
(DRIVERS=1) with CASSETTE_BIN and PYTHONPATH set."""

import os

from cassette_pytest.case import Case
from cassette_pytest.client import Project

p = Project(os.environ["CASSETTE_BIN"], "cassette.yaml")
n = 0
for c in p.cases()["cases"]:
    r = Case(p, c).run_cli(lambda c: (0, " ".join(c.args) + "\n", ""))
    assert r.passed, r.text
    n += 1
s = p.close()
assert s["passed"] == n, s
print(n, "passed")
