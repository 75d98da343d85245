"""The table file: one msgpack document, a self-describing header and checksummed arrays.

Layout (a msgpack map)::

    {"header": {"format": "dicewise-table", "format_version": 1, "kind": ..., "ruleset": ...,
                "options": {...}, "rules_digest": ..., "package_version": ...,
                "arrays": {name: {"dtype": "<f8", "shape": [...]}}, "meta": {...},
                "checksum": "sha256:<hex>"},
     "payload": <msgpack map of name -> raw little-endian bytes>}

The checksum covers the payload and every other header field (the header without its
checksum, packed), so no byte of the file can change unnoticed.

A msgpack bin holds at most 4 GiB, so a table whose arrays take more (one-column poker-school
played for a target: 6.7 GB) is written as format 2, the same document except that its
payload is a list of bins: the arrays' raw bytes, in the header's order, cut into pieces of
at most 1 GiB.  Its checksum covers those bytes, and it is read straight into the arrays'
memory, piece by piece, never whole twice.  Every table that fits stays format 1.

Files are written atomically (temporary file, fsync, rename) and validated on load: a
truncated, corrupt or mismatched file raises TableError and is never used.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import msgpack
import numpy as np

from ..errors import NotATableFile, TableError, TableMismatch  # noqa: F401  (re-exported)
from ..i18n import Message, options_text, os_reason
from .files import write_atomic

MAGIC = "dicewise-table"
FORMAT_VERSION = 1
#: The format of a table too large for format 1: its payload in pieces.
FORMAT_IN_PIECES = 2
#: The most bytes format 1's packed arrays may take: its payload is one msgpack bin.
MAX_PAYLOAD = (1 << 32) - 1
#: The most bytes of one piece of a format-2 payload.
PIECE = 1 << 30


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


def _table_parts(kind, ruleset, options, rules_digest, arrays, meta) -> list:
    """The bytes of a table file in order: the header, then the arrays (format 1: packed
    as one map; format 2: raw, in pieces), without a second copy of the arrays in memory."""
    described, flat = {}, {}
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        flat[name] = memoryview(arr.reshape(-1)).cast("B")
        described[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape)}
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
    if _packed_size(flat) > MAX_PAYLOAD:
        header["format_version"] = FORMAT_IN_PIECES
        pieces = [b[i:i + PIECE] for b in flat.values() for i in range(0, len(b), PIECE)]
        header["checksum"] = checksum(header, *pieces)
        parts = [_head(header) + _array_header(len(pieces))]
        for piece in pieces:
            parts += [_bin_header(len(piece)), piece]
        return parts
    payload = msgpack.packb(flat, use_bin_type=True)  # each array a bin, no copy before
    del flat
    header["checksum"] = checksum(header, payload)
    # The document {"header": ..., "payload": <bin>} written piece by piece, byte for byte
    # what packing it whole gives, without a second copy of the payload in memory.
    return [_head(header) + _bin_header(len(payload)), payload]


def _head(header) -> bytes:
    """The document's bytes up to its payload: a map of two, the header, the payload's key."""
    return (b"\x82" + msgpack.packb("header") + msgpack.packb(header, use_bin_type=True)
            + msgpack.packb("payload"))


def _packed_size(flat: Mapping[str, memoryview]) -> int:
    """The bytes of the arrays packed as one msgpack map of bins: the map's header, then
    each array's name, bin header and bytes."""
    count = len(flat)
    size = 1 if count < 16 else 3 if count < 1 << 16 else 5  # fixmap, map 16, map 32
    for name, b in flat.items():
        size += len(msgpack.packb(name)) + len(_bin_header(min(len(b), (1 << 32) - 1))) + len(b)
    return size


def _array_header(n: int) -> bytes:
    """The msgpack header of an array of n items (fixarray, array 16 or array 32)."""
    if n < 16:
        return bytes([0x90 | n])
    return b"\xdc" + n.to_bytes(2, "big") if n < 1 << 16 else b"\xdd" + n.to_bytes(4, "big")


def _bin_header(n: int) -> bytes:
    """The msgpack header of a bin of n bytes (bin 8, 16 or 32, the smallest that holds n)."""
    if n < 1 << 8:
        return b"\xc4" + n.to_bytes(1, "big")
    if n < 1 << 16:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def checksum(header: Mapping[str, Any], *payload) -> str:
    """SHA-256 of the header (less its checksum field) and the payload's bytes, in order."""
    fields = {k: v for k, v in header.items() if k != "checksum"}
    h = hashlib.sha256(msgpack.packb(fields, use_bin_type=True))
    for piece in payload:
        h.update(piece)
    return "sha256:" + h.hexdigest()


def read_header(path) -> dict:
    """The header of a table file, after checking that the whole file is intact."""
    return _read(path)[0]


