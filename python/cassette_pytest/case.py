"""A case of the harness protocol, as a test drives its fake with it."""

import io
import os
import sys
import time
import traceback
import urllib.parse

from .client import text_field, text_value


class Result:
    """The verdict of ``cassette check`` on one case (the "result" line).

    ``text`` is what to print when the case did not pass: the cassette's
    file:line and verify's drift text. ``blocking`` is whether it fails the
    run (a failure not covered by an unexpired quarantine entry)."""

    def __init__(self, answer):
        get = answer.get
        self.answer = answer
        self.status = answer["status"]
        self.passed = self.status == "pass"
        self.blocking = get("blocking", False)
        self.quarantined = get("quarantined", False)
        self.reason = get("reason", "")
        self.message = get("message", "")
        self.file = answer["file"]
        self.line = answer["line"]
        self.drifts = get("drifts") or []
        self.explain = get("explain", "")
        self.text = get("text", "")

    def __repr__(self):
        return "Result(%s %s %s:%d)" % (self.answer["id"], self.status, self.file, self.line)


class Request:
    """One request for an HTTP fake: method, target (path and query), the
    recorded url, headers (a list of (name, value)) and body (bytes)."""

    def __init__(self, r):
        self.method = r["method"]
        self.target = r["target"]
        self.url = r["url"]
        self.path, _, self.query = self.target.partition("?")
        self.headers = [(k, v) for k, vs in sorted(r.get("headers", {}).items()) for v in vs]
        self.body = text_value(r, "body")

    def header(self, name, default=None):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return default


def _response(r):
    """A fake's response as the protocol's: from (status, headers, body) or
    an object with status (or status_code), headers and body (or content,
    data). headers may be a dict or a list of (name, value)."""
    if isinstance(r, tuple):
        status, headers, body = (tuple(r) + (None, None))[:3]
        reason = ""
    else:
        status = getattr(r, "status", None)
        if status is None:
            status = getattr(r, "status_code")
        headers = getattr(r, "headers", None)
        body = next((getattr(r, a) for a in ("body", "content", "data") if getattr(r, a, None) is not None), b"")
        reason = getattr(r, "reason", "") or ""
    if isinstance(status, str):  # "201 Created"
        code, _, reason = status.partition(" ")
        status = int(code)
    out = {"status": int(status), "headers": {}}
    if reason:
        out["reason"] = reason
    items = headers.items() if hasattr(headers, "items") else (headers or [])
    for k, v in items:
        out["headers"].setdefault(k, []).extend(v if isinstance(v, (list, tuple)) else [str(v)])
    out.update(text_field(body, "body"))
    return out


def wsgi_handler(app):
    """An HTTP handler (Request → response) that calls a WSGI application
    in process, as a WSGI server would."""
    def handle(req):
        environ = {
            "REQUEST_METHOD": req.method, "SCRIPT_NAME": "", "PATH_INFO": urllib.parse.unquote(req.path),
            "QUERY_STRING": req.query, "SERVER_NAME": "localhost", "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.version": (1, 0), "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(req.body), "wsgi.errors": sys.stderr, "wsgi.multithread": False,
            "wsgi.multiprocess": False, "wsgi.run_once": False, "CONTENT_LENGTH": str(len(req.body)),
        }
        for k, v in req.headers:
            key = k.upper().replace("-", "_")
            if key == "CONTENT_TYPE":
                environ["CONTENT_TYPE"] = v
            elif key != "CONTENT_LENGTH":
                name = "HTTP_" + key
                environ[name] = environ[name] + "," + v if name in environ else v
        started = {}

        def start_response(status, headers, exc_info=None):
            started["status"], started["headers"] = status, headers
            return lambda data: None

        chunks = app(environ, start_response)
        try:
            body = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):
                chunks.close()
        return started["status"], started["headers"], body
    return handle


