"""The `recall` command's way to a running `recall serve`, in the standard library alone: finding
the server of a data directory and asking it (`server.py`), and `recall search` answered that way
before click, msgspec or the service are imported (`search.py`, printing with `results.py`).
Nothing here imports the rest of recall (tests/test_architecture.py), so each module loads in a
few milliseconds; the click CLI and `recall serve` import it too, so both sides share one file
format, one request and one way of printing a search."""

__all__: list[str] = []
