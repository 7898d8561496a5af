"""The pytest plugin, end to end: a project on disk, the real cassette
binary, and pytest run on test files that drive in-process fakes."""

import datetime
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)

TODAY = datetime.date.today()


def day(delta):
    return (TODAY + datetime.timedelta(days=delta)).isoformat()


CONFIG = """\
version: 1
adapters:
  greet:
    kind: cli
    fake: {in_process: true}
  items:
    kind: http
    fake: {in_process: true}
    normalizers: [uuid]
    contract_headers: [Content-Type]
quarantine:
%s
"""

QUARANTINE = ("  greet/%s: {category: FLAKE-ENV, owner: alice, quarantined: %s, expires: %s, bead: \"#1\", "
              "evidence: ci/1, repro: pytest, reason: port race, remove_when: 3 green runs}")


def cli_cassette(scenario, args, stdout, exit_code=0):
    return textwrap.dedent("""\
        cassette: 1
        version: 2
        adapter: greet
        scenario: %s
        kind: cli
        input:
          command: greet
          args: %s
          stdin: "Ada\\n"
          env: [GREET_LANG]
        output:
          stdout: %s
          stderr: ""
          exit_code: %d
        interactions: []
        """) % (scenario, json.dumps(args), json.dumps(stdout), exit_code)


# The HTTP cassette the harness tests of every language share.
ITEMS = open(os.path.join(os.path.dirname(PYTHON_DIR), "internal", "harness", "testdata", "create-then-get.yaml")).read()

# The fakes the test files import: a greeter (reads the name on stdin, the
# language from GREET_LANG) and an item store that makes its own ids, as a
# WSGI application.
FAKES = '''
import json, uuid

def greet(args, stdin, env):
    name = stdin.decode().strip()
    if args == ["hello"]:
        return 0, ("Hello, %s!\\n" if env.get("GREET_LANG") != "fr" else "Bonjour, %s!\\n") % name, ""
    if args == ["bye"]:
        return 0, "Bye, %s!\\n" % name, ""
    if args == ["flaky"]:
        return 0, "sometimes\\n", ""
    raise KeyError(args[0])

class Items:
    def __init__(self):
        self.items = {}
    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] == "POST":
            body = json.loads(environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"])))
            i = str(uuid.uuid4())
            self.items[i] = body["name"]
            start_response("201 Created", [("Content-Type", "application/json")])
            return [json.dumps({"id": i, "name": body["name"]}, separators=(",", ":")).encode()]
        i = environ["PATH_INFO"].rsplit("/", 1)[1]
        if i not in self.items:
            start_response("404 Not Found", [("Content-Type", "application/json")])
            return [b'{"error":"no such item"}']
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"id": i, "name": self.items[i]}, separators=(",", ":")).encode()]
'''

GREET_TEST = '''
import pytest
from fakes import greet

@pytest.mark.cassette("greet")
def test_greet(cassette_case):
    cassette_case.verify_cli(lambda c: greet(c.args, c.stdin, c.env))
'''


@pytest.fixture
def project(pytester, cassette_bin, monkeypatch):
    """A project with a CLI and an HTTP adapter whose fakes are in process."""
    monkeypatch.setenv("CASSETTE_BIN", cassette_bin)
    monkeypatch.setenv("GREET_LANG", "en")
    monkeypatch.syspath_prepend(str(pytester.path))
    pytester.makefile(".yaml", cassette=CONFIG % QUARANTINE % ("flaky", day(0), day(7)))
    d = pytester.path / "cassettes" / "greet"
    d.mkdir(parents=True)
    (d / "hello.yaml").write_text(cli_cassette("hello", ["hello"], "Hello, Ada!\n"))
    (d / "bye.yaml").write_text(cli_cassette("bye", ["bye"], "Goodbye, Ada!\n"))
    (d / "flaky.yaml").write_text(cli_cassette("flaky", ["flaky"], "always\n"))
    d = pytester.path / "cassettes" / "items"
    d.mkdir(parents=True)
    (d / "create-then-get.yaml").write_text(ITEMS)
    pytester.makepyfile(fakes=FAKES)
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "cassette_pytest", "-p", "no:cacheprovider", *args)


