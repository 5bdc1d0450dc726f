"""The S3 server of the tests (tests/s3.py, scripts/s3_server.py) is a real one, and does what the
project relies on: plain bucket and object calls, a conditional create (`If-None-Match: *`, what
a writer lease needs), and Lance / LanceDB datasets at s3:// URIs, versions included."""

from __future__ import annotations

import lance
import lancedb
import pyarrow as pa
import pytest

from .s3 import S3Server

# one worker starts the server (pytest -n auto --dist loadgroup)
pytestmark = pytest.mark.xdist_group("s3")


def _keys(s3_server: S3Server, bucket: str, prefix: str = "") -> list[str]:
    listed = s3_server.client().list_objects_v2(Bucket=bucket, Prefix=prefix)
    return [item["Key"] for item in listed.get("Contents", [])]


def test_objects_put_get_list_delete(s3_server: S3Server) -> None:
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("objects")
    s3.put_object(Bucket=bucket, Key="notes/one.txt", Body=b"one")
    s3.put_object(Bucket=bucket, Key="notes/two.txt", Body="二".encode())

    assert s3.get_object(Bucket=bucket, Key="notes/two.txt")["Body"].read().decode() == "二"
    assert _keys(s3_server, bucket, "notes/") == ["notes/one.txt", "notes/two.txt"]

    s3.delete_object(Bucket=bucket, Key="notes/one.txt")
    assert _keys(s3_server, bucket) == ["notes/two.txt"]
    with pytest.raises(s3.exceptions.NoSuchKey):
        s3.get_object(Bucket=bucket, Key="notes/one.txt")
    assert bucket in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_if_none_match_creates_only_once(s3_server: S3Server) -> None:
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("lease")
    s3.put_object(Bucket=bucket, Key="writer.lock", Body=b"first", IfNoneMatch="*")

    with pytest.raises(s3.exceptions.ClientError) as refused:
        s3.put_object(Bucket=bucket, Key="writer.lock", Body=b"second", IfNoneMatch="*")
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert refused.value.response["Error"]["Code"] == "PreconditionFailed"
    assert s3.get_object(Bucket=bucket, Key="writer.lock")["Body"].read() == b"first"


def test_lance_dataset_versions_on_s3(s3_server: S3Server) -> None:
    bucket = s3_server.new_bucket("lance")
    uri = f"s3://{bucket}/datasets/notes.lance"
    options = s3_server.storage_options()
    lance.write_dataset(pa.table({"id": [1, 2, 3], "text": ["a", "b", "c"]}), uri,
                        storage_options=options)
    lance.write_dataset(pa.table({"id": [4], "text": ["d"]}), uri, mode="append",
                        storage_options=options)

    reopened = lance.dataset(uri, storage_options=options)  # a fresh handle: read from S3
    assert (reopened.version, reopened.count_rows()) == (2, 4)
    first = lance.dataset(uri, version=1, storage_options=options)
    assert first.to_table().column("id").to_pylist() == [1, 2, 3]
    assert any(key.startswith("datasets/notes.lance/_versions/")
               for key in _keys(s3_server, bucket, "datasets/"))


def test_lancedb_table_on_s3(s3_server: S3Server) -> None:
    bucket = s3_server.new_bucket("lancedb")
    uri = f"s3://{bucket}/db"
    options = s3_server.storage_options()
    table = lancedb.connect(uri, storage_options=options).create_table(
        "notes", pa.table({"id": [1, 2], "vector": [[0.0, 1.0], [1.0, 0.0]]}))
    table.add(pa.table({"id": [3], "vector": [[0.6, 0.8]]}))

    again = lancedb.connect(uri, storage_options=options).open_table("notes")
    assert again.count_rows() == 3
    nearest = again.search([0.0, 1.0]).limit(1).to_arrow()
    assert nearest.column("id").to_pylist() == [1]
