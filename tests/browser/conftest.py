"""Registers the ``browser`` marker: ``pytest -m "not browser"`` leaves out the tests that need
the built book (``make book``) and Chromium."""


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: opens the built book (_build/html) in headless Chromium")
