"""FakeGit and FakeGitHub: git and gh as teamtool calls them, in process.

Each answers the call shapes teamtool makes, in the real tool's output
format, so that its output, normalized, equals what the real one printed
when the cassettes were recorded (tests/contracts proves it, case by case).
Code under test calls ``FakeGit().run(["log", "--oneline"])`` where it would
run ``git log --oneline``; it returns a subprocess.CompletedProcess.
"""

import hashlib
import subprocess


def _done(args, code, out="", err=""):
    return subprocess.CompletedProcess(args, code, out, err)


class FakeGit:
    """git, on the repository ../git/make-repo.sh builds."""

    branch = "main"
    subjects = ["Document how to run it", "Add the greet program", "Initial commit"]  # newest first

    def run(self, args, cwd=None):
        args = list(args)
        if args == ["rev-parse", "--abbrev-ref", "HEAD"]:
            return _done(args, 0, self.branch + "\n")
        if args[:3] == ["log", "--oneline", "-n"] and len(args) == 4:
            lines = ["%s %s" % (hashlib.sha1(s.encode()).hexdigest()[:7], s) for s in self.subjects[:int(args[3])]]
            return _done(args, 0, "".join(l + "\n" for l in lines))
        return _done(args, 1, "", "fake git: no answer for git %s\n" % " ".join(args))


class FakeGitHub:
    """gh api, with GitHub's answers for the repositories and organizations
    teamtool asks about (--jq with a list of .fields)."""

    repos = {"octokit-fixture-org/hello-world": {"full_name": "octokit-fixture-org/hello-world", "default_branch": "master"}}
    orgs = {"octokit-fixture-org": {"login": "octokit-fixture-org", "public_repos": 42}}

    def run(self, args, cwd=None):
        args = list(args)
        if len(args) != 4 or args[0] != "api" or args[2] != "--jq":
            return _done(args, 1, "", "fake gh: no answer for gh %s\n" % " ".join(args))
        kind, _, name = args[1].partition("/")
        doc = {"repos": self.repos, "orgs": self.orgs}.get(kind, {}).get(name)
        if doc is None:
            return _done(args, 1, "", "gh: Not Found (HTTP 404)\n")
        fields = [f.strip().lstrip(".") for f in args[3].split(",")]
        return _done(args, 0, "".join(_jq(doc.get(f)) + "\n" for f in fields))


def _jq(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
