"""teamtool: a team's repository at a glance, from git and GitHub.

It shells out to ``git`` and to ``gh api`` (the GitHub CLI); its tests give
it FakeGit and FakeGitHub (teamtool.fakes) instead, in process, and the
contract tests in tests/contracts hold those fakes to cassettes recorded
from the real git and the real gh.
"""

import subprocess


def run_git(args, cwd=None):
    """Run the real git."""
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True, text=True)


def run_gh(args, cwd=None):
    """Run the real gh."""
    return subprocess.run(["gh"] + list(args), cwd=cwd, capture_output=True, text=True)


class ToolError(Exception):
    """git or gh failed."""


class Tool:
    """What teamtool asks git and GitHub. git and gh are called as
    git(args, cwd=...) → CompletedProcess: the real commands by default."""

    def __init__(self, git=run_git, gh=run_gh, repo_dir=None):
        self.git, self.gh, self.repo_dir = git, gh, repo_dir

    def _out(self, run, args):
        r = run(args, cwd=self.repo_dir)
        if r.returncode != 0:
            raise ToolError("%s failed (exit %d): %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return r.stdout

    def branch(self):
        """The checked-out branch."""
        return self._out(self.git, ["rev-parse", "--abbrev-ref", "HEAD"]).strip()

    def recent(self, n=3):
        """The subjects of the last n commits, newest first."""
        return [line.split(" ", 1)[1] for line in self._out(self.git, ["log", "--oneline", "-n", str(n)]).splitlines()]

    def github_repo(self, owner, repo):
        """(full name, default branch) of a GitHub repository."""
        full, default = self._out(self.gh, ["api", "repos/%s/%s" % (owner, repo), "--jq", ".full_name, .default_branch"]).split()
        return full, default

    def org(self, org):
        """(login, number of public repositories) of a GitHub organization."""
        login, n = self._out(self.gh, ["api", "orgs/%s" % org, "--jq", ".login, .public_repos"]).split()
        return login, int(n)

    def report(self, owner, repo):
        """One line on the local repository and its GitHub side."""
        full, default = self.github_repo(owner, repo)
        login, _ = self.org(owner)
        here = self.branch()
        note = "" if here == default else " (not the default branch, %s)" % default
        return "%s on %s%s, last: %s; org %s" % (full, here, note, self.recent(1)[0], login)
