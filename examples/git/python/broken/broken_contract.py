"""The contract test of BrokenFakeGit: it fails, on purpose. pytest does
not collect this file by itself (its name does not start with test_): run
it by name to see a drift,

    python3 -m pytest -p cassette_pytest examples/git/python/broken/broken_contract.py
"""

import pytest

from broken_fake_git import BrokenFakeGit


@pytest.mark.cassette("git")
def test_broken_fake_git(cassette_case):
    cassette_case.verify_cli(lambda case: BrokenFakeGit().run(case.args, input=case.stdin, env=case.env, cwd=case.cwd))
