"""Exception class names of the common Python clients, and of the SDKs they wrap.

Recognised by name along an exception's MRO (nothing is imported) and as words in a text.
Sources of truth: the exception hierarchies of requests, urllib3, aiohttp, httpx/httpcore
(and httpx2), the anthropic and openai SDKs, botocore, psycopg/psycopg2, redis-py, pymysql,
grpc and the standard library. Names that stand for a whole family (`ConnectionError`,
`OSError`, `ClientError`) are left to the text, errno or status they carry.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = [
    "CONNECT_CLASSES",
    "CURL_CODES",
    "CURL_CONNECT",
    "NSURL_CODES",
    "NSURL_CONNECT",
    "SIGNAL_OF_CLASS",
    "TERMS",
]

_NET, _TIME, _DATA = S.NETWORK, S.TIMEOUT, S.BAD_DATA

# Class name → signal, most specific first along the MRO.
SIGNAL_OF_CLASS: dict[str, S] = {
    # timeouts: httpx/httpcore, requests, urllib3, aiohttp, botocore, anthropic/openai, asyncio
    "APITimeoutError": _TIME,
    "TimeoutException": _TIME,
    "ReadTimeout": _TIME,
    "WriteTimeout": _TIME,
    "ConnectTimeout": _TIME,
    "PoolTimeout": _TIME,
    "ReadTimeoutError": _TIME,
    "ConnectTimeoutError": _TIME,
    "ServerTimeoutError": _TIME,
    "TimeoutError": _TIME,
    # certificates
    "SSLCertVerificationError": S.CERTIFICATE,
    "ClientConnectorCertificateError": S.CERTIFICATE,
    "CertificateError": S.CERTIFICATE,
    # data that cannot be read
    "APIResponseValidationError": _DATA,
    "DecodingError": _DATA,
    "JSONDecodeError": _DATA,
    "ContentTypeError": _DATA,
    "TooManyRedirects": _DATA,
    # the network
    "APIConnectionError": _NET,
    "TransportError": _NET,
    "RemoteProtocolError": _NET,
    "ServerDisconnectedError": _NET,
    "ClientConnectorError": _NET,
    "ClientOSError": _NET,
    "ClientPayloadError": _NET,
    "ChunkedEncodingError": _NET,
    "ProtocolError": _NET,
    "NewConnectionError": _NET,
    "MaxRetryError": _NET,
    "NameResolutionError": _NET,
    "EndpointConnectionError": _NET,
    "ProxyError": _NET,
    "RemoteDisconnected": _NET,
    "IncompleteRead": _NET,
    "ConnectionError": _NET,
    "gaierror": _NET,
    "herror": _NET,
    "URLError": _NET,
    # credentials
    "NoCredentialsError": S.MISSING_KEY,
    "PartialCredentialsError": S.MISSING_KEY,
    "AuthenticationError": S.BAD_CREDENTIALS,
    "ExpiredTokenException": S.EXPIRED_TOKEN,
    # databases (psycopg, redis-py)
    "DeadlockDetected": S.CONFLICT,
    "SerializationFailure": S.CONFLICT,
    "AdminShutdown": _NET,
    "TooManyConnections": S.CAPACITY,
    "UniqueViolation": S.EXISTS,
    "QueryCanceled": _TIME,
    "DiskFull": S.DISK_FULL,
    "OutOfMemory": S.OUT_OF_MEMORY,
    "BusyLoadingError": S.SERVER,
    "ReadOnlyError": S.SERVER,
    # the standard library
    "FileNotFoundError": S.NOT_FOUND,
    "PermissionError": S.PERMISSION,
    "MemoryError": S.OUT_OF_MEMORY,
    "InvalidURL": S.INTERNAL,
}
# Raised before a request was sent (httpx, httpx2, aiohttp, urllib3, builtins), also as a cause.
CONNECT_CLASSES = frozenset(
    {"ConnectError", "ConnectTimeout", "ConnectionRefusedError", "gaierror"}
    | {"ClientConnectorError", "NewConnectionError", "NameResolutionError"}
)

# The same names as words in a text, where they say more than the words around them.
TERMS: tuple[Term, ...] = (
    term("RemoteProtocolError", _NET, "httpx/httpcore: the server broke the protocol or hung up"),
    term("Server disconnected", _NET, "httpcore and aiohttp: the server closed the connection"),
    term("ServerDisconnectedError", _NET, "aiohttp: the server closed the connection"),
    term("ClientConnectorError", _NET, "aiohttp: could not connect", connect=True),
    term("Cannot connect to host", _NET, "aiohttp ClientConnectorError", connect=True),
    term("ClientPayloadError", _NET, "aiohttp: the body was cut off"),
    term("RemoteDisconnected", _NET, "http.client: closed without a response"),
    term("Remote end closed connection", _NET, "http.client RemoteDisconnected"),
    term("Connection aborted", _NET, "urllib3 ProtocolError"),
    term("Connection broken", _NET, "urllib3: the body was cut off"),
    term("ConnectionClosed", _NET, "h11: the peer closed the connection"),
    term("Failed to establish a new connection", _NET, "urllib3 NewConnectionError", connect=True),
    term("NewConnectionError", _NET, "urllib3: could not connect", connect=True),
    term("Max retries exceeded with url", _NET, "urllib3 MaxRetryError: every attempt failed"),
    term("ConnectError", _NET, "httpx: could not connect", connect=True),
    term("ReadTimeout", _TIME, "httpx and requests: no response in time"),
    term("ConnectTimeout", _TIME, "httpx and requests: no connection in time"),
    term("Read timed out", _TIME, "urllib3 ReadTimeoutError"),
    term("EndpointConnectionError", _NET, "botocore: could not connect", connect=True),
    term("Could not connect to the endpoint URL", _NET, "botocore", connect=True),
    term("NoCredentialsError", S.MISSING_KEY, "botocore: no credentials configured"),
    term("Unable to locate credentials", S.MISSING_KEY, "botocore NoCredentialsError"),
    term("APIConnectionError", _NET, "anthropic/openai SDK: the request did not get through"),
    term("APITimeoutError", _TIME, "anthropic/openai SDK: timed out"),
    term("JSONDecodeError", _DATA, "json and requests: the body is not JSON"),
    term("ContentTypeError", _DATA, "aiohttp: the body is not of the expected type"),
    term("fetch failed", _NET, "Node undici: the request failed before a response"),
    term("socket hang up", _NET, "Node: the server closed the socket"),
    term("upstream connect error", _NET, "Envoy: could not reach the upstream"),
    term("disconnect/reset before headers", _NET, "Envoy: upstream reset"),
    term("failed to connect to all addresses", _NET, "gRPC: no backend accepted", connect=True),
    term("Connect Failed", _NET, "gRPC (old): could not connect", connect=True, literal=True),
    term("no such host", _NET, "Go net: DNS lookup failed", connect=True),
    term("could not resolve host", _NET, "curl 6: DNS lookup failed", connect=True),
    term("Couldn't connect to server", _NET, "curl 7", connect=True),
    term("was refused - did you specify the right host or port", _NET, "kubectl", connect=True),
    term("Unable to connect to the server", _NET, "kubectl: could not reach the API server"),
    term("context deadline exceeded", _TIME, "Go: the context's deadline passed"),
    # Kubernetes API server statuses, as kubectl and client-go print them
    term("the object has been modified", S.CONFLICT, "Kubernetes 409: a newer version won"),
    term("Operation cannot be fulfilled on", S.CONFLICT, "Kubernetes 409 Conflict"),
    term("etcdserver: request timed out", _TIME, "Kubernetes: etcd did not answer in time"),
)

# curl's exit codes ("curl: (28) …", PHP's "cURL error 28: …"), from libcurl-errors(3).
CURL_CODES: dict[int, S] = {
    1: S.BAD_REQUEST,  # unsupported protocol
    3: S.BAD_REQUEST,  # the URL is malformed
    5: _NET,  # could not resolve the proxy
    6: _NET,  # could not resolve the host
    7: _NET,  # could not connect
    9: S.FORBIDDEN,  # remote access denied
    16: _NET,  # HTTP/2 framing layer
    18: _NET,  # partial file: the transfer was cut
    27: S.OUT_OF_MEMORY,
    28: _TIME,  # operation timed out
    35: _NET,  # the TLS handshake failed
    47: _DATA,  # too many redirects
    52: _NET,  # the server replied nothing
    55: _NET,  # failed sending data
    56: _NET,  # failure receiving data
    58: S.CERTIFICATE,  # problem with the local certificate
    60: S.CERTIFICATE,  # the peer's certificate could not be verified
    67: S.BAD_CREDENTIALS,  # the login was denied
    77: S.CERTIFICATE,  # problem reading the CA certificates
    78: S.NOT_FOUND,  # the remote file was not found
    92: _NET,  # an HTTP/2 stream error
}
CURL_CONNECT = frozenset({5, 6, 7})  # nothing was sent

# Apple's URL Loading System (NSURLErrorDomain codes, "Error Domain=NSURLErrorDomain
# Code=-1004"): the code says it whatever language the description is in.
NSURL_CODES: dict[int, S] = {
    -1001: _TIME,  # timed out
    -1003: _NET,  # cannot find host
    -1004: _NET,  # cannot connect to host
    -1005: _NET,  # the network connection was lost
    -1006: _NET,  # DNS lookup failed
    -1009: _NET,  # not connected to the internet
    -1011: _DATA,  # bad server response
    -1012: S.BAD_CREDENTIALS,  # user cancelled authentication (the credentials were refused)
    -1013: S.MISSING_KEY,  # user authentication required
    -1015: _DATA,  # cannot decode raw data
    -1016: _DATA,  # cannot decode content data
    -1017: _DATA,  # cannot parse response
    -1100: S.NOT_FOUND,  # file does not exist
    -1102: S.PERMISSION,  # no permission to read the file
    -1103: S.TOO_LARGE,  # data length exceeds the maximum
    -1200: S.CERTIFICATE,  # secure connection failed
    -1201: S.CERTIFICATE,  # server certificate has a bad date
    -1202: S.CERTIFICATE,  # server certificate untrusted
    -1203: S.CERTIFICATE,  # server certificate has an unknown root
    -1204: S.CERTIFICATE,  # server certificate not yet valid
}
NSURL_CONNECT = frozenset({-1003, -1004, -1006, -1009})  # nothing was sent
