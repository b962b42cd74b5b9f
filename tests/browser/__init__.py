"""Browser tests of the built book (headless Chromium); see test_rendered_book.py."""
