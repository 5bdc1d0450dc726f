"""`python -m api.cli`: the `recall` command line."""

from api.cli import main

raise SystemExit(main())