class Case:
    """One case of an adapter, as the listing gives it. A CLI case has
    ``args``, ``stdin`` (bytes), ``env`` (the recorded names with their
    values in this process), ``cwd`` and ``command``; an HTTP case has
    ``requests``. ``verify_cli``, ``verify_http`` and ``verify_wsgi`` drive
    a fake with it and fail the test with cassette's drift text."""

    def __init__(self, project, c, replay="", test=""):
        self.project = project
        self.test = test
        self.checked = False
        self.last = None  # the last Result of this case
        self.raw = c
        self.id = c["id"]
        self.adapter = c["adapter"]
        self.scenario = c["scenario"]
        self.kind = c["kind"]
        self.file = c["file"]
        self.line = c["line"]
        self.quarantine = c.get("quarantine")
        self.replay = replay
        cli = c.get("cli")
        if cli is not None:
            self.command = cli["command"]
            self.args = list(cli["args"])
            self.stdin = text_value(cli, "stdin")
            env = cli["env"]
            self.env = {n: os.environ[n] for n in env if n in os.environ} if env else {}
            self.cwd = cli["dir"]
        http = c.get("http")
        self.requests = [Request(r) for r in http["requests"]] if http is not None else []

    def __repr__(self):
        return "Case(%s)" % self.id

    def _line(self, fields):
        line = {"id": self.id, "file": self.file}
        if self.replay:
            line["replay"] = self.replay
        if self.test:
            line["test"] = self.test
        line.update(fields)
        return line

    # The low level: send what the fake produced, get the verdict.

    def check_cli(self, stdout=b"", stderr=b"", exit_code=0, duration_ms=None):
        """Judge a CLI fake's output; return the Result."""
        out = {"exit_code": int(exit_code)}
        # the usual str output set at once; bytes or None as text_field says
        if type(stdout) is str:
            out["stdout"] = stdout
        else:
            out.update(text_field(stdout, "stdout"))
        if type(stderr) is str:
            out["stderr"] = stderr
        else:
            out.update(text_field(stderr, "stderr"))
        return self._check({"cli": out}, duration_ms)

    def check_http(self, responses, duration_ms=None):
        """Judge an HTTP fake's responses, in request order; return the Result."""
        return self._check({"http": {"responses": [_response(r) for r in responses]}}, duration_ms)

    def check_error(self, message, duration_ms=None):
        """Record that the fake could not answer at all (it raised)."""
        return self._check({"error": message}, duration_ms)

    def _check(self, fields, duration_ms=None):
        if duration_ms is not None:
            fields["duration_ms"] = duration_ms
        self.checked = True
        answer = self.project.ask(self._line(fields))
        if answer.get("type") != "result":
            raise AssertionError(answer.get("message", answer))
        self.last = Result(answer)
        return self.last

    def next_request(self, responses):
        """The request to send after these responses, with the fake's own
        ids where the recording had the real service's."""
        if not responses:
            return self.requests[0]
        answer = self.project.ask(self._line({"type": "next", "http": {"responses": [_response(r) for r in responses]}}))
        if answer.get("type") != "request":
            raise AssertionError(answer.get("message", answer))
        return Request(answer["request"])

    # The high level: drive the fake, then judge (on_result decides what a
    # verdict does to the test: the pytest plugin fails or xfails it).

    def run_cli(self, fake):
        """Call fake(case) → (exit_code, stdout, stderr), a
        subprocess.CompletedProcess or any object with returncode, stdout
        and stderr; return the Result."""
        t0 = time.perf_counter()
        try:
            r = fake(self)
        except Exception as e:
            self.check_error(_error_text(e), duration_ms=_ms(t0))
            raise
        ms = _ms(t0)
        try:
            if isinstance(r, tuple):
                code, stdout, stderr = r
            else:
                code, stdout, stderr = r.returncode, r.stdout, r.stderr
        except (TypeError, ValueError, AttributeError):
            msg = ("the fake %s returned %s: expected (exit_code, stdout, stderr) or an object with returncode, "
                   "stdout and stderr (a subprocess.CompletedProcess)" % (_name(fake), _short(r)))
            self.check_error(msg, duration_ms=ms)
            raise TypeError(msg) from None
        return self.check_cli(stdout, stderr, code, duration_ms=ms)

    def run_http(self, handler):
        """Send each request to handler(request) → response (see
        check_http for the shapes it may return); return the Result."""
        t0 = time.perf_counter()
        responses = []
        try:
            for _ in self.requests:
                r = handler(self.next_request(responses))
                if r is None:
                    raise TypeError("the fake %s returned None for request %d: expected (status, headers, body) or an "
                                    "object with status, headers and body" % (_name(handler), len(responses) + 1))
                responses.append(r)
        except Exception as e:
            self.check_error(_error_text(e), duration_ms=_ms(t0))
            raise
        return self.check_http(responses, duration_ms=_ms(t0))


def _name(fake):
    """A fake as a person names it: its qualified name (FakeGit.run, a
    lambda in test_git.py:12)."""
    code = getattr(fake, "__code__", None)
    name = getattr(fake, "__qualname__", None) or type(fake).__qualname__
    if name.endswith("<lambda>") and code is not None:
        return "lambda at %s:%d" % (os.path.basename(code.co_filename), code.co_firstlineno)
    return name


def _short(v):
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _ms(t0):
    return (time.perf_counter() - t0) * 1000.0


def _error_text(e):
    lines = traceback.format_exception_only(type(e), e)
    return "the fake raised " + "".join(lines).strip()
