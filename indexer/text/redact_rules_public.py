"""Keys that are public by design although a credential word names them, for the rules that go
by a label or a nearby word (generic_secret, labelled_secret, near_secret): vendor rules, which
know their secret formats, do not ask.

- Key ids published with the page: a Razorpay key id (rzp_live_/rzp_test_ and 14 characters)
  is what Checkout takes as `key:`; its secret is a separate value.
- Site-search keys: DocSearch only ever takes Algolia's search-only key, which its docs tell
  you to put in the page, so an apiKey inside a docsearch({...}) call or a docsearch: block is
  public; so is a key whose name says it is the search(-only) key of a site-search service
  (ALGOLIA_SEARCH_API_KEY, searchOnlyApiKey, TYPESENSE_SEARCH_ONLY_KEY). "search" alone is not
  enough: Elasticsearch, Bing Search and Brave Search keys are secrets.
"""

from __future__ import annotations

import re

from indexer.text.redact_rules_base import NAME_PARTS

__all__ = ["PUBLIC_ID", "public_key", "public_match", "public_name"]

# Key ids meant to be seen: the value alone says so.
PUBLIC_ID = re.compile(r"rzp_(?:live|test)_[A-Za-z0-9]{14}(?![A-Za-z0-9_-])")

# Where a DocSearch configuration opens: docsearch({, docsearch: {, docSearch = {.
_DOCSEARCH_OPEN = re.compile(r"(?i)(?<![a-z0-9_])docsearch[\"']?[ \t]*(?:\(|[:=])[ \t]*\(?\{?")
_REACH = 400  # characters before the value where the opening is looked for
# What ends the configuration before the value: the call's or block's close, a statement's
# end, a blank line.
_CLOSED = re.compile(r"[;)]|\}[ \t]*\)|\n[ \t]*\n")

_SITE_SEARCH = frozenset(["algolia", "docsearch", "typesense", "meilisearch", "meili"])


def public_name(name: str) -> bool:
    """A key's name that says it is a site-search service's search(-only) key."""
    words = [w.lower() for w in NAME_PARTS.findall(name)]
    if "search" not in words:
        return False
    return "only" in words or any(w in _SITE_SEARCH for w in words)


def public_match(m: re.Match[str]) -> bool:
    """public_key for a label's match whose value is group v: the name is the label with the
    rest of its identifier before it (ALGOLIA_SEARCH_ before API_KEY)."""
    text, at = m.string, m.start()
    while at > max(0, m.start() - 64) and (text[at - 1].isalnum() or text[at - 1] in "_.-"):
        at -= 1
    return public_key(text, m.start("v"), text[at:m.start("v")])


def public_key(text: str, start: int, name: str = "") -> bool:
    """The value at text[start:] is public: a key id by its shape, a key named a site-search
    key, or the key of a DocSearch configuration it stands in."""
    if PUBLIC_ID.match(text, start) or (name and public_name(name)):
        return True
    lo = max(0, start - _REACH)
    ends = [m.end() for m in _DOCSEARCH_OPEN.finditer(text, lo, start)]
    return bool(ends) and not _CLOSED.search(text, ends[-1], start)