def test_cases_pass_and_drift_with_the_located_text(project):
    project.makepyfile(test_greet=GREET_TEST)
    r = run(project, "-v", "--cassette-report-dir", "reports")
    r.assert_outcomes(passed=1, failed=1, xfailed=1)
    # One test per case, named by the case id, in verify's order.
    r.stdout.fnmatch_lines(["*test_greet[[]greet/bye[]] FAILED*", "*test_greet[[]greet/flaky[]] XFAIL*",
                            "*test_greet[[]greet/hello[]] PASSED*"])
    r.stdout.fnmatch_lines([
        "*_ test_greet[[]greet/bye[]] _*",
        'cassettes/greet/bye.yaml:13: body drift at output.stdout: line "Goodbye, Ada!" became "Bye, Ada!"',
        "greet/bye: 1 drift",
        "  body        output.stdout  (cassettes/greet/bye.yaml:13)",
        "      -Goodbye, Ada!",
        "      +Bye, Ada!",
    ])
    r.stdout.fnmatch_lines(["cassette check cassette.yaml: 3 checked, 1 passed, 1 failed, 1 quarantined; reports: *reports"])
    summary = json.loads((project.path / "reports" / "summary.json").read_text())
    assert summary["exit_code"] == 1 and summary["reason_code"] == "E_CONTRACT_DRIFT"
    # The reports' next step runs the failing case again, in pytest.
    # (with this interpreter: a venv's python, not the first python3 on PATH)
    assert summary["next_step"] == "Run: %s -m pytest 'test_greet.py::test_greet[greet/bye]'" % sys.executable


def test_recorded_environment_names_reach_the_fake(project, monkeypatch):
    project.makepyfile(test_greet=GREET_TEST)
    monkeypatch.setenv("GREET_LANG", "fr")
    r = run(project, "-k", "hello")
    r.assert_outcomes(failed=1, deselected=2)
    r.stdout.fnmatch_lines(['*line "Hello, Ada!" became "Bonjour, Ada!"'])


def test_quarantine(project):
    project.makepyfile(test_greet=GREET_TEST)
    # In quarantine: the failure xfails, with the drift's first line.
    r = run(project, "-k", "flaky", "-rx")
    r.assert_outcomes(xfailed=1, deselected=2)
    r.stdout.fnmatch_lines(["XFAIL*greet/flaky*quarantined: cassettes/greet/flaky.yaml:13: body drift at output.stdout*"])
    # The marker selects quarantined cases.
    r = run(project, "-m", "not cassette_quarantine")
    r.assert_outcomes(passed=1, failed=1, deselected=1)
    # Expired: the case fails, whatever its output.
    (project.path / "cassette.yaml").write_text(CONFIG % QUARANTINE % ("flaky", day(-20), day(-10)))
    r = run(project, "-k", "flaky")
    r.assert_outcomes(failed=1, deselected=2)
    r.stdout.fnmatch_lines(["*: quarantine of greet/flaky expired on %s" % day(-10)])


def test_a_fake_that_raises_errors_the_case(project):
    project.makepyfile(test_greet='''
import pytest
from fakes import greet

@pytest.mark.cassette("greet")
def test_greet(cassette_case):
    cassette_case.verify_cli(lambda c: greet(["nope"], c.stdin, c.env))
''')
    r = run(project, "-k", "hello", "--cassette-report-dir", "reports")
    r.assert_outcomes(failed=1, deselected=2)
    r.stdout.fnmatch_lines(["*KeyError: 'nope'"])  # the fake's own traceback
    summary = json.loads((project.path / "reports" / "summary.json").read_text())
    assert summary["reason_code"] == "E_FAKE_ERROR", summary


def test_bytes_that_are_not_utf8(project):
    project.makepyfile(test_greet='''
import pytest

@pytest.mark.cassette("greet")
def test_greet(cassette_case):
    cassette_case.verify_cli(lambda c: (0, b"Hello, \\xff!\\n", b""))
''')
    r = run(project, "-k", "hello")
    r.assert_outcomes(failed=1, deselected=2)
    r.stdout.fnmatch_lines(["cassettes/greet/hello.yaml:*: body drift at output.stdout*"])


