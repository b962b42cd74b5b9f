"""The `lib` package behind the book: data, models, training loops, theory and the chapter runner.

Kept free of imports on purpose: a chapter depends only on the modules it imports
(see `lib/deps.py`), so importing `lib` itself must not pull in every module.
"""
