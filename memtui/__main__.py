"""`python -m memtui` runs the command line."""

from memtui.cli import main

raise SystemExit(main())
