"""Embedders behind one protocol, and the offline build of multilingual-e5-small."""
