"""An S3 bucket prefix as recall uses it: small reads and writes, conditional puts for the
writer lease, uploads and downloads of files. Any S3-compatible store (AWS, Ceph radosgw,
MinIO, ...) through boto3; LanceDB reads the same objects through `storage_options`.

Credentials are kept out of every repr, log line and error message."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boto3.exceptions import Boto3Error
from botocore.exceptions import BotoCoreError, ClientError

from models import InvalidInput, StorageFault

__all__ = ["MissingBucket", "ObjectStore", "PreconditionFailed", "S3Config", "parse_s3_uri"]

log = logging.getLogger(__name__)

_URI = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(?P<prefix>.*))?$")


def parse_s3_uri(uri: str) -> tuple[str, str]:
    """(bucket, prefix without slashes at either end) of s3://bucket/prefix."""
    found = _URI.match(uri.strip())
    if not found:
        raise InvalidInput(f"not an s3://bucket/prefix address: {uri!r}")
    return found["bucket"], (found["prefix"] or "").strip("/")


@dataclass(frozen=True)
class S3Config:
    """Where the bucket is and how to sign in; None keys: boto3's own chain (AWS_* variables,
    ~/.aws, an instance role)."""

    uri: str
    endpoint: str | None = None
    region: str = "us-east-1"
    access_key: str | None = field(default=None, repr=False)
    secret_key: str | None = field(default=None, repr=False)
    verify_tls: bool | str = True  # False, True, or a CA bundle path

    @property
    def bucket(self) -> str:
        return parse_s3_uri(self.uri)[0]

    @property
    def prefix(self) -> str:
        return parse_s3_uri(self.uri)[1]

    def storage_options(self) -> dict[str, str]:
        """The same settings for Lance's object store (vector tables read in place)."""
        options = {"aws_region": self.region}
        if self.endpoint:
            options["aws_endpoint"] = self.endpoint
            options["allow_http"] = str(self.endpoint.startswith("http://")).lower()
        if self.access_key and self.secret_key:
            options["aws_access_key_id"] = self.access_key
            options["aws_secret_access_key"] = self.secret_key
        if self.verify_tls is False:
            options["allow_invalid_certificates"] = "true"
        return options


class PreconditionFailed(Exception):
    """A conditional write found the object not as expected (someone else wrote it)."""


class MissingBucket(StorageFault):
    """The bucket itself does not exist (a writer creates it: Publisher.publish)."""


class ObjectStore:
    """The objects under one bucket prefix, addressed by keys relative to it."""

    def __init__(self, config: S3Config) -> None:
        import boto3
        from botocore.config import Config

        self.config = config
        self.bucket, self.prefix = config.bucket, config.prefix
        self.client = boto3.client(
            "s3", endpoint_url=config.endpoint, region_name=config.region,
            aws_access_key_id=config.access_key, aws_secret_access_key=config.secret_key,
            verify=config.verify_tls,
            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                          retries={"max_attempts": 5, "mode": "standard"}))

    def create_bucket(self) -> None:
        """Create the bucket (in the configured region: AWS wants it named outside us-east-1)."""
        where = ({} if self.config.region == "us-east-1" else
                 {"CreateBucketConfiguration": {"LocationConstraint": self.config.region}})
        try:
            self.client.create_bucket(Bucket=self.bucket, **where)
        except _ERRORS as exc:
            raise self._fault("create_bucket", "", exc) from None

    def key(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative

    def uri(self, relative: str) -> str:
        return f"s3://{self.bucket}/{self.key(relative)}"

    def get(self, relative: str) -> tuple[bytes, str] | None:
        """An object's bytes and ETag (quotes removed), or None when there is none."""
        try:
            answer = self._call("get_object", Key=self.key(relative))
        except _Missing:
            return None
        return answer["Body"].read(), answer["ETag"].strip('"')

    def put(self, relative: str, data: bytes, *, if_absent: bool = False,
            if_etag: str | None = None) -> str:
        """Write an object; with if_absent or if_etag, only if it is absent or unchanged
        (PreconditionFailed otherwise). Returns the new ETag."""
        extra: dict[str, str] = {}
        if if_absent:
            extra["IfNoneMatch"] = "*"
        if if_etag is not None:
            extra["IfMatch"] = if_etag  # radosgw compares it without quotes
        return str(self._call("put_object", Key=self.key(relative), Body=data,
                              **extra)["ETag"]).strip('"')

    def upload(self, path: Path, relative: str) -> None:
        try:
            self.client.upload_file(str(path), self.bucket, self.key(relative))
        except _ERRORS as exc:
            raise self._fault("upload", relative, exc) from None

    def download(self, relative: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.part")
        try:
            self.client.download_file(self.bucket, self.key(relative), str(tmp))
        except _ERRORS as exc:
            tmp.unlink(missing_ok=True)
            raise self._fault("download", relative, exc) from None
        tmp.replace(path)

    def delete(self, relatives: list[str]) -> None:
        for start in range(0, len(relatives), 1000):  # the most one request may name
            chunk = relatives[start:start + 1000]
            self._call("delete_objects", Delete={
                "Objects": [{"Key": self.key(r)} for r in chunk], "Quiet": True})

    def list(self, relative_prefix: str = "") -> Iterator[tuple[str, int]]:
        """(relative key, size) of every object under a prefix."""
        start = len(self.key("")) if self.prefix else 0
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.key(relative_prefix))
        try:
            for page in pages:
                for item in page.get("Contents", []):
                    yield item["Key"][start:], int(item["Size"])
        except _ERRORS as exc:
            raise self._fault("list", relative_prefix, exc) from None

    def folders(self, relative_prefix: str) -> tuple[str, ...]:
        """The names of the folders directly under a prefix ending in '/'."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.key(relative_prefix), Delimiter="/")
        start = len(self.key(relative_prefix))
        try:
            return tuple(common["Prefix"][start:].rstrip("/") for page in pages
                         for common in page.get("CommonPrefixes", []))
        except _ERRORS as exc:
            raise self._fault("list", relative_prefix, exc) from None

    def _call(self, operation: str, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, operation)(Bucket=self.bucket, **kwargs)
        except _ERRORS as exc:
            code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
            if code in ("NoSuchKey", "404"):
                raise _Missing from None
            if code in ("PreconditionFailed", "412"):
                raise PreconditionFailed(kwargs.get("Key", "")) from None
            raise self._fault(operation, kwargs.get("Key", ""), exc) from None

    def _fault(self, what: str, key: str, exc: Exception) -> StorageFault:
        # the message names the bucket and key, never the credentials
        code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
        if code == "NoSuchBucket" or "NoSuchBucket" in str(exc):
            at = f" at {self.config.endpoint}" if self.config.endpoint else ""
            return MissingBucket(f"object storage: the bucket {self.bucket} does not exist{at} "
                                 "(a writer creates it on its first publish)")
        return StorageFault(f"object storage: {what} of s3://{self.bucket}/{key} failed: "
                            f"{type(exc).__name__}: {exc}")


class _Missing(Exception):
    pass


_ERRORS = (BotoCoreError, ClientError, Boto3Error, OSError)
