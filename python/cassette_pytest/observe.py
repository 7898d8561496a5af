"""Observations for ``cassette coverage``: the calls a project's own tests
make to an in-process fake, one JSON line each, in cassette's observation
format (version 1; see the README's "The observation format"). Coverage
then holds the call shapes the code uses against the cassettes.

    git = observe_cli("git", FakeGit().run)      # the code under test calls git(args, ...)
    app = observe_wsgi("github", FakeGitHub())   # a WSGI fake

Lines go to $CASSETTE_OBSERVE_DIR (the run ``cassette observe`` set up),
else, in a pytest session, to a new run of the session's own below the
project's .cassette/observed/ (xdist workers share it; coverage reads the
latest run), else to .cassette/observed/ beside the nearest cassette.yaml
above the working directory; in a file of this process (pytest-<pid>.jsonl), each written
whole with one write on a file opened for appending. The test that made
the call is pytest's current test. Values of environment variables whose
names say they are credentials are replaced by [REDACTED] before anything
is written (``cassette coverage`` redacts again when it reads).
"""

import json
import os
import re
import time

from . import client
from .client import find_config

FORMAT = 1

ENV_DIR = "CASSETTE_OBSERVE_DIR"

# The runs of the pytest sessions of this process, innermost last (a
# pytester session runs inside another): the plugin pushes its session's.
_RUNS = []


def run_name(now=None, pid=None):
    """The name of a run of observations that begins now, as cassette names
    runs (20261201T193215.123456Z-4242): coverage reads the latest run."""
    now = time.time() if now is None else now
    return "%s.%06dZ-%d" % (time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)), int(now * 1e6) % 1000000,
                            os.getpid() if pid is None else pid)


def push_run(directory):
    _RUNS.append(directory)


def pop_run(directory):
    if _RUNS and _RUNS[-1] == directory:
        _RUNS.pop()

_CREDENTIAL_NAME = re.compile(r"TOKEN|SECRET|PASSW|API_?KEY|AUTH|CREDENTIAL|PRIVATE", re.I)


def _secrets():
    vals = [v for k, v in os.environ.items() if _CREDENTIAL_NAME.search(k) and len(v) >= 6]
    return sorted(set(vals), key=len, reverse=True)


def _redact(s, secrets):
    for v in secrets:
        s = s.replace(v, "[REDACTED]")
    return s


class Observer:
    """Writes the observed calls to one adapter's fake."""

    def __init__(self, adapter, kind, directory=None, source="pytest"):
        self.adapter, self.kind, self.source = adapter, kind, source
        self.directory = directory

    def _dir(self):
        if self.directory:
            return self.directory
        if _RUNS and _RUNS[-1]:
            return _RUNS[-1]
        if os.environ.get(ENV_DIR):
            return os.environ[ENV_DIR]
        config = find_config(os.getcwd())
        return os.path.join(os.path.dirname(config) if config else os.getcwd(), ".cassette", "observed")

    def _write(self, call, test):
        if test is None:
            test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
        line = {"v": FORMAT, "adapter": self.adapter, "kind": self.kind, "call": call, "source": self.source}
        if test:
            line["test"] = test
        d = self._dir()
        os.makedirs(d, exist_ok=True)
        data = (json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(os.path.join(d, "%s-%d.jsonl" % (self.source, os.getpid())), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def cli(self, argv, stdin=None, test=None):
        """Record one command line (the command first) and its stdin."""
        secrets = _secrets()
        call = {"argv": [_redact(str(a), secrets) for a in argv]}
        if stdin:
            call["stdin"] = True
            # Non-UTF-8 input counts as given and is not written (as the
            # JS binding and the shim do); it never fails the code under test.
            text = client.text_field(stdin, "input").get("input")
            if text is not None and len(text) <= 64 << 10:
                call["input"] = _redact(text, secrets)
        self._write(call, test)

    def http(self, method, url, content_type=None, body=None, test=None):
        """Record one request: method, path and query, its body."""
        secrets = _secrets()
        call = {"method": method, "url": _redact(url, secrets)}
        if content_type:
            call["content_type"] = content_type
        if body:
            raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
            try:
                if len(raw) > 1 << 20:
                    raise UnicodeDecodeError("utf-8", raw, 0, 1, "too large")
                call["body"] = _redact(raw.decode("utf-8"), secrets)
            except UnicodeDecodeError:
                call["body_bytes"] = len(raw)
        self._write(call, test)


def observe_cli(adapter, fake, command=None, directory=None):
    """Wrap an in-process CLI fake called as fake(args, ..., input=stdin):
    each call is observed (command defaults to the adapter's name), then
    made."""
    obs = Observer(adapter, "cli", directory)

    def observed(args, *a, **kw):
        obs.cli([command or adapter] + list(args), stdin=kw.get("input", kw.get("stdin")))
        return fake(args, *a, **kw)
    return observed


def observe_wsgi(adapter, app, directory=None):
    """Wrap a WSGI fake: each request is observed, then served."""
    obs = Observer(adapter, "http", directory)

    def observed(environ, start_response):
        import io
        n = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(n) if n else b""
        environ["wsgi.input"] = io.BytesIO(body)
        url = environ.get("PATH_INFO", "") + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else "")
        obs.http(environ["REQUEST_METHOD"], url, environ.get("CONTENT_TYPE"), body)
        return app(environ, start_response)
    return observed