def _read(path, progress=None):
    """(header, payload) of a checked table file: format 1's payload is the packed map of
    its arrays, format 2's the arrays' bytes (``progress`` told each read's bytes)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            return _read_open(f, path, progress)
    except FileNotFoundError:
        raise TableError(Message("table file {path} does not exist", path=str(path))) from None
    except OSError as e:
        raise TableError(Message("cannot read table file {path}: {why}", path=str(path),
                                 why=os_reason(e))) from None


def _read_open(f, path: Path, progress=None):
    start = f.read(256)
    f.seek(0)
    try:  # the header first, to know the format of what follows
        head = msgpack.Unpacker(f, raw=False, strict_map_key=False, read_size=1 << 16,
                                max_buffer_size=1 << 26)
        if head.read_map_header() != 2 or head.unpack() != "header":
            raise ValueError
        header = head.unpack()
        if not isinstance(header, dict) or header.get("format") != MAGIC \
                or head.unpack() != "payload":
            raise ValueError
        payload_at = head.tell()
    except Exception:
        raise _cut_short_or_not_ours(path, start) from None
    version = header.get("format_version")
    if version == FORMAT_IN_PIECES:
        payload = _read_pieces(f, payload_at, header, path, progress)
        checked = (memoryview(payload),)
    elif version == FORMAT_VERSION:
        f.seek(0)
        try:
            doc = msgpack.unpackb(_read_all(f, progress), raw=False, strict_map_key=False)
            header, payload = doc["header"], doc["payload"]
            if header.get("format") != MAGIC or not isinstance(payload, bytes):
                raise ValueError
        except Exception:
            raise _cut_short_or_not_ours(path, start) from None
        checked = (payload,)
    else:
        raise TableError(Message("{path} has table format {have}, this dicewise reads format "
                                 "{want}", path=str(path), have=version,
                                 want=f"{FORMAT_VERSION} or {FORMAT_IN_PIECES}"))
    if header.get("checksum") != checksum(header, *checked):
        # what to do about it is said by the reader, who knows (rebuild, recompute, reinstall)
        raise TableError(Message("{path} is damaged (checksum mismatch)", path=str(path)))
    return header, payload


def _cut_short_or_not_ours(path: Path, start: bytes) -> TableError:
    # a table cut short still names its format near the start; any other file is none of ours
    kind = TableError if MAGIC.encode() in start else NotATableFile
    return kind(Message("{path} is not a dicewise table file, or it is truncated",
                        path=str(path)))


#: The most one read takes, so that a progress bar moves while a big table is read.
READ_CHUNK = 1 << 26


def _fill(f, view: memoryview, progress=None) -> int:
    """Read into ``view`` a chunk at a time, until it is full or the file ends: the bytes
    read (each chunk's told to ``progress``)."""
    at = 0
    while at < len(view):
        got = f.readinto(view[at:at + READ_CHUNK])
        if not got:
            break
        at += got
        if progress is not None:
            progress(got)
    return at


def _read_all(f, progress=None) -> memoryview:
    """The whole file (its position at the start); less where it shrank while being read."""
    view = memoryview(bytearray(os.fstat(f.fileno()).st_size))
    return view[:_fill(f, view, progress)]


def _read_pieces(f, offset: int, header, path: Path, progress=None) -> np.ndarray:
    """Format 2's payload, a list of bins, read into one buffer of the arrays' bytes
    (read-only), after checking that the pieces hold exactly what the header describes."""
    cut = _cut_short_or_not_ours(path, MAGIC.encode())
    try:
        total = sum(np.dtype(a["dtype"]).itemsize * math.prod(a["shape"])
                    for a in header["arrays"].values())
    except Exception:
        raise _arrays_unlike_header(path) from None
    if not 0 <= total <= os.fstat(f.fileno()).st_size - offset:  # before any allocation
        raise cut
    buffer = np.empty(total, np.uint8)
    view = memoryview(buffer)
    f.seek(offset)
    at = 0
    for _ in range(_length(f, _ARRAY_HEADERS, cut)):
        n = _length(f, _BIN_HEADERS, cut)
        if n > total - at:
            raise _arrays_unlike_header(path)
        if _fill(f, view[at:at + n], progress) < n:
            raise cut
        at += n
    if at != total or f.read(1):
        raise _arrays_unlike_header(path)
    buffer.flags.writeable = False
    return buffer


#: The first byte of a msgpack array's or bin's header: how many bytes of length follow
#: (None: a fixarray, its length in the byte's low four bits).
_ARRAY_HEADERS = {**{0x90 | n: None for n in range(16)}, 0xDC: 2, 0xDD: 4}
_BIN_HEADERS = {0xC4: 1, 0xC5: 2, 0xC6: 4}


def _length(f, kinds, cut: TableError) -> int:
    """The length an array's or a bin's header at the file's position gives."""
    first = f.read(1)
    if not first or first[0] not in kinds:
        raise cut
    size = kinds[first[0]]
    if size is None:
        return first[0] & 0x0F
    length = f.read(size)
    if len(length) != size:
        raise cut
    return int.from_bytes(length, "big")


def _arrays_unlike_header(path: Path) -> TableError:
    return TableError(Message("{path} is damaged (its arrays do not match its header)",
                              path=str(path)))


def _said(value) -> str:
    """A header value for people: options as ``key=value`` pairs, not a Python dict."""
    return (options_text(dict(sorted(value.items()))) or "none") if isinstance(value, dict) \
        else str(value)


def read_table(path, progress=None, **expect) -> Table:
    """Load and validate a table file (``progress`` told the bytes of each read).

    Every keyword (``kind``, ``ruleset``, ``options``, ``rules_digest``) must equal the
    header's value, or the file is refused.
    """
    header, payload = _read(path, progress)
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
        arrays = {}
        if header["format_version"] == FORMAT_IN_PIECES:
            at = 0
            for name, desc in header["arrays"].items():
                dtype, count = np.dtype(desc["dtype"]), math.prod(desc["shape"])
                arrays[name] = np.frombuffer(payload, dtype, count, at).reshape(desc["shape"])
                at += dtype.itemsize * count
        else:
            blobs = msgpack.unpackb(payload, raw=False)
            for name, desc in header["arrays"].items():
                arr = np.frombuffer(blobs[name], dtype=np.dtype(desc["dtype"]))
                arrays[name] = arr.reshape(desc["shape"])
    except Exception:
        raise _arrays_unlike_header(path) from None
    return Table(header, arrays)
