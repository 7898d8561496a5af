"""The plugin's own tests: each runs pytest (pytester) on a small project
with the real cassette binary: $CASSETTE_BIN (the Go test that runs these
tests builds it), else one built here with go."""

import os
import shutil
import subprocess

import pytest

pytest_plugins = ["pytester"]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cassette_bin(tmp_path_factory):
    if os.environ.get("CASSETTE_BIN"):
        return os.environ["CASSETTE_BIN"]
    if shutil.which("go") is None:
        pytest.skip("no cassette binary: set CASSETTE_BIN, or install Go to build one")
    out = str(tmp_path_factory.mktemp("bin") / "cassette")
    subprocess.run(["go", "build", "-o", out, "./cmd/cassette"], cwd=REPO, check=True)
    return out
