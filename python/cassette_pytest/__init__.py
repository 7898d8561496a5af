"""cassette's pytest plugin: verify in-process fakes against cassettes.

A test marked ``@pytest.mark.cassette("git")`` that takes the
``cassette_case`` fixture runs once per cassette of adapter git; it drives
its fake with the case and fails with cassette's drift text (the same text,
classes and file:line as ``cassette verify``)::

    @pytest.mark.cassette("git")
    def test_fake_git(cassette_case):
        cassette_case.verify_cli(lambda case: FakeGit().run(case.args, cwd=case.cwd))

The cassette binary does all the judging (one ``cassette check``
co-process for the session lists the cases, then judges them): see the README of the
repository, "Verify from your test runner". ``observe_cli`` and
``observe_wsgi`` record the calls the project's own tests make to a fake,
for ``cassette coverage``. Load the plugin with
``-p cassette_pytest`` (PYTHONPATH naming this directory) or install it
with pip.

The plain client (``cassette_pytest.client``, ``.case``, ``.observe``) does
not import pytest: a script or another runner that uses it pays for no
pytest. The plugin's hooks and fixture (``.plugin``) are part of this
package's namespace when pytest is loaded (pytest imports the package as a
plugin, a conftest imports it), and otherwise on first use.
"""


import importlib
import sys

from .case import Case, Request, Result, wsgi_handler
from .client import CassetteError, Project
from .observe import Observer, observe_cli, observe_wsgi

__all__ = ["CassetteError", "Case", "Observer", "PytestCase", "Project", "Request", "Result", "cassette_case",
           "observe_cli", "observe_wsgi"]

if "pytest" in sys.modules:
    from .plugin import *  # noqa: F401,F403 (the hooks pytest finds on this module)


def __getattr__(name):
    # Without pytest loaded yet: the plugin's names on first use (importing pytest then).
    if name.startswith("__"):
        raise AttributeError(name)
    plugin = importlib.import_module(__name__ + ".plugin")
    try:
        value = getattr(plugin, name)
    except AttributeError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None
    globals().update({k: v for k, v in vars(plugin).items() if not k.startswith("__")})
    return value


def __dir__():
    plugin = importlib.import_module(__name__ + ".plugin")
    return sorted(set(globals()) | {k for k in vars(plugin) if not k.startswith("__")})