def test_http_fake_with_its_own_ids(project):
    project.makepyfile(test_items='''
import json
import pytest
from fakes import Items

@pytest.mark.cassette("items")
def test_wsgi(cassette_case):
    cassette_case.verify_wsgi(Items())

@pytest.mark.cassette("items")
def test_handler(cassette_case):
    app = Items()
    def handle(req):
        assert req.header("content-type") in (None, "application/json")
        status, headers, body = __import__("cassette_pytest").case.wsgi_handler(app)(req)
        return status, headers, body
    result = cassette_case.verify_http(handle)
    assert result.passed and result.file == "cassettes/items/create-then-get.yaml"

@pytest.mark.cassette("items")
def test_as_recorded(cassette_case):
    # Requests sent as listed carry the recorded id, which this fake never made.
    app = Items()
    cassette_case.assert_http([__import__("cassette_pytest").case.wsgi_handler(app)(r) for r in cassette_case.requests])
''')
    r = run(project)
    r.assert_outcomes(passed=2, failed=1)
    r.stdout.fnmatch_lines(["cassettes/items/create-then-get.yaml:*: status drift at interactions[[]1[]].response.code*404*"])


UNIT_TEST = '''
def test_unrelated_unit():
    assert 1 + 1 == 2
'''


def test_setup_problems_fail_only_the_contract_tests(project):
    """A missing binary, a config error or an unknown adapter fails the
    contract tests that need it, once each, the next step first and no
    plugin frames; the session's other tests run."""
    project.makepyfile(test_greet=GREET_TEST, test_unit=UNIT_TEST)
    r = run(project, "--cassette-bin", "/nonexistent/cassette")
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["*_ test_greet[[]greet:set-up[]] _*",
                            "next: go install github.com/cassette-dev/cassette/cmd/cassette@latest",
                            "cannot find the cassette binary '/nonexistent/cassette'*"])
    assert "cassette_pytest" not in r.stdout.str().split("short test summary")[0].split("FAILURES")[1].replace("-p cassette_pytest", "")
    project.makepyfile(test_greet='''
import pytest

@pytest.mark.cassette("gret")
def test_nope(cassette_case):
    pass
''')
    r = run(project)
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["next: cassette *", "cassette cases --json --adapter gret: *gret*"])
    cfg = project.path / "cassette.yaml"
    good = cfg.read_text()
    cfg.write_text(good.replace("fake: {in_process: true}", "fak: {in_process: true}", 1))
    project.makepyfile(test_greet=GREET_TEST)
    r = run(project)
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["next: cassette validate", "*cassette.yaml does not fit the config schema",
                            "  cassette.yaml:*: adapters.greet.fak: unknown field `fak`; did you mean `fake`?"])
    cfg.write_text(good)


def test_usage_errors(project):
    """Only a misuse of the plugin itself stops the session."""
    project.makepyfile(test_greet='''
def test_unmarked(cassette_case):
    pass
''')
    r = run(project)
    r.stdout.fnmatch_lines(["*test_unmarked takes cassette_case: mark it @pytest.mark.cassette(\"ADAPTER\")*"])
    assert r.ret != 0


def test_installs_with_pip_and_loads_by_entry_point(project, tmp_path):
    """pip installs the plugin from the repository path (offline: no
    dependency is fetched), and pytest then loads it without -p."""
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                        "--no-build-isolation", "--target", str(target), str(src)], capture_output=True, text=True)
    if p.returncode != 0 and "No module named pip" in p.stderr:
        why = "pip is not installed: apt-get install python3-pip (.ci/run installs it)"
        if os.environ.get("CASSETTE_REQUIRE_BINDINGS"):  # CI: a skip would pass unseen
            pytest.fail(why)
        pytest.skip(why)
    assert p.returncode == 0, p.stderr
    assert (target / "cassette_pytest" / "__init__.py").exists()
    project.makepyfile(test_greet=GREET_TEST)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}  # the entry point is the point
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(project.path)])
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", "hello"],
                       cwd=project.path, env=env, capture_output=True, text=True)
    assert "1 passed" in r.stdout, r.stdout + r.stderr
    assert "cassette check cassette.yaml: 1 checked, 1 passed" in r.stdout


