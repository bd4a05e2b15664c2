"""Operating-system errors: errno names and numbers, strerror texts, getaddrinfo, WSA, WinINet.

Sources of truth: the errno names of POSIX (as Python's `errno` module spells them), the
strerror texts of glibc (Linux) and of macOS's libc where they differ, getaddrinfo's
`gai_strerror` texts (glibc and macOS), and Windows' Winsock (WSA) error texts. The numbers
are Linux's and Windows', the platforms errors most often come from; on Linux a test checks
them, and the texts, against the `errno` and `os.strerror` of the running system.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["CONNECT_NAMES", "ERRNO_NAMES", "ERRNO_NUMBERS", "TERMS"]

# errno name → what it says. Used for exceptions (by `errno.errorcode`) and texts (by name).
ERRNO_NAMES: dict[str, S] = {
    "ECONNREFUSED": S.NETWORK,  # nothing listens: the request was never sent
    "ECONNRESET": S.NETWORK,  # the peer dropped the connection
    "ECONNABORTED": S.NETWORK,
    "ENETUNREACH": S.NETWORK,
    "ENETDOWN": S.NETWORK,
    "EHOSTUNREACH": S.NETWORK,
    "EHOSTDOWN": S.NETWORK,
    "EPIPE": S.NETWORK,  # wrote to a connection the peer had closed
    "ETIMEDOUT": S.TIMEOUT,
    "ENOSPC": S.DISK_FULL,
    "EDQUOT": S.DISK_FULL,  # the user's disk quota: as full, for them
    "ENOMEM": S.OUT_OF_MEMORY,
    "EMFILE": S.RESOURCE_LIMIT,  # this process's open-file limit
    "ENFILE": S.RESOURCE_LIMIT,  # the system's open-file limit
    "EACCES": S.PERMISSION,
    "EPERM": S.PERMISSION,
    "EROFS": S.PERMISSION,  # a read-only file system: nobody may write there
    "EAI_NONAME": S.NETWORK,  # getaddrinfo: the name did not resolve, nothing was sent
    "EAI_AGAIN": S.NETWORK,
    "EAI_NODATA": S.NETWORK,
    "EAI_FAIL": S.NETWORK,
}
# The names that mean nothing was sent, so a retry needs no backoff.
CONNECT_NAMES = frozenset(
    {"ECONNREFUSED", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EAI_NONAME", "EAI_AGAIN"}
    | {"EAI_NODATA", "EAI_FAIL"}
)

# "[Errno N]", "[WinError N]", "(os error N)": the number, where the text has no name.
ERRNO_NUMBERS: dict[int, str] = {
    # Linux (glibc)
    1: "EPERM",
    12: "ENOMEM",
    13: "EACCES",
    23: "ENFILE",
    24: "EMFILE",
    28: "ENOSPC",
    30: "EROFS",
    32: "EPIPE",
    100: "ENETDOWN",
    101: "ENETUNREACH",
    103: "ECONNABORTED",
    104: "ECONNRESET",
    110: "ETIMEDOUT",
    111: "ECONNREFUSED",
    112: "EHOSTDOWN",
    113: "EHOSTUNREACH",
    122: "EDQUOT",
    # Windows Winsock
    10053: "ECONNABORTED",  # WSAECONNABORTED
    10054: "ECONNRESET",  # WSAECONNRESET
    10050: "ENETDOWN",  # WSAENETDOWN
    10051: "ENETUNREACH",  # WSAENETUNREACH
    10060: "ETIMEDOUT",  # WSAETIMEDOUT
    10061: "ECONNREFUSED",  # WSAECONNREFUSED
    10065: "EHOSTUNREACH",  # WSAEHOSTUNREACH
    10024: "EMFILE",  # WSAEMFILE
    10055: "ENOMEM",  # WSAENOBUFS: no buffer space
    # getaddrinfo (glibc): negative numbers in "[Errno -2]"
    -2: "EAI_NONAME",
    -3: "EAI_AGAIN",
    -4: "EAI_FAIL",
    -5: "EAI_NODATA",
    # Winsock name resolution
    11001: "EAI_NONAME",  # WSAHOST_NOT_FOUND
    11002: "EAI_AGAIN",  # WSATRY_AGAIN
    11004: "EAI_NODATA",  # WSANO_DATA
    # WinINet and WinHTTP (the same numbers in both; wininet.h, winhttp.h; "WinINet Errors",
    # learn.microsoft.com/windows/win32/wininet/wininet-errors), often as an HRESULT
    # ("0x80072efd": 0x8007 then the Win32 code, 0x2efd = 12029)
    12002: "ETIMEDOUT",  # ERROR_INTERNET_TIMEOUT
    12007: "EAI_NONAME",  # ERROR_INTERNET_NAME_NOT_RESOLVED
    12029: "ECONNREFUSED",  # ERROR_INTERNET_CANNOT_CONNECT
    12030: "ECONNABORTED",  # ERROR_INTERNET_CONNECTION_ABORTED
    12031: "ECONNRESET",  # ERROR_INTERNET_CONNECTION_RESET
}
_NET, _TIME = S.NETWORK, S.TIMEOUT

TERMS: tuple[Term, ...] = (
    # Names as texts print them (Node's "connect ECONNREFUSED", libuv, Go's syscall names).
    *(
        term(name, signal, f"errno name {name}", connect=name in CONNECT_NAMES)
        for name, signal in ERRNO_NAMES.items()
    ),
    term("ENOTFOUND", _NET, "Node: getaddrinfo found no such host", connect=True),
    term("ESOCKETTIMEDOUT", _TIME, "Node request: socket timed out"),
    # glibc strerror
    term("Connection refused", _NET, "strerror(ECONNREFUSED)", connect=True),
    term("Connection reset by peer", _NET, "strerror(ECONNRESET)"),
    term("Device or resource busy", S.CONFLICT, "strerror(EBUSY): held by another, for now"),
    term("Resource temporarily unavailable", S.LATER, "strerror(EAGAIN): try again later"),
    term("No such file or directory", S.NOT_FOUND, "strerror(ENOENT)"),
    term("File exists", S.EXISTS, "strerror(EEXIST)"),
    term("Invalid argument", S.BAD_REQUEST, "strerror(EINVAL)"),
    term("Software caused connection abort", _NET, "strerror(ECONNABORTED)"),
    term("Network is unreachable", _NET, "strerror(ENETUNREACH)", connect=True),
    term("Network is down", _NET, "strerror(ENETDOWN)", connect=True),
    term("No route to host", _NET, "strerror(EHOSTUNREACH)", connect=True),
    term("Host is down", _NET, "strerror(EHOSTDOWN)"),
    term("Broken pipe", _NET, "strerror(EPIPE)"),
    term("Connection timed out", _TIME, "strerror(ETIMEDOUT), glibc"),
    term("Operation timed out", _TIME, "strerror(ETIMEDOUT), macOS"),
    term("No space left on device", S.DISK_FULL, "strerror(ENOSPC)"),
    term("Disk quota exceeded", S.DISK_FULL, "strerror(EDQUOT)"),
    term("Cannot allocate memory", S.OUT_OF_MEMORY, "strerror(ENOMEM)"),
    term("Too many open files", S.RESOURCE_LIMIT, "strerror(EMFILE), strerror(ENFILE)"),
    term("Too many files open", S.RESOURCE_LIMIT, "EMFILE as some tools word it"),
    term("Read-only file system", S.PERMISSION, "strerror(EROFS)"),
    term("Operation not permitted", S.PERMISSION, "strerror(EPERM)"),
    # getaddrinfo: gai_strerror, glibc and macOS
    term("Name or service not known", _NET, "gai_strerror(EAI_NONAME), glibc", connect=True),
    term("Temporary failure in name resolution", _NET, "gai_strerror(EAI_AGAIN)", connect=True),
    term("No address associated with hostname", _NET, "gai_strerror(EAI_NODATA)", connect=True),
    term("nodename nor servname provided", _NET, "gai_strerror(EAI_NONAME), macOS", connect=True),
    term(
        "Non-recoverable failure in name resolution", _NET, "gai_strerror(EAI_FAIL)", connect=True
    ),
    term("getaddrinfo failed", _NET, "Python on Windows: socket.gaierror", connect=True),
    # Windows Winsock texts
    term("forcibly closed by the remote host", _NET, "WSAECONNRESET (10054)"),
    term("established connection was aborted", _NET, "WSAECONNABORTED (10053)"),
    term("actively refused it", _NET, "WSAECONNREFUSED (10061)", connect=True),
    term("did not properly respond after a period of time", _TIME, "WSAETIMEDOUT (10060)"),
    term("No such host is known", _NET, "WSAHOST_NOT_FOUND (11001)", connect=True),
    term("network name is no longer available", _NET, "Windows ERROR_NETNAME_DELETED (64)"),
    term(
        "remote name could not be resolved",
        _NET,
        ".NET WebException NameResolutionFailure",
        connect=True,
    ),
    term("not enough space on the disk", S.DISK_FULL, "Windows ERROR_DISK_FULL"),
    term("not enough memory resources", S.OUT_OF_MEMORY, "Windows ERROR_NOT_ENOUGH_MEMORY"),
    # Python builtins, as their class names appear in texts
    term("ConnectionRefusedError", _NET, "Python: ECONNREFUSED", connect=True),
    term("ConnectionResetError", _NET, "Python: ECONNRESET"),
    term("ConnectionAbortedError", _NET, "Python: ECONNABORTED"),
    term("BrokenPipeError", _NET, "Python: EPIPE"),
    term("gaierror", _NET, "Python: socket.gaierror, a DNS failure", connect=True),
    term("TimeoutError", _TIME, "Python: ETIMEDOUT and asyncio timeouts"),
    term("MemoryError", S.OUT_OF_MEMORY, "Python: the interpreter ran out of memory"),
    term("PermissionError", S.PERMISSION, "Python: EACCES, EPERM"),
)
