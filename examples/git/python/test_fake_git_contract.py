"""The contract of FakeGit: every cassette of adapter git (../cassettes/git),
recorded from the real git, is replayed against the in-process fake and
compared, normalized, by cassette (see ../cassette.yaml)."""

import pytest

from fake_git import FakeGit


@pytest.mark.cassette("git")
def test_fake_git(cassette_case):
    cassette_case.verify_cli(lambda case: FakeGit().run(case.args, input=case.stdin, env=case.env, cwd=case.cwd))
