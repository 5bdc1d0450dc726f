"""Scale-out: ingest batches computed on a Ray cluster."""
