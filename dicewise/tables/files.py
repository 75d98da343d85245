"""Writing files: whole or not at all (every file dicewise writes), and only where a file may go."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .. import i18n
from ..errors import DicewiseError


def write_atomic(path, *chunks: bytes, new: bool = False) -> Path:
    """Write ``chunks`` to ``path`` through a temporary file in its folder, synced, then
    renamed over it: a reader (or a crash) sees the old file or the whole new one.  With
    ``new``, a file already at ``path`` is kept and FileExistsError raised: the name is
    claimed at once, so two writers that picked one name cannot both think it theirs.

    The file gets the permissions of any new file (mkstemp's 0600 is for the temporary name
    only). An OSError leaves no temporary file behind and is raised for the caller to word.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        if new:
            _link_new(tmp, path, chunks)
        else:
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _link_new(tmp: str, path: Path, chunks) -> None:
    """Give the written ``tmp`` the name ``path`` unless a file has it (a hard link fails
    where the name is taken); where links are not supported, create ``path`` exclusively
    and write it there."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links
        with open(path, "xb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
    os.unlink(tmp)


def refuse_empty(path) -> None:
    """One line for an empty file name (``Path("")`` is the current folder)."""
    if not str(path).strip():
        raise DicewiseError(i18n.Message("an empty file name; give a file name"))


def checked_output(path) -> Path:
    """An ``--out`` path: a new name in an existing folder, or a regular file to replace.

    Devices, FIFOs and directories are refused (and never read): one line, exit 2.  A
    symbolic link is written through, as ``cp`` writes: the file it names is replaced and
    the link stays.
    """
    refuse_empty(path)
    if str(path).endswith(("/", os.sep)):  # Path() drops the slash: "x/" would write "x"
        raise DicewiseError(i18n.Message("{path} names a folder; give a file name",
                                         path=str(path)))
    if "\0" in str(path):  # no system opens it (Python raises ValueError)
        raise DicewiseError(i18n.Message("a file name cannot hold a NUL character"))
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise DicewiseError(cannot_write(path, e)) from None
    if mode is not None:
        _refuse_all_but_files(path, mode)
    if path.is_symlink():  # the rename of an atomic write would replace the link itself
        path = Path(os.path.realpath(path))
    if not path.parent.is_dir():
        raise DicewiseError(i18n.Message("{path}: folder {folder} does not exist", path=str(path),
                                         folder=str(path.parent)))
    return path


def write_output(path, data: str | bytes, new: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file, then rename), checked first;
    with ``new``, FileExistsError where a file is there (``write_atomic``)."""
    path = checked_output(path)
    try:
        return write_atomic(path, data.encode() if isinstance(data, str) else data, new=new)
    except OSError as e:
        if new and isinstance(e, FileExistsError):
            raise
        raise DicewiseError(cannot_write(path, e)) from None


def checked_input(path) -> Path:
    """A file to read whole (a log, a saved game): a regular file or a pipe (``<(cat log)``),
    so that a device (``/dev/zero``) is refused in one line instead of read for ever."""
    refuse_empty(path)
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise DicewiseError(cannot_read(path, e)) from None
    _refuse_all_but_files(path, mode, pipes=True)
    return path


def _refuse_all_but_files(path: Path, mode: int, pipes: bool = False) -> None:
    """One line for what ``mode`` says is no regular file (nor a pipe, where ``pipes``)."""
    if stat.S_ISREG(mode) or (pipes and stat.S_ISFIFO(mode)):
        return
    if stat.S_ISDIR(mode):
        raise DicewiseError(i18n.Message("{path} is a directory; give a file name",
                                         path=str(path)))
    raise DicewiseError(i18n.Message("{path} is not a regular file; give a file name",
                                     path=str(path)))


def cannot_read(path, error: Exception) -> i18n.Message:
    """Why ``path`` could not be read, in the player's words."""
    why = i18n.os_reason(error) if isinstance(error, OSError) else str(error)
    return i18n.Message("cannot read {path}: {why}", path=str(path), why=why)


def cannot_write(path, error: OSError) -> i18n.Message:
    """Why ``path`` could not be written, in the player's words."""
    return i18n.Message("cannot write {path}: {why}", path=str(path), why=i18n.os_reason(error))