def test_observations_for_coverage(project, monkeypatch):
    """The project's own tests call a wrapped fake; each call becomes a
    line of cassette's observation format, naming the test, with credential
    values redacted."""
    monkeypatch.setenv("GREET_TOKEN", "tok-abcdef-123456")
    project.makepyfile(test_app='''
import io, os
from cassette_pytest import observe_cli, observe_wsgi
from fakes import greet, Items

def run_greet(args, input=None):
    return greet(args[:1], input or b"", os.environ)

def test_code_under_test():
    g = observe_cli("greet", run_greet)
    assert g(["hello", "--token", os.environ["GREET_TOKEN"]], input=b"Ada\\n")[1] == "Hello, Ada!\\n"
    app = observe_wsgi("items", Items())
    env = {"REQUEST_METHOD": "POST", "PATH_INFO": "/items", "QUERY_STRING": "x=1", "CONTENT_TYPE": "application/json",
           "CONTENT_LENGTH": "14", "wsgi.input": io.BytesIO(b'{"name":"pen"}')}
    assert b'"name":"pen"' in b"".join(app(env, lambda status, headers: None))
''')
    r = run(project)
    r.assert_outcomes(passed=1)
    # One run of the session's own below the project's .cassette/observed,
    # whatever the working directory.
    runs = list((project.path / ".cassette" / "observed").iterdir())
    assert len(runs) == 1 and runs[0].is_dir(), runs
    files = list(runs[0].glob("pytest-*.jsonl"))
    assert len(files) == 1, files
    lines = [json.loads(l) for l in files[0].read_text().splitlines()]
    assert lines == [
        {"v": 1, "adapter": "greet", "kind": "cli", "source": "pytest", "test": "test_app.py::test_code_under_test",
         "call": {"argv": ["greet", "hello", "--token", "[REDACTED]"], "stdin": True, "input": "Ada\n"}},
        {"v": 1, "adapter": "items", "kind": "http", "source": "pytest", "test": "test_app.py::test_code_under_test",
         "call": {"method": "POST", "url": "/items?x=1", "content_type": "application/json", "body": '{"name":"pen"}'}},
    ]
    assert "tok-abcdef-123456" not in files[0].read_text()


def test_observer_takes_non_utf8_stdin(tmp_path):
    """Input that is not UTF-8 counts as given and is not written: it
    never fails the code under test (it raised UnicodeDecodeError inside
    the observed call)."""
    from cassette_pytest.observe import Observer
    Observer("greet", "cli", directory=str(tmp_path)).cli(["greet", "hello"], stdin=b"\xff\xfeAda\n", test="t")
    (f,) = list(tmp_path.glob("*.jsonl"))
    (line,) = [json.loads(l) for l in f.read_text().splitlines()]
    assert line["call"] == {"argv": ["greet", "hello"], "stdin": True}


def test_each_session_is_a_run_of_its_own(project):
    """A later session writes a new run (coverage reads the latest), and the
    project is found from cassette.yaml, not from the working directory."""
    project.makepyfile(test_app='''
from cassette_pytest import observe_cli

def test_calls():
    observe_cli("greet", lambda args: (0, "", ""))(["hello"])
''')
    (project.path / "sub").mkdir()
    run(project)
    os.chdir(project.path / "sub")
    run(project, str(project.path / "test_app.py"))
    runs = sorted((project.path / ".cassette" / "observed").iterdir())
    assert len(runs) == 2 and all(r.is_dir() and list(r.glob("pytest-*.jsonl")) for r in runs), runs
    assert not (project.path / "sub" / ".cassette").exists()


PARAM_TEST = '''
import pytest
from fakes import greet

def drifting(args, stdin, env):
    return 0, "Hi there!\\n", ""

@pytest.mark.cassette("greet")
@pytest.mark.parametrize("fake", [greet, drifting], ids=["good", "drifting"])
def test_fakes(fake, cassette_case):
    cassette_case.verify_cli(lambda c: fake(c.args, c.stdin, c.env))
'''


def junit_counts(path):
    import xml.etree.ElementTree as ET
    root = ET.parse(str(path)).getroot()
    cases = root.findall(".//testcase")
    failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    return len(cases), len(failed)


