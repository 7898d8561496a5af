"""The pytest plugin itself: its hooks, the cassette_case fixture and
PytestCase. The package imports it only where pytest is (see __init__).
"""

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from . import observe as _observe
from .case import Case, wsgi_handler
from .client import CassetteError, Project, find_binary, find_config


class PytestCase(Case):
    """A Case whose verify_* and assert_* methods end the test the way
    cassette's verdict says: return the Result on a pass, xfail on a
    failure a quarantine entry covers, fail with the drift text otherwise."""

    def verify_cli(self, fake):
        """Drive a CLI fake: fake(case) → (exit_code, stdout, stderr) or a
        CompletedProcess-like object."""
        return enforce(self.run_cli(fake))

    def verify_http(self, handler):
        """Drive an HTTP fake: handler(Request) → (status, headers, body) or
        an object with status/status_code, headers and body/content/data."""
        return enforce(self.run_http(handler))

    def verify_wsgi(self, app):
        """Drive a WSGI application in process."""
        return enforce(self.run_http(wsgi_handler(app)))

    def assert_cli(self, stdout=b"", stderr=b"", exit_code=0):
        """Judge output the test produced itself."""
        return enforce(self.check_cli(stdout, stderr, exit_code))

    def assert_http(self, responses):
        """Judge responses the test collected itself."""
        return enforce(self.check_http(responses))


def enforce(result):
    """End the test as the verdict says."""
    if result.passed:
        return result
    if not result.blocking:
        q = result.answer.get("quarantined") and "quarantined" or "not blocking"
        pytest.xfail("%s: %s" % (q, result.text.splitlines()[0]))
    pytest.fail(result.text, pytrace=False)


def _worker_input(config):
    """xdist's workerinput on a worker, None on the controller (or
    without xdist)."""
    return getattr(config, "workerinput", None)


class _Session:
    """The projects of a pytest session, one per cassette.yaml, and the
    listings already read.

    Under xdist every worker judges its own tests with a check co-process of
    its own and writes its reports below the report directory
    (.workers/gwN); the controller merges them into one set (``cassette
    report merge``) once the workers are done, so that summary.json, junit
    and SARIF hold every test of the session."""

    def __init__(self, config):
        self.config = config
        self.projects = {}
        self.listings = {}
        self.summaries = []
        self.merge_error = None
        wi = _worker_input(config)
        self.worker = wi.get("workerid") if wi else None
        if wi is not None:
            self.reports = wi.get("cassette_report_dir")
            self.observed = wi.get("cassette_observe_dir")
        else:
            given = config.getoption("cassette_report_dir") or os.environ.get("CASSETTE_REPORT_DIR")
            self.reports = os.path.join(str(config.invocation_params.dir), given) if given else None
            self.observed = os.environ.get(_observe.ENV_DIR) or self._new_run()
            if self.reports:
                shutil.rmtree(os.path.join(self.reports, ".workers"), ignore_errors=True)  # an earlier session's

    def _new_run(self):
        """The run this session's observations go to when cassette observe
        did not give one: a new run below the project's .cassette/observed
        (the project found from cassette_config, else the nearest
        cassette.yaml above the invocation or root directory)."""
        ini = self.config.getini("cassette_config")
        if ini:
            base = os.path.dirname(str(self.config.inipath)) if self.config.inipath else str(self.config.rootpath)
            config = os.path.join(base, ini)
        else:
            config = find_config(str(self.config.invocation_params.dir)) or find_config(str(self.config.rootpath))
        if not config:
            return None
        return os.path.join(os.path.dirname(os.path.abspath(config)), ".cassette", "observed", _observe.run_name())

    def report_dir(self):
        """Where this process's check co-processes write their reports."""
        if self.reports and self.worker:
            return os.path.join(self.reports, ".workers", self.worker)
        return self.reports

    def binary(self):
        return find_binary(self.config.getoption("cassette_bin") or self.config.getini("cassette_bin") or None)

    def project(self, path):
        path = os.path.abspath(path)
        if path not in self.projects:
            self.projects[path] = Project(self.binary(), path, self.report_dir())
        return self.projects[path]

    def listing(self, project, adapter):
        key = (project.config, adapter)
        if key not in self.listings:
            try:
                self.listings[key] = project.cases(adapter)
            except CassetteError as e:
                self.listings[key] = e  # once per project and adapter
        if isinstance(self.listings[key], CassetteError):
            raise self.listings[key]
        return self.listings[key]

    def config_for(self, marker, test_dir):
        """cassette.yaml for a test: the marker's config= (relative to the
        test's file), the cassette_config ini value (relative to the ini
        file), or the nearest one above the test's file."""
        given = marker.kwargs.get("config")
        if given:
            return os.path.join(test_dir, given)
        ini = self.config.getini("cassette_config")
        if ini:
            base = os.path.dirname(str(self.config.inipath)) if self.config.inipath else str(self.config.rootpath)
            return os.path.join(base, ini)
        found = find_config(test_dir)
        if found is None:
            raise CassetteError("no cassette.yaml in %s or above: set config= on the cassette marker "
                                "or cassette_config in pytest.ini" % test_dir, next_step="cassette init")
        return found

    def close(self):
        for p in self.projects.values():
            s = p.close()
            if s is not None:
                self.summaries.append((p.config, s))

    def merge_workers(self):
        """On the controller: merge the workers' report sets into one."""
        if self.worker or not self.reports:
            return
        root = os.path.join(self.reports, ".workers")
        dirs = sorted(os.path.join(root, d) for d in (os.listdir(root) if os.path.isdir(root) else [])
                      if os.path.exists(os.path.join(root, d, "run.json")))
        if not dirs:
            return
        p = subprocess.run([self.binary(), "report", "merge", "--out", self.reports] + dirs, capture_output=True, text=True)
        if p.returncode not in (0, 1):  # 1: a case failed, as pytest says
            self.merge_error = "cassette report merge of the xdist workers' reports failed (exit %d): %s (they are in %s)" % (
                p.returncode, p.stderr.strip(), root)
            return
        shutil.rmtree(root, ignore_errors=True)


