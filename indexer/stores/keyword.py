"""The keyword side: a Tantivy index of pre-analyzed documents (see analysis.py), BM25 ranked."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import tantivy

from indexer.stores.documents import (
    MAX_INDEXED_CHARS,
    MEMORY_ROLE_PREFIX,
    Doc,
    day_number,
    id_number,
)
from indexer.stores.faults import damaged, reading
from indexer.text.analysis import QueryTerms, analyze
from models import SearchFilters

__all__ = ["KeywordFields", "KeywordHit", "KeywordIndex", "StoredDoc", "WeightedTerms",
           "keyword_fields"]

# Field weights: the words of a message count most; identifier pieces, single CJK
# characters and names are weaker evidence.
BOOST_BODY = 1.0
BOOST_PHRASE = 2.0
BOOST_PARTS = 0.4
BOOST_CHARS = 0.3
BOOST_NAMES = 0.3


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for name in ("key", "session_id", "message_id", "role", "channel", "participant"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("day", stored=True, indexed=True, fast=True)
    # the key's and the session's numbers (documents.id_number), read from columns: a search
    # learns which session each hit belongs to without reading its stored document
    sb.add_integer_field("key_no", fast=True)
    sb.add_integer_field("session_no", fast=True)
    sb.add_text_field("body", tokenizer_name="whitespace", index_option="position")
    for name in ("parts", "chars", "names"):
        sb.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    sb.add_bytes_field("stored", stored=True, indexed=False)  # time\x1fspeaker\x1ftext
    return sb.build()


@dataclass(frozen=True, slots=True)
class StoredDoc:
    key: str
    session_id: str
    message_id: str | None
    role: str
    time: str | None
    speaker: str | None
    text: str
    day: int
    channel: str


@dataclass(slots=True)
class KeywordHit:
    """A hit known by its numbers; its stored document is read only if it is shown (reading the
    documents of 100 hits cost more than the search itself at 1M documents)."""

    score: float
    key_no: int
    session_no: int
    searcher: tantivy.Searcher  # the snapshot the address belongs to
    address: tantivy.DocAddress
    _doc: StoredDoc | None = None

    def doc(self) -> StoredDoc:
        if self._doc is None:
            self._doc = _stored_doc(self.searcher.doc(self.address))
        return self._doc


class _Shard:
    """One Tantivy index: its writer (opened on the first change) and its reader."""

    def __init__(self, path: Path, schema: tantivy.Schema, *, as_written: bool = False,
                 create: bool = False) -> None:
        self.path = path
        with reading("keyword", path):
            exists = path.is_dir() and tantivy.Index.exists(str(path))
            if as_written and exists:
                self.index = tantivy.Index.open(str(path))  # an older schema, to copy its documents
            elif not (exists or create or as_written):  # (an older schema may lack memories')
                # opening would quietly make a new, empty index in its place
                raise damaged("keyword", path, "its meta.json is missing")
            else:
                path.mkdir(parents=True, exist_ok=True)
                self.index = tantivy.Index(schema, path=str(path), reuse=True)
        self._writer: tantivy.IndexWriter | None = None
        self._uncommitted = False

    def writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self.index.writer(heap_size=128_000_000, num_threads=1)
            # A writer killed mid-commit leaves files meta.json never named (a delete bitset
            # `<segment>.<opstamp>.del`); the next commit, reusing that opstamp, would fail on
            # FileAlreadyExists. Tantivy lists every file it makes, so it can remove them.
            self._writer.garbage_collect_files()
        self._uncommitted = True  # every caller is about to change something
        return self._writer

    def commit(self) -> None:
        if self._uncommitted:
            self.writer().commit()
            self._uncommitted = False

    def close(self) -> None:
        if self._writer is not None:
            self.commit()  # a commit syncs to disk: a live append pays it once, not twice
            self._writer.wait_merging_threads()
            self._writer = None

    def search(self, query: tantivy.Query, limit: int) -> list[KeywordHit]:
        with reading("keyword", self.path):
            searcher = self.index.searcher()
            found = searcher.search(query, limit=limit, count=False).hits
            addresses = [address for _score, address in found]
            # key_no and session_no are integer fast fields of every document (keyword_fields)
            keys = cast(list[int], searcher.fast_field_values("key_no", addresses))
            sessions = cast(list[int], searcher.fast_field_values("session_no", addresses))
        return [KeywordHit(float(score), key_no, session_no, searcher, address)
                for (score, address), key_no, session_no in zip(found, keys, sessions,
                                                                strict=True)]

    def every_document(self) -> Iterator[tantivy.Document]:
        with reading("keyword", self.path):
            searcher = self.index.searcher()
            if not searcher.num_docs:
                return
            hits = searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs,
                                   count=False).hits
        for _score, address in hits:
            with reading("keyword", self.path):
                document = searcher.doc(address)
            yield document


# one clause of a weighted query: a field, a term or a phrase of it, and its weight
WeightedTerms = tuple[str, tuple[str, ...], float]

# A document ready to add: whether it goes to the memories index, and its field values
# (plain values, so a worker process can make them and send them to the writer).
KeywordFields = tuple[bool, dict[str, object]]


def keyword_fields(doc: Doc) -> KeywordFields:
    """Analyse a document's text for the index (the costly part of adding it)."""
    text = doc.text[:MAX_INDEXED_CHARS]
    analyzed = analyze(text)
    names = analyze(" ".join(filter(None, (doc.speaker, *doc.participants)))).body
    return doc.role.startswith(MEMORY_ROLE_PREFIX), {
        "key": doc.key,
        "session_id": doc.session_id,
        "message_id": doc.message_id or "",
        "role": doc.role,
        "channel": doc.channel,
        "participant": list(doc.participants) or [""],
        "day": doc.day,
        "key_no": id_number(doc.key),
        "session_no": id_number(doc.session_id),
        "body": " ".join(analyzed.body),
        "parts": " ".join(analyzed.parts),
        "chars": " ".join(analyzed.chars),
        "names": " ".join(names),
        "stored": "\x1f".join((doc.time or "", doc.speaker or "", text)).encode(),
    }