def test_reports_hold_one_result_per_test_item(project):
    """Parametrized over two fakes, one drifting: each test item is one
    result, so the reports fail as pytest does (they kept the last result of
    each case, and passed while pytest said 4 failed)."""
    project.makepyfile(test_greet=PARAM_TEST)
    r = run(project, "-m", "not cassette_quarantine", "--cassette-report-dir", "reports")
    r.assert_outcomes(passed=1, failed=3, deselected=2)
    summary = json.loads((project.path / "reports" / "summary.json").read_text())
    assert summary["exit_code"] == 1, summary
    assert junit_counts(project.path / "reports" / "junit.xml") == (4, 3)
    r.stdout.fnmatch_lines(["cassette check cassette.yaml: 4 checked, 1 passed, 3 failed, 0 quarantined; reports: *reports"])
    sarif = (project.path / "reports" / "sarif.json").read_text()
    assert "test_fakes[greet/hello-drifting]" in sarif


def test_xdist_workers_merge_into_one_report_set(project, monkeypatch):
    """pytest -n 2: each worker judges its own tests; the controller merges
    their reports, so summary.json and junit agree with pytest's exit
    status (the last worker to write won, and said exit 0 in 2 of 3 red
    runs)."""
    pytest.importorskip("xdist", reason="python3-pytest-xdist is not installed: apt-get install python3-pytest-xdist")
    project.makepyfile(test_greet=PARAM_TEST)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([PYTHON_DIR, str(project.path)]))
    for _ in range(2):
        r = project.runpytest_subprocess("-p", "cassette_pytest", "-p", "xdist", "-p", "no:cacheprovider", "-n", "2",
                                         "-m", "not cassette_quarantine", "--cassette-report-dir", "reports")
        r.assert_outcomes(passed=1, failed=3)
        assert r.ret == 1
        summary = json.loads((project.path / "reports" / "summary.json").read_text())
        assert summary["exit_code"] == 1, summary
        assert junit_counts(project.path / "reports" / "junit.xml") == (4, 3)
        assert not (project.path / "reports" / ".workers").exists()
        r.stdout.fnmatch_lines(["cassette check cassette.yaml: 4 checked, 1 passed, 3 failed, 0 quarantined*"])


def test_a_test_that_never_verifies_fails(project):
    project.makepyfile(test_greet='''
import pytest

@pytest.mark.cassette("greet")
def test_forgets(cassette_case):
    assert cassette_case.args
''')
    r = run(project, "-k", "hello")
    r.assert_outcomes(failed=1, deselected=2)
    r.stdout.fnmatch_lines(["*test_forgets[[]greet/hello[]] never verified its case greet/hello: call cassette_case.verify_cli(fake)*"])


def test_a_fake_returning_none_is_named(project):
    project.makepyfile(test_greet='''
import pytest

class FakeGreet:
    def run(self, args):
        pass

@pytest.mark.cassette("greet")
def test_none(cassette_case):
    cassette_case.verify_cli(lambda c: FakeGreet().run(c.args))

@pytest.mark.cassette("greet")
def test_none_method(cassette_case):
    cassette_case.verify_cli(FakeGreet().run)
''')
    r = run(project, "-k", "hello")
    r.assert_outcomes(failed=2, deselected=4)
    r.stdout.fnmatch_lines(["*the fake lambda at test_greet.py:9 returned None: expected (exit_code, stdout, stderr)*"])
    r.stdout.fnmatch_lines(["*the fake FakeGreet.run returned None*"])


def test_a_test_failing_after_its_case_passed_fails_in_the_reports(project):
    """The case passed, then the test's own assertion failed: pytest says
    failed, and so do the reports (they said pass)."""
    project.makepyfile(test_greet='''
import pytest
from fakes import greet

@pytest.mark.cassette("greet")
def test_greet(cassette_case):
    r = cassette_case.verify_cli(lambda c: greet(c.args, c.stdin, c.env))
    assert r.file == "elsewhere.yaml"
''')
    r = run(project, "-k", "hello", "--cassette-report-dir", "reports")
    r.assert_outcomes(failed=1, deselected=2)
    summary = json.loads((project.path / "reports" / "summary.json").read_text())
    assert summary["exit_code"] == 1, summary
    assert junit_counts(project.path / "reports" / "junit.xml") == (1, 1)


def test_the_plain_client_imports_without_pytest():
    # A script or another runner that uses the client pays for no pytest;
    # the plugin's names are still there on first use (pytest loaded then).
    code = ("import sys, cassette_pytest.client, cassette_pytest.case, cassette_pytest.observe, cassette_pytest as c\n"
            "assert 'pytest' not in sys.modules, 'the client loaded pytest'\n"
            "assert callable(c.cassette_case) and 'pytest' in sys.modules\n")
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
