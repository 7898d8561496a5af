"""FakeGit: a fake of the git CLI that lives in the test process.

It answers the call shapes the git example records (see ../README.md) from
a fixed repository, in git's own output formats, so that its output,
normalized, equals the real git's on the repository ../make-repo.sh builds.
It is the Python twin of the Go fake in ../fakes/git: the same cassettes
verify both (test_fake_git_contract.py; `cassette verify` for the Go one).

Code under test calls ``FakeGit().run(["log", "--oneline"])`` where it
would call ``subprocess.run(["git", "log", "--oneline"], ...)``; it returns
a ``subprocess.CompletedProcess``. ``python3 fake_git.py ARGS`` runs it as
a command, so that ``cassette verify`` can run it as a process too.
"""

import datetime
import hashlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass, field


@dataclass
class FileStat:
    path: str
    added: int
    deleted: int


@dataclass
class Commit:
    subject: str
    files: list


@dataclass
class Repo:
    """The state of the faked repository: the one make-repo.sh builds."""
    branch: str = "main"
    author: str = "Ada Lovelace <ada@example.com>"
    commits: list = field(default_factory=lambda: [  # oldest first
        Commit("Initial commit", [FileStat("README.md", 3, 0)]),
        Commit("Add the greet program", [FileStat("go.mod", 3, 0), FileStat("main.go", 7, 0)]),
        Commit("Document how to run it", [FileStat("README.md", 3, 1)]),
    ])
    status: list = field(default_factory=lambda: ["A  CHANGELOG.md", " M main.go", "?? notes.txt"])
    epoch: datetime.datetime = datetime.datetime(2026, 11, 2, 9, 0, 0, tzinfo=datetime.timezone.utc)

    def sha(self, i):
        """Commit i's id: stable, and distinct for each commit."""
        return hashlib.sha1(("fake-git %d %s" % (i, self.commits[i].subject)).encode()).hexdigest()

    def date(self, i):
        """When commit i was made: an hour after the previous one."""
        return self.epoch + datetime.timedelta(hours=i)


class Unsupported(Exception):
    """A call shape the fake does not know."""


class FakeGit:
    """The fake. ``run`` mirrors ``subprocess.run(["git", *args])``."""

    def __init__(self, repo=None):
        self.repo = repo or Repo()

    def run(self, args, input=None, env=None, cwd=None):
        out, err = io.StringIO(), io.StringIO()
        code = self.main(list(args), out, err, cwd or os.getcwd())
        return subprocess.CompletedProcess(["git"] + list(args), code, out.getvalue(), err.getvalue())

    def main(self, args, out, err, cwd):
        while args:  # global options a caller may put before the subcommand
            if args[0] == "--no-pager":
                args = args[1:]
            elif args[0] in ("-c", "-C") and len(args) > 1:
                args = args[2:]
            else:
                break
        if not args:
            err.write("usage: git <command> [<args>]\n")
            return 1
        cmd, rest = args[0], args[1:]
        try:
            if cmd in ("--version", "version"):
                out.write("git version 2.39.5\n")
                return 0
            if cmd == "rev-parse":
                return self.rev_parse(rest, out, cwd)
            if cmd == "log":
                return self.log(rest, out)
            if cmd == "status":
                return self.status(rest, out)
            if cmd == "branch" and rest == ["--show-current"]:
                out.write(self.repo.branch + "\n")
                return 0
            if cmd == "show":
                return self.show(rest, out)
            if cmd != "branch":
                err.write("git: '%s' is not a git command. See 'git --help'.\n" % cmd)
                return 1
            raise Unsupported()
        except Unsupported:
            err.write("fake-git: not faked: git %s (see examples/git/python)\n" % " ".join(args))
            return 129

    def head(self):
        return len(self.repo.commits) - 1

    def rev_parse(self, args, out, cwd):
        shape = " ".join(args)
        if shape == "HEAD":
            out.write(self.repo.sha(self.head()) + "\n")
        elif shape == "--short HEAD":
            out.write(self.repo.sha(self.head())[:7] + "\n")
        elif shape == "--abbrev-ref HEAD":
            out.write(self.repo.branch + "\n")
        elif shape == "--show-toplevel":
            out.write(cwd + "\n")
        else:
            raise Unsupported()
        return 0

    def log(self, args, out):
        oneline, n = False, len(self.repo.commits)
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--oneline":
                oneline = True
            elif a == "HEAD":
                pass
            elif a == "-n" and i + 1 < len(args):
                i += 1
                n = _count(args[i])
            elif a.startswith("--max-count="):
                n = _count(a[len("--max-count="):])
            elif a.startswith("-n"):
                n = _count(a[2:])
            elif a.startswith("-"):
                n = _count(a[1:])
            else:
                raise Unsupported()
            i += 1
        shown = 0
        for c in range(self.head(), -1, -1):
            if shown == n:
                break
            if oneline:
                out.write("%s %s\n" % (self.repo.sha(c)[:7], self.repo.commits[c].subject))
            else:
                if shown:
                    out.write("\n")
                self.header(c, out)
            shown += 1
        return 0

    def header(self, i, out):
        """A commit as `git log` and `git show` print it (medium format)."""
        d = self.repo.date(i)  # git's default format: the day of the month unpadded
        date = "%s %d %s" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y %z"))
        out.write("commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n" % (
            self.repo.sha(i), self.repo.author, date, self.repo.commits[i].subject))

    def status(self, args, out):
        if len(args) != 1 or args[0] not in ("--porcelain", "--short", "-s"):
            raise Unsupported()
        for line in self.repo.status:
            out.write(line + "\n")
        return 0

    def show(self, args, out):
        if "--stat" not in args or any(a not in ("--stat", "HEAD") for a in args):
            raise Unsupported()
        self.header(self.head(), out)
        out.write("\n")
        write_stat(self.repo.commits[self.head()].files, out)
        return 0


def _count(s):
    try:
        return int(s)
    except ValueError:
        raise Unsupported()


def write_stat(files, out):
    """A diffstat as git prints it at 80 columns, for changes small enough
    that git draws one sign per line."""
    name_w = max(len(f.path) for f in files)
    count_w = max(len(str(f.added + f.deleted)) for f in files)
    ins = sum(f.added for f in files)
    dels = sum(f.deleted for f in files)
    for f in files:
        line = " %-*s | %*d" % (name_w, f.path, count_w, f.added + f.deleted)
        if f.added + f.deleted:
            line += " " + "+" * f.added + "-" * f.deleted
        out.write(line + "\n")
    line = " %d %s changed" % (len(files), _plural(len(files), "file", "files"))
    if ins or not dels:
        line += ", %d %s(+)" % (ins, _plural(ins, "insertion", "insertions"))
    if dels or not ins:
        line += ", %d %s(-)" % (dels, _plural(dels, "deletion", "deletions"))
    out.write(line + "\n")


def _plural(n, one, many):
    return one if n == 1 else many


def main(fake=None):
    """Run as a command: `python3 fake_git.py ARGS`."""
    r = (fake or FakeGit()).run(sys.argv[1:], input=sys.stdin.buffer.read() if not sys.stdin.isatty() else b"")
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
