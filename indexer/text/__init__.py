"""Text analysis for both indexes, secret redaction, entities and literal prefilters."""
