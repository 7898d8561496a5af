"""The fakes' contract tests: each cassette's input to the fake, its output
held to the cassette's by cassette (normalized, byte for byte). This is the
adapters' fake.test: refresh runs it as the replay gate on re-recorded
cassettes."""

import pytest

from teamtool.fakes import FakeGit, FakeGitHub


@pytest.mark.cassette("git")
def test_git(cassette_case):
    cassette_case.verify_cli(lambda c: FakeGit().run(c.args, cwd=c.cwd))


@pytest.mark.cassette("gh")
def test_gh(cassette_case):
    cassette_case.verify_cli(lambda c: FakeGitHub().run(c.args))
