"""The harness protocol, client side: one ``cassette check`` co-process
per project, which lists the cases (a "cases" line; ``cassette cases
--json`` when check cannot) and then judges them.

This module knows nothing of pytest, so that any Python runner (unittest, a
script, a benchmark) can use it. Every decision (normalizing, comparing,
the drift text, quarantine) is the cassette binary's: this side only runs
the fake and moves JSON.
"""

import base64
import json
import os
import shutil
import subprocess
import threading

PROTOCOL = 1

# One encoder for every line (json.dumps with separators builds a new one
# per call), and one decoder for every answer: json.loads of bytes first
# guesses their encoding and then matches the whitespace around the value,
# where an answer is one UTF-8 JSON object on a line.
_encode = json.JSONEncoder(separators=(",", ":")).encode
_decode = json.JSONDecoder().raw_decode

CONFIG_FILE = "cassette.yaml"


class CassetteError(Exception):
    """The cassette binary could not be run, refused the project, or
    answered out of protocol. next_step is the command to run next, when
    there is one."""

    def __init__(self, message, next_step=None):
        super().__init__(message)
        self.message = message
        self.next_step = next_step

    def text(self):
        """The error as a person reads it: the next step first."""
        return ("next: %s\n%s" % (self.next_step, self.message)) if self.next_step else self.message


def find_binary(explicit=None):
    """The cassette binary: explicit (a path or a name on PATH), else
    $CASSETTE_BIN, else ``cassette`` on PATH."""
    name = explicit or os.environ.get("CASSETTE_BIN") or "cassette"
    path = shutil.which(name) if os.sep not in name else (name if os.access(name, os.X_OK) else None)
    if path is None:
        raise CassetteError(
            "cannot find the cassette binary %r: install it, or name it with --cassette-bin or CASSETTE_BIN" % name,
            next_step="go install github.com/cassette-dev/cassette/cmd/cassette@latest")
    return os.path.abspath(path)


def find_config(start, stop=None):
    """The nearest cassette.yaml in start or a directory above it (not above
    stop, when given), or None."""
    d = os.path.abspath(start)
    stop = os.path.abspath(stop) if stop else None
    while True:
        p = os.path.join(d, CONFIG_FILE)
        if os.path.isfile(p):
            return p
        parent = os.path.dirname(d)
        if d == stop or parent == d:
            return None
        d = parent


def text_field(value, name):
    """A str or bytes as the protocol's text field: {name: str} when it is
    UTF-8, {name_base64: str} when it is not."""
    if value is None:
        value = b""
    if isinstance(value, str):
        return {name: value}
    try:
        return {name: bytes(value).decode("utf-8")}
    except UnicodeDecodeError:
        return {name + "_base64": base64.b64encode(bytes(value)).decode("ascii")}


def text_value(obj, name):
    """The bytes of a protocol text field (name or name_base64)."""
    if obj.get(name + "_base64"):
        return base64.b64decode(obj[name + "_base64"])
    return (obj.get(name) or "").encode("utf-8")


def _refusal(p, argv):
    """The error of a cassette command that refused (its --json error
    object on stdout: message, problems, next_step)."""
    try:
        e = json.loads(p.stdout)
        lines = ["%s: %s" % (" ".join(argv), e["message"])]
        for pr in e.get("problems") or []:
            loc = "%s:%s" % (pr.get("file", ""), pr.get("line", "")) if pr.get("line") else pr.get("file", "")
            lines.append("  %s: %s: %s%s" % (loc, pr.get("field", ""), pr.get("message", ""),
                                            "; " + pr["suggestion"] if pr.get("suggestion") else ""))
        return CassetteError("\n".join(lines), next_step=e.get("next_step"))
    except (ValueError, KeyError, TypeError):
        return CassetteError("%s failed (exit %d):\n%s" % (" ".join(argv), p.returncode, p.stderr.decode("utf-8", "replace").strip()))