class KeywordIndex:
    """Messages and session documents in one Tantivy index, memories in another beside it
    (`keyword-memories`). A search of messages alone, the common one, is then a plain union of
    term queries, which Tantivy answers by skipping blocks that cannot reach the top hits; a
    clause leaving memories out disabled that and doubled the time (docs/performance.md)."""

    def __init__(self, path: Path, *, as_written: bool = False, create: bool = False) -> None:
        """as_written: open indexes an older recall wrote with their own schema, for reading
        their documents only (an upgrade copies them); create: a new generation's, empty."""
        self.schema = _schema()
        self.messages = _Shard(path, self.schema, as_written=as_written, create=create)
        self.memories = _Shard(path.with_name(path.name + "-memories"), self.schema,
                               as_written=as_written, create=create)
        self.shards = (self.messages, self.memories)

    def _shards(self, scope: str) -> tuple[_Shard, ...]:
        return {"messages": (self.messages,), "memories": (self.memories,)}.get(scope, self.shards)

    # writing
    def delete_sessions(self, session_ids: Iterable[str]) -> None:
        writers = [shard.writer() for shard in self.shards]
        for session_id in session_ids:
            for writer in writers:
                writer.delete_documents_by_term("session_id", session_id)

    def delete_keys(self, keys: Iterable[str]) -> None:
        """Delete single documents (pruned memories) by their key."""
        writers = [shard.writer() for shard in self.shards]
        for key in keys:
            for writer in writers:
                writer.delete_documents_by_term("key", key)

    def add(self, docs: Iterable[Doc]) -> None:
        self.add_fields(keyword_fields(doc) for doc in docs)

    def add_fields(self, documents: Iterable[KeywordFields]) -> None:
        """Add documents analysed already (keyword_fields, maybe in another process)."""
        for is_memory, fields in documents:
            shard = self.memories if is_memory else self.messages
            shard.writer().add_document(tantivy.Document(**fields))

    def commit(self) -> None:
        for shard in self.shards:
            shard.commit()

    def close(self) -> None:
        for shard in self.shards:
            shard.close()

    # reading
    def refresh(self) -> None:
        for shard in self.shards:
            shard.index.reload()

    def num_docs(self) -> int:
        return sum(shard.index.searcher().num_docs for shard in self.shards)

    def session_ids(self) -> dict[str, int]:
        """Message documents per session (session and memory documents are not counted)."""
        counts: dict[str, int] = {}
        for doc in self.messages.every_document():
            session_id = doc["session_id"][0]
            counts.setdefault(session_id, 0)
            if doc.get_first("message_id"):
                counts[session_id] += 1
        return counts

    def documents(self) -> Iterator[Doc]:
        """Every live document, as it was added (the stored text is already cut to
        MAX_INDEXED_CHARS); for copying an index into fresh files."""
        for shard in self.shards:
            for doc in shard.every_document():
                time, speaker, text = _stored(doc)
                yield Doc(key=doc["key"][0], session_id=doc["session_id"][0],
                          message_id=doc.get_first("message_id") or None,
                          role=doc["role"][0], time=time, day=doc["day"][0],
                          channel=doc["channel"][0],
                          participants=tuple(p for p in doc.get_all("participant") if p),
                          speaker=speaker, text=text)

    def search(self, terms: QueryTerms, filters: SearchFilters, limit: int) -> list[KeywordHit]:
        text_query = self._text_query(terms)
        if text_query is None:
            return []
        query = self._with_filters(text_query, filters)
        shards = self._shards(filters.scope)
        hits = [hit for shard in shards for hit in shard.search(query, limit)]
        # both kinds: BM25 scores of two indexes, each with its own term statistics
        return hits if len(shards) == 1 else heapq.nlargest(limit, hits, key=lambda h: h.score)

    def document_frequencies(self, terms: Iterable[str], field: str = "body"
                             ) -> tuple[dict[str, int], int]:
        """How many message documents hold each term of a field, and how many there are: the
        rarity of a query's words (search/ranker.py), whether a translation occurs at all
        (search/translation.py)."""
        searcher = self.messages.index.searcher()
        return ({term: searcher.doc_freq(field, term) for term in terms}, searcher.num_docs)

    def search_weighted(self, clauses: Sequence[WeightedTerms], filters: SearchFilters,
                        limit: int, boosts: Sequence[WeightedTerms] = ()) -> list[KeywordHit]:
        """Documents with any of the clauses, each a term or a phrase of one field with its own
        weight, scored higher for the `boosts` they also hold: a query made by translating
        another (search/translation.py)."""
        if not clauses:
            return []
        Q, schema = tantivy.Query, self.schema

        def each(terms: Sequence[WeightedTerms]) -> list[tuple[tantivy.Occur, tantivy.Query]]:
            return [(tantivy.Occur.Should, Q.boost_query(
                Q.term_query(schema, field, tokens[0]) if len(tokens) == 1
                else Q.phrase_query(schema, field, list(tokens)), weight))
                for field, tokens, weight in terms]

        query = Q.boolean_query(each(clauses))
        if boosts:
            query = Q.boolean_query([(tantivy.Occur.Must, query), *each(boosts)])
        query = self._with_filters(query, filters)
        shards = self._shards(filters.scope)
        hits = [hit for shard in shards for hit in shard.search(query, limit)]
        return hits if len(shards) == 1 else heapq.nlargest(limit, hits, key=lambda h: h.score)

    def fetch(self, keys: Sequence[str]) -> dict[str, StoredDoc]:
        found: dict[str, StoredDoc] = {}
        for shard in self.shards:  # memories only for keys the messages did not hold
            missing = [key for key in keys if key not in found]
            if not missing:
                break
            # a union of term queries: a term-set query cost ~6x as much for 10 keys at 100k
            query = tantivy.Query.boolean_query([
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "key", key))
                for key in missing])
            with reading("keyword", shard.path):
                searcher = shard.index.searcher()
                for _score, address in searcher.search(query, limit=len(missing),
                                                       count=False).hits:
                    doc = _stored_doc(searcher.doc(address))
                    found[doc.key] = doc
        return found

    def _text_query(self, terms: QueryTerms) -> tantivy.Query | None:
        Q, schema = tantivy.Query, self.schema
        should: list[tuple[tantivy.Occur, tantivy.Query]] = []

        def add(field: str, tokens: Iterable[str], boost: float) -> None:
            for token in tokens:
                should.append((tantivy.Occur.Should,
                               Q.boost_query(Q.term_query(schema, field, token), boost)))

        add("body", terms.body, BOOST_BODY)
        add("parts", terms.parts, BOOST_PARTS)
        add("chars", terms.chars, BOOST_CHARS)
        add("names", terms.body, BOOST_NAMES)
        must = []
        for phrase in terms.phrases:
            clause = (Q.term_query(schema, "body", phrase[0]) if len(phrase) == 1
                      else Q.phrase_query(schema, "body", list(phrase)))
            must.append((tantivy.Occur.Must, Q.boost_query(clause, BOOST_PHRASE)))
        if not should and not must:
            return None
        if should:
            must.append((tantivy.Occur.Must, Q.boolean_query(should)))
        return must[0][1] if len(must) == 1 else Q.boolean_query(must)

    def _with_filters(self, query: tantivy.Query, filters: SearchFilters) -> tantivy.Query:
        Q, schema = tantivy.Query, self.schema
        clauses = [(tantivy.Occur.Must, query)]
        if filters.since or filters.until:
            low = day_number(filters.since) if filters.since else None
            high = day_number(filters.until) if filters.until else None
            clauses.append((tantivy.Occur.Must, Q.range_query(
                schema, "day", tantivy.FieldType.Integer, low, high)))
        if filters.date_ranges:
            clauses.append((tantivy.Occur.Must, Q.boolean_query([
                (tantivy.Occur.Should, Q.range_query(schema, "day", tantivy.FieldType.Integer,
                                                     day_number(low), day_number(high)))
                for low, high in filters.date_ranges])))
        role = filters.role
        if filters.scope == "memories" and filters.memory_type:
            role = MEMORY_ROLE_PREFIX + filters.memory_type
        for field, value in (("channel", filters.channel), ("participant", filters.participant),
                             ("role", role), ("session_id", filters.session)):
            if value:
                value = value if field == "session_id" else value.lower()
                clauses.append((tantivy.Occur.Must, Q.term_query(schema, field, value)))
        return query if len(clauses) == 1 else Q.boolean_query(clauses)


def _stored_doc(doc: tantivy.Document) -> StoredDoc:
    time, speaker, text = _stored(doc)
    return StoredDoc(doc["key"][0], doc["session_id"][0],
                     doc.get_first("message_id") or None, doc["role"][0], time, speaker,
                     text, doc["day"][0], doc["channel"][0])


def _stored(doc: tantivy.Document) -> tuple[str | None, str | None, str]:
    """The stored field's time, speaker and text (see keyword_fields)."""
    time, speaker, text = bytes(doc["stored"][0]).decode().split("\x1f", 2)
    return time or None, speaker or None, text