_SESSION = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("cassette", "cassette: verify in-process fakes against cassettes")
    group.addoption("--cassette-bin", default=None,
                    help="the cassette binary (default: $CASSETTE_BIN, else cassette on PATH)")
    group.addoption("--cassette-report-dir", default=None,
                    help="write the report files of the checked cases here (junit.xml, sarif.json, summary.json, ...; "
                         "default: $CASSETTE_REPORT_DIR)")
    parser.addini("cassette_bin", "the cassette binary")
    parser.addini("cassette_config", "cassette.yaml, relative to this ini file (default: the nearest one above each test file)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cassette(adapter=None, config=None): run the test once per cassette of the "
                                       "adapter (all adapters when none), with the cassette_case fixture")
    config.addinivalue_line("markers", "cassette_quarantine: the case is under quarantine in cassette.yaml: "
                                       "its failure xfails until the entry expires (-m 'not cassette_quarantine' skips it)")
    s = _Session(config)
    config.stash[_SESSION] = s
    _observe.push_run(s.observed)


def pytest_unconfigure(config):
    s = config.stash.get(_SESSION, None)
    if s is not None:
        _observe.pop_run(s.observed)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist, on the controller: a worker shares the session's report
    directory and run of observations."""
    s = node.config.stash[_SESSION]
    node.workerinput["cassette_report_dir"] = s.reports
    node.workerinput["cassette_observe_dir"] = s.observed


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """xdist, on the controller: a worker's summaries, for the terminal."""
    out = getattr(node, "workeroutput", None) or {}
    node.config.stash[_SESSION].summaries.extend(tuple(x) for x in out.get("cassette_summaries", []))


