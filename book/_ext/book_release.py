"""Sphinx extension: the book's version and build date as MyST substitutions, and its repository button.

`{{ version }}` (pyproject.toml) and `{{ build_date }}` (UTC, or SOURCE_DATE_EPOCH) are available to
every page (the landing page shows them). The repository button of the theme is shown exactly when
`_config.yml` sets `repository.url` (`lib.util.repository`): the book builds and reads the same offline
with it unset, and no link points at a placeholder.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from lib.util.repository import build_date, repository, version


def configure(app: Sphinx, config) -> None:
    config.myst_substitutions = {**config.myst_substitutions, "version": version(), "build_date": build_date()}
    if repository() is not None:
        config.html_theme_options = {**config.html_theme_options, "use_repository_button": True}


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
