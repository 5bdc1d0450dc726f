"""Memories drawn from sessions: rule-based extraction, its patterns, LLM refinement."""
