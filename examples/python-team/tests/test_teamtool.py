"""teamtool's own tests, against the fakes. Each call the tool makes to a
fake is observed (observe_cli): cassette coverage then checks that every
call shape the tool uses has a cassette recorded from the real side."""

import pytest
from cassette_pytest import observe_cli

from teamtool import Tool
from teamtool.fakes import FakeGit, FakeGitHub


@pytest.fixture
def tool():
    return Tool(git=observe_cli("git", FakeGit().run), gh=observe_cli("gh", FakeGitHub().run))


def test_branch(tool):
    assert tool.branch() == "main"


def test_recent(tool):
    assert tool.recent() == ["Document how to run it", "Add the greet program", "Initial commit"]


def test_github_repo(tool):
    assert tool.github_repo("octokit-fixture-org", "hello-world") == ("octokit-fixture-org/hello-world", "master")


def test_report(tool):
    assert tool.report("octokit-fixture-org", "hello-world") == (
        "octokit-fixture-org/hello-world on main (not the default branch, master), last: Document how to run it; org octokit-fixture-org")
