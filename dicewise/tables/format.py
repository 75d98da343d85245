"""The table file: one msgpack document, a self-describing header and checksummed arrays.

Layout (a msgpack map)::

    {"header": {"format": "dicewise-table", "format_version": 1, "kind": ..., "ruleset": ...,
                "options": {...}, "rules_digest": ..., "package_version": ...,
                "arrays": {name: {"dtype": "<f8", "shape": [...]}}, "meta": {...},
                "checksum": "sha256:<hex>"},
     "payload": <msgpack map of name -> raw little-endian bytes>}

The checksum covers the payload and every other header field (the header without its
checksum, packed), so no byte of the file can change unnoticed.

Files are written atomically (temporary file, fsync, rename) and validated on load: a
truncated, corrupt or mismatched file raises TableError and is never used.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import msgpack
import numpy as np

from ..errors import (NotATableFile, TableError, TableMismatch,  # noqa: F401  (re-exported)
                      TableTooLarge)
from ..i18n import Message, options_text, os_reason
from .files import write_atomic

MAGIC = "dicewise-table"
FORMAT_VERSION = 1
#: The most bytes the packed arrays may take: the payload is one msgpack bin, at most 4 GiB.
MAX_PAYLOAD = (1 << 32) - 1


@dataclass(frozen=True)
class Table:
    """A loaded table: its header and its arrays (read-only)."""

    header: Mapping[str, Any]
    arrays: Mapping[str, np.ndarray] = field(repr=False)


def _package_version() -> str:
    from .. import __version__

    return __version__


def write_table(path, *, kind: str, ruleset: str, options: Mapping[str, Any], rules_digest: str,
                arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any] | None = None) -> Path:
    """Write arrays and their description to ``path`` atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, *_table_parts(kind, ruleset, options, rules_digest, arrays, meta))


def table_bytes(*, kind: str, ruleset: str, options: Mapping[str, Any], rules_digest: str,
                arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any] | None = None) -> bytes:
    """The bytes ``write_table`` writes, for a table file written elsewhere (``--out``)."""
    return b"".join(_table_parts(kind, ruleset, options, rules_digest, arrays, meta))


def _table_parts(kind, ruleset, options, rules_digest, arrays, meta) -> tuple[bytes, bytes]:
    """(head, payload) of a table file: the header and the packed arrays."""
    _check_size(arrays)
    blobs, described = {}, {}
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        blobs[name] = memoryview(arr.reshape(-1)).cast("B")  # packed as bin, no copy before
        described[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape)}
    payload = msgpack.packb(blobs, use_bin_type=True)
    del blobs
    header = {
        "format": MAGIC,
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "ruleset": ruleset,
        "options": dict(options),
        "rules_digest": rules_digest,
        "package_version": _package_version(),
        "arrays": described,
        "meta": dict(meta or {}),
    }
    header["checksum"] = checksum(header, payload)
    # The document {"header": ..., "payload": <bin>} written piece by piece, byte for byte
    # what packing it whole gives, without a second copy of the payload in memory.
    head = (b"\x82" + msgpack.packb("header") + msgpack.packb(header, use_bin_type=True)
            + msgpack.packb("payload") + _bin_header(len(payload)))
    return head, payload


def _check_size(arrays: Mapping[str, np.ndarray]) -> None:
    """Refuse, before any packing, arrays whose packed map would not fit in the payload's bin:
    the map's header, then each array's name, bin header and bytes."""
    count = len(arrays)
    size = 1 if count < 16 else 3 if count < 1 << 16 else 5  # fixmap, map 16, map 32
    for name, a in arrays.items():
        n = np.asarray(a).nbytes
        size += len(msgpack.packb(name)) + len(_bin_header(min(n, (1 << 32) - 1))) + n
    if size > MAX_PAYLOAD:
        raise TableTooLarge(Message("the table takes {size:.1f} GB, more than a table file "
                                    "holds ({limit:.1f} GB)", size=size / 1e9,
                                    limit=MAX_PAYLOAD / 1e9))


def _bin_header(n: int) -> bytes:
    """The msgpack header of a bin of n bytes (bin 8, 16 or 32, the smallest that holds n)."""
    if n < 1 << 8:
        return b"\xc4" + n.to_bytes(1, "big")
    if n < 1 << 16:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def checksum(header: Mapping[str, Any], payload: bytes) -> str:
    """SHA-256 of the header (less its checksum field) and the payload."""
    fields = {k: v for k, v in header.items() if k != "checksum"}
    h = hashlib.sha256(msgpack.packb(fields, use_bin_type=True))
    h.update(payload)
    return "sha256:" + h.hexdigest()


def read_header(path) -> dict:
    """The header of a table file, after checking that the whole file is intact."""
    return _read(path)[0]


def _read(path):
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise TableError(Message("table file {path} does not exist", path=str(path))) from None
    except OSError as e:
        raise TableError(Message("cannot read table file {path}: {why}", path=str(path),
                                 why=os_reason(e))) from None
    try:
        doc = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        header, payload = doc["header"], doc["payload"]
        if header.get("format") != MAGIC or not isinstance(payload, bytes):
            raise ValueError
    except Exception:
        # a table cut short still names its format near the start; any other file is none of ours
        kind = TableError if MAGIC.encode() in raw[:256] else NotATableFile
        raise kind(Message("{path} is not a dicewise table file, or it is truncated",
                           path=str(path))) from None
    if header.get("format_version") != FORMAT_VERSION:
        raise TableError(Message("{path} has table format {have}, this dicewise reads format "
                                 "{want}", path=str(path), have=header.get("format_version"),
                                 want=FORMAT_VERSION))
    if not isinstance(header, dict) or header.get("checksum") != checksum(header, payload):
        # what to do about it is said by the reader, who knows (rebuild, recompute, reinstall)
        raise TableError(Message("{path} is damaged (checksum mismatch)", path=str(path)))
    return header, payload


def _said(value) -> str:
    """A header value for people: options as ``key=value`` pairs, not a Python dict."""
    return (options_text(dict(sorted(value.items()))) or "none") if isinstance(value, dict) \
        else str(value)


def read_table(path, **expect) -> Table:
    """Load and validate a table file.

    Every keyword (``kind``, ``ruleset``, ``options``, ``rules_digest``) must equal the
    header's value, or the file is refused.
    """
    header, payload = _read(path)
    for key, want in expect.items():
        have = header.get(key)
        if have != want:
            said = {"path": str(path), "have": _said(have), "want": _said(want)}
            why = {"rules_digest": Message("{path} was built for other rules (a different "
                                           "dicewise version)", **said),
                   "ruleset": Message("{path} is a table of {have}, not of {want}", **said),
                   "options": Message("{path} was built with the options {have}, not {want}",
                                      **said)}
            raise TableMismatch(why.get(key) or Message(
                "{path} is a table of another kind ({have}), not {want}", **said), key)
    try:
        blobs = msgpack.unpackb(payload, raw=False)
        arrays = {}
        for name, desc in header["arrays"].items():
            arr = np.frombuffer(blobs[name], dtype=np.dtype(desc["dtype"])).reshape(desc["shape"])
            arrays[name] = arr
    except Exception:
        raise TableError(Message("{path} is damaged (its arrays do not match its header)",
                                 path=str(path))) from None
    return Table(header, arrays)