class Project:
    """One cassette.yaml: its cases, and the check co-process that judges
    what the fakes produced. The binary always runs in the config's
    directory with the config's base name, so that the paths in its
    answers read as ``cassette verify``'s, run there."""

    def __init__(self, binary, config, report_dir=None):
        self.binary = binary
        self.config = os.path.abspath(config)
        self.dir = os.path.dirname(self.config)
        self.report_dir = os.path.abspath(report_dir) if report_dir else None
        self._checker = None
        self._judged = False  # a line other than a listing was sent
        self._lock = threading.Lock()

    def _argv(self, *args):
        return [self.binary, "--config", os.path.basename(self.config)] + list(args)

    def cases(self, adapter=None):
        """The listing of ``cassette cases --json`` (for one adapter),
        asked of the check co-process, which then judges the cases from
        the cassettes it loaded for it: they are loaded once. When check
        cannot answer it (the project is refused), ``cassette cases
        --json`` says why."""
        line = {"type": "cases", "adapter": adapter} if adapter else {"type": "cases"}
        try:
            listing = self._ask(line, judges=False)
        except CassetteError:
            listing = None
        if listing is not None and listing.get("type") == "cases":
            del listing["type"]
            return self._speaks(listing)
        return self._list(adapter)

    def _list(self, adapter):
        args = ["cases", "--json"] + (["--adapter", adapter] if adapter else [])
        p = subprocess.run(self._argv(*args), cwd=self.dir, capture_output=True)
        if p.returncode != 0:
            raise _refusal(p, ["cassette"] + args)
        return self._speaks(json.loads(p.stdout))

    @staticmethod
    def _speaks(listing):
        if listing.get("protocol") != PROTOCOL:
            raise CassetteError("cassette speaks harness protocol %r; this binding speaks %d: "
                                "use a cassette and a binding of one release" % (listing.get("protocol"), PROTOCOL))
        return listing

    def ask(self, line):
        """Send one line to the check co-process and return its answer."""
        return self._ask(line, judges=True)

    def _ask(self, line, judges):
        # A line is written with one write on the pipe's file descriptor
        # (not through the BufferedWriter, whose write and flush are two
        # calls), and its answer read from the BufferedReader.
        data = (_encode(line) + "\n").encode("utf-8")
        with self._lock:
            p = self._checker
            if p is None:
                args = ["check"] + (["--report-dir", self.report_dir] if self.report_dir else [])
                p = self._checker = subprocess.Popen(self._argv(*args), cwd=self.dir, stdin=subprocess.PIPE,
                                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if judges:
                self._judged = True
            try:
                _write_all(p.stdin.fileno(), data)
                answer = p.stdout.readline()
            except BrokenPipeError:
                answer = b""
            if not answer:
                self._checker = None
                p.kill()
                _, err = p.communicate()
                raise CassetteError("cassette check ended (exit %s): %s" % (
                    p.returncode, err.decode("utf-8", "replace").strip()))
            return _decode(answer.decode("utf-8"))[0]

    def close(self):
        """End the check co-process; return its summary line (None when no
        case was checked)."""
        with self._lock:
            p, self._checker = self._checker, None
            judged, self._judged = self._judged, False
        if p is None:
            return None
        if not judged:  # it only listed: no reports of no case
            p.kill()
            p.communicate()
            return None
        out, err = p.communicate()
        lines = [json.loads(l) for l in out.splitlines() if l.strip()]
        summary = lines[-1] if lines and lines[-1].get("type") == "summary" else None
        if summary is None:
            raise CassetteError("cassette check ended (exit %s) without a summary: %s" % (
                p.returncode, err.decode("utf-8", "replace").strip()))
        return summary


def _write_all(fd, data):
    """Write all of data to fd (a pipe may take a long line in parts)."""
    n = os.write(fd, data)
    if n < len(data):
        view = memoryview(data)
        while n < len(view):
            n += os.write(fd, view[n:])
