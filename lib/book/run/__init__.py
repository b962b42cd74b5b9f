"""Running a chapter: the handle every notebook starts with (`notebook`), `python -m lib run` (`runner`),
the papermill route (`papermill_route`) and where a run may write (`outputs`)."""
