"""Files we write: opened without following a symbolic link or waiting on a FIFO, and kept
only when they are regular files of ours that no one else may write.

`open_private` is the one way in, for the log (`AGENT_LOG_FILE`) and the gazetteer's cache:

    descriptor = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

The last part of the path is not followed when it is a link (`O_NOFOLLOW`), and the open
does not wait (`O_NONBLOCK`: a FIFO nobody reads refuses at once, rather than hanging the
command). The file is then checked on its descriptor, so what is checked is what is used: a
regular file, owned by this user, that its group and others cannot write. A new file is
created readable and writable by its owner only (0600). Anything else is `NotPrivate`, which
says why in a few words; the descriptor is closed. The descriptor returned blocks again, as
ordinary writes expect.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["NotPrivate", "open_private"]

# POSIX flags; where a platform has none, the open is as it would be without them.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class NotPrivate(OSError):
    """A path that is not a regular file of ours that only we may write; `str` says why."""


def open_private(path: str | os.PathLike[str], flags: int, *, max_bytes: int | None = None) -> int:
    """A descriptor for `path`, opened with `flags` (0600 when created), never through a
    link or a wait; `NotPrivate` unless it is a regular file of ours that no one else may
    write (and, with `max_bytes`, no larger). Other failures are the usual `OSError`."""
    try:
        descriptor = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotPrivate(errno.ELOOP, "it is a symbolic link") from error
        if error.errno == errno.ENXIO:  # opening a FIFO to write while nobody reads it
            raise NotPrivate(errno.ENXIO, "it is a FIFO") from error
        raise
    try:
        problem = _problem(os.fstat(descriptor), max_bytes)
        if problem is not None:
            raise NotPrivate(errno.EPERM, problem)
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _problem(status: os.stat_result, max_bytes: int | None) -> str | None:
    """Why a file with this status is not ours alone to write, or None."""
    if not stat.S_ISREG(status.st_mode):
        return "it is not a regular file"
    if hasattr(os, "geteuid") and status.st_uid != os.geteuid():
        return "another user owns it"
    if status.st_mode & _OTHERS_WRITE:
        return "others may write to it"
    if max_bytes is not None and status.st_size > max_bytes:
        return f"it is larger than {max_bytes} bytes"
    return None
