# The cassette pytest plugin (vendored: ../../python on PYTHONPATH, or
# installed with pip), loaded for the whole suite.
pytest_plugins = ["cassette_pytest"]
