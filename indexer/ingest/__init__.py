"""The write path: prepare, archive and index sessions crash-safely; watch folders."""
