"""`python -m lib`: the book's command line (lib.book.commands.main; `python -m lib -h`)."""

import sys

from lib.book.commands.main import main

sys.exit(main())
