"""The package behind the book. `ls lib` shows its layers; each imports only those below it
(tests/unit/test_layers.py checks it, CONTRIBUTING draws it):

    lib/book/       the book's machinery, one sub-package per layer, top down:
        commands/       the command line (`python -m lib`, `python -m lib evidence`) and the benchmarks
        pages/          the reader pages: scorecard, notes, parameters, changelog, code appendix, rerun page
        run/            running a chapter: the notebook handle, `lib run`, the papermill route, output folders
        verdicts/       claims against their declarations, the summary, decidability
        chapters/       the chapter declarations: one module per chapter, and the vocabulary they use
        evidence/       the evidence store: declared sets, shards with provenance, status, re-certification
    lib/sim/, lib/theory/, lib/geneft/, lib/diffusion/
                    the science: data, models, training, theory; nothing of the book
    lib/util/       utilities, statistics and provenance: numbers, statistics, paths, atomic writes,
                    fingerprints, plotting

Kept free of imports on purpose: a chapter depends only on the modules it imports
(see `lib/book/chapters/dependencies.py`), so importing `lib` itself must not pull in every module.
"""
