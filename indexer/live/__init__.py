"""Live sessions: messages appended as a conversation happens, summaries on archive."""
