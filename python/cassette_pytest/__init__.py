"""cassette's pytest plugin: verify in-process fakes against cassettes.

A test marked ``@pytest.mark.cassette("git")`` that takes the
``cassette_case`` fixture runs once per cassette of adapter git; it drives
its fake with the case and fails with cassette's drift text (the same text,
classes and file:line as ``cassette verify``)::

    @pytest.mark.cassette("git")
    def test_fake_git(cassette_case):
        cassette_case.verify_cli(lambda case: FakeGit().run(case.args, cwd=case.cwd))

The cassette binary does all the judging (``cassette cases --json``, then
one ``cassette check`` co-process for the session): see the README of the
repository, "Verify from your test runner". ``observe_cli`` and
``observe_wsgi`` record the calls the project's own tests make to a fake,
for ``cassette coverage``. Load the plugin with
``-p cassette_pytest`` (PYTHONPATH naming this directory) or install it
with pip.
"""

import os
import shlex

import pytest

from .case import Case, Request, Result, wsgi_handler
from .client import CassetteError, Project, find_binary, find_config
from .observe import Observer, observe_cli, observe_wsgi

__all__ = ["CassetteError", "Case", "Observer", "PytestCase", "Project", "Request", "Result", "cassette_case",
           "observe_cli", "observe_wsgi"]


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


class _Session:
    """The projects of a pytest session, one per cassette.yaml, and the
    listings already read."""

    def __init__(self, config):
        self.config = config
        self.projects = {}
        self.listings = {}
        self.summaries = []

    def binary(self):
        return find_binary(self.config.getoption("cassette_bin") or self.config.getini("cassette_bin") or None)

    def project(self, path):
        path = os.path.abspath(path)
        if path not in self.projects:
            report_dir = self.config.getoption("cassette_report_dir")
            if report_dir:
                report_dir = os.path.join(str(self.config.invocation_params.dir), report_dir)
            self.projects[path] = Project(self.binary(), path, report_dir)
        return self.projects[path]

    def listing(self, project, adapter):
        key = (project.config, adapter)
        if key not in self.listings:
            self.listings[key] = project.cases(adapter)
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
                                "or cassette_config in pytest.ini" % test_dir)
        return found

    def close(self):
        for p in self.projects.values():
            s = p.close()
            if s is not None:
                self.summaries.append((p, s))


_SESSION = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("cassette", "cassette: verify in-process fakes against cassettes")
    group.addoption("--cassette-bin", default=None,
                    help="the cassette binary (default: $CASSETTE_BIN, else cassette on PATH)")
    group.addoption("--cassette-report-dir", default=None,
                    help="write the report files of the checked cases here (junit.xml, sarif.json, summary.json, ...)")
    parser.addini("cassette_bin", "the cassette binary")
    parser.addini("cassette_config", "cassette.yaml, relative to this ini file (default: the nearest one above each test file)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cassette(adapter=None, config=None): run the test once per cassette of the "
                                       "adapter (all adapters when none), with the cassette_case fixture")
    config.addinivalue_line("markers", "cassette_quarantine: the case is under quarantine in cassette.yaml: "
                                       "its failure xfails until the entry expires (-m 'not cassette_quarantine' skips it)")
    config.stash[_SESSION] = _Session(config)


def pytest_generate_tests(metafunc):
    if "cassette_case" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("cassette")
    if marker is None:
        raise pytest.UsageError("%s takes cassette_case: mark it @pytest.mark.cassette(\"ADAPTER\")" % metafunc.definition.nodeid)
    adapter = marker.kwargs.get("adapter") or (marker.args[0] if marker.args else None)
    s = metafunc.config.stash[_SESSION]
    project = s.project(s.config_for(marker, os.path.dirname(str(metafunc.definition.path))))
    listing = s.listing(project, adapter)
    if not listing["cases"]:
        raise CassetteError("adapter %s has no cassette in %s: record one with "
                            "cassette record --adapter %s ..." % (adapter, project.config, adapter or "NAME"))
    params = []
    for c in listing["cases"]:
        marks = [pytest.mark.cassette_quarantine] if c.get("quarantine") else []
        params.append(pytest.param((project, c), id=c["id"], marks=marks))
    metafunc.parametrize("cassette_case", params, indirect=True)


@pytest.fixture
def cassette_case(request):
    """The case this run of the test drives its fake with (a PytestCase)."""
    project, c = request.param
    return PytestCase(project, c, replay="python3 -m pytest " + shlex.quote(request.node.nodeid))


def pytest_sessionfinish(session):
    session.config.stash[_SESSION].close()


def pytest_terminal_summary(terminalreporter, config):
    s = config.stash.get(_SESSION, None)
    if s is None:
        return
    for p, summary in s.summaries:
        line = "cassette check %s: %d checked, %d passed, %d failed, %d quarantined" % (
            os.path.relpath(p.config), summary["checked"], summary["passed"], summary["failed"], summary["quarantined"])
        if summary.get("reports"):
            line += "; reports: %s" % summary["reports"]
        terminalreporter.write_line(line)
