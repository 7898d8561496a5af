"""A deliberately broken FakeGit, to see what a drift looks like: it
misremembers the subject of the last commit ("Document it" where the real
git says "Document how to run it"), so the cases that print that commit
(git/log-oneline, git/show-stat-head) fail with a located drift.

``python3 broken_fake_git.py ARGS`` runs it as a command, so that
``cassette verify`` can show the same drift for the same fake."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fake_git import FakeGit, Repo, main  # noqa: E402


class BrokenFakeGit(FakeGit):
    def __init__(self):
        repo = Repo()
        repo.commits[-1].subject = "Document it"
        super().__init__(repo)


if __name__ == "__main__":
    sys.exit(main(BrokenFakeGit()))