def pytest_generate_tests(metafunc):
    if "cassette_case" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("cassette")
    if marker is None:
        raise pytest.UsageError("%s takes cassette_case: mark it @pytest.mark.cassette(\"ADAPTER\")" % metafunc.definition.nodeid)
    adapter = marker.kwargs.get("adapter") or (marker.args[0] if marker.args else None)
    s = metafunc.config.stash[_SESSION]
    try:
        project = s.project(s.config_for(marker, os.path.dirname(str(metafunc.definition.path))))
        listing = s.listing(project, adapter)
        if not listing["cases"]:
            raise CassetteError("adapter %s has no cassette in %s" % (adapter, project.config),
                                next_step="cassette record --adapter %s --help" % (adapter or "NAME"))
    except CassetteError as e:
        # A set-up problem fails this contract test, once, with the step
        # to take; the session's other tests still run.
        metafunc.parametrize("cassette_case", [pytest.param(e, id=(adapter or "cassette") + ":set-up")], indirect=True)
        return
    params = []
    for c in listing["cases"]:
        marks = [pytest.mark.cassette_quarantine] if c.get("quarantine") else []
        params.append(pytest.param((project, c), id=c["id"], marks=marks))
    metafunc.parametrize("cassette_case", params, indirect=True)


@pytest.fixture
def cassette_case(request):
    """The case this run of the test drives its fake with (a PytestCase)."""
    if isinstance(request.param, CassetteError):
        return request.param  # the test fails with it (pytest_pyfunc_call), as a failure, not a fixture error
    project, c = request.param
    return PytestCase(project, c, replay=replay_command(request.node.nodeid), test=request.node.nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A contract test whose set-up failed (no binary, a config error, an
    unknown adapter) fails with that error instead of running."""
    e = getattr(pyfuncitem, "funcargs", {}).get("cassette_case")
    if isinstance(e, CassetteError):
        pytest.fail(e.text(), pytrace=False)


@pytest.hookimpl(trylast=True)
def pytest_runtest_call(item):
    """After a test that passed: one that takes cassette_case and never
    verified it fails (a contract test that judges nothing proves nothing)."""
    case = getattr(item, "funcargs", {}).get("cassette_case")
    if isinstance(case, PytestCase) and not case.checked:
        pytest.fail("%s never verified its case %s: call cassette_case.verify_cli(fake), verify_http(handler), "
                    "verify_wsgi(app), assert_cli(...) or assert_http(...)" % (item.nodeid, case.id), pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A contract test that fails after its case passed (an assertion of its
    own on the Result) is a failure of the case in the reports too: they
    say what pytest says."""
    outcome = yield
    rep = outcome.get_result()
    case = getattr(item, "funcargs", {}).get("cassette_case")
    if rep.when == "call" and rep.failed and isinstance(case, PytestCase) and case.last is not None and case.last.passed:
        what = call.excinfo.exconly().splitlines()[0] if call.excinfo else "it failed"
        try:
            case.check_error("the test failed after its case passed: " + what[:500])
        except CassetteError:
            pass  # the check co-process is gone: the session's end reports it


def replay_command(nodeid):
    """The command that runs one test again: this interpreter's pytest (a
    venv's, not the first python3 on PATH)."""
    return " ".join(shlex.quote(w) for w in [sys.executable, "-m", "pytest", nodeid])


def pytest_sessionfinish(session):
    s = session.config.stash[_SESSION]
    s.close()
    wi = _worker_input(session.config)
    if wi is not None and hasattr(session.config, "workeroutput"):
        session.config.workeroutput["cassette_summaries"] = [list(x) for x in s.summaries]
    else:
        s.merge_workers()


def pytest_terminal_summary(terminalreporter, config):
    s = config.stash.get(_SESSION, None)
    if s is None:
        return
    totals = {}
    for config_path, summary in s.summaries:  # one per project, or per project and xdist worker
        t = totals.setdefault(config_path, {"checked": 0, "passed": 0, "failed": 0, "quarantined": 0})
        for k in t:
            t[k] += summary.get(k, 0)
    for config_path, t in totals.items():
        line = "cassette check %s: %d checked, %d passed, %d failed, %d quarantined" % (
            os.path.relpath(config_path), t["checked"], t["passed"], t["failed"], t["quarantined"])
        if s.reports:
            line += "; reports: %s" % s.reports
        terminalreporter.write_line(line)
    if s.merge_error:
        terminalreporter.write_line(s.merge_error, red=True)
