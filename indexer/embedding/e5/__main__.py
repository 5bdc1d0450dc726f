"""`python -m indexer.embedding.e5 DEST`: build the multilingual-e5-small folder by hand."""

from indexer.embedding.e5.install import main

raise SystemExit(main())
