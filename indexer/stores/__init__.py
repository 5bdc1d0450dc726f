"""Where things are kept: the two indexes, their generations, the data directory, SQLite state and the memory, snapshot, todo and relevance stores."""
