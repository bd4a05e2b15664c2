"""Plain words that say what happened, whoever wrote them: the vocabulary of last resort.

These are the phrases many services and libraries share ("rate limit", "timed out", "already
exists", "is a required property"), including the messages of JSON decoders, JSON Schema
(python-jsonschema) and pydantic. A more specific vocabulary wins where both match, because
the rule table looks at specific signals first.

Then the *general cues* (`cue`): single words and short phrases a person understands without
knowing the system — "try again later", "locked", "duplicate", "denied", "invalid". They count
only when nothing more specific was found, so they decide what would otherwise be unknown and
never override a precise term. Phrases that name a cause without a kind of their own ("a null
pointer", "a module not found") carry it, so the sentence can say it (`cause`).

Every phrase is matched as a person reads it (`errors._facts.word_forms`): identifiers split
("NotLeaderOrFollower", "SQLITE_BUSY"), inflections folded ("throttled", "throttling").
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["TERMS", "THINGS"]


def cue(phrase: str, signal: S, why: str = "a general cue") -> Term:
    """A general cue: it counts only when no more specific term was found."""
    return term(phrase, signal, why, weak=True)


def cause(phrase: str, named: str, why: str) -> Term:
    """A phrase naming a bug's cause, which the sentence repeats in plain words (`named`)."""
    return term(phrase, S.INTERNAL, why, cause=named)


TERMS: tuple[Term, ...] = (
    # rates: too much, too fast
    term("rate limit", S.RATE_LIMIT, "the common phrase"),
    term("rate limited", S.RATE_LIMIT, "the common phrase"),
    term("ratelimit", S.RATE_LIMIT, "as one word"),
    term("rate exceeded", S.RATE_LIMIT, "AWS and others"),
    term("throttled", S.RATE_LIMIT, "the common word"),
    term("slow down", S.RATE_LIMIT, "S3 and others"),
    term("request limit exceeded", S.RATE_LIMIT, "a period's request limit"),
    # quotas and money
    term("quota exceeded", S.QUOTA, "the common phrase"),
    term("exceeded your current quota", S.QUOTA, "OpenAI and Gemini", billing=True),
    term("exceeded the quota", S.QUOTA, "the common phrase"),
    term("quota exhausted", S.QUOTA, "the common phrase"),
    term("exceeded quota", S.QUOTA, "Kubernetes ResourceQuota"),
    term("out of quota", S.QUOTA, "the common phrase"),
    term("insufficient quota", S.QUOTA, "the common phrase", billing=True),
    term("usage limit", S.QUOTA, "a plan's usage limit", billing=True),
    term("plan limit", S.QUOTA, "a plan's limit", billing=True),
    term("spending limit", S.QUOTA, "a spending cap", billing=True),
    term("insufficient funds", S.QUOTA, "a balance (a card's is a decline)", billing=True),
    term("insufficient credit", S.QUOTA, "a prepaid balance", billing=True),
    term("insufficient balance", S.QUOTA, "a prepaid balance", billing=True),
    term("plan and billing", S.QUOTA, "billing words", billing=True),
    term("billing details", S.QUOTA, "billing words", billing=True),
    term("upgrade your plan", S.QUOTA, "billing words", billing=True),
    term("upgrade your quota tier", S.QUOTA, "Gemini: billing words", billing=True),
    # capacity: busy, not broken
    term("overloaded", S.CAPACITY, "the common word"),
    term("server is busy", S.CAPACITY, "the common phrase"),
    term("at capacity", S.CAPACITY, "the common phrase"),
    # time
    term("timed out", S.TIMEOUT, "the common phrase"),
    term("timeout", S.TIMEOUT, "the common word"),
    term("time out", S.TIMEOUT, "the common phrase"),
    term("deadline exceeded", S.TIMEOUT, "gRPC and Go"),
    term("took too long", S.TIMEOUT, "the common phrase"),
    # the network, in general words
    term("connection refused", S.NETWORK, "the common phrase", connect=True),
    term("connection reset", S.NETWORK, "the common phrase"),
    term("connection closed", S.NETWORK, "the common phrase"),
    term("connection error", S.NETWORK, "the common phrase"),
    term("network error", S.NETWORK, "the common phrase"),
    term("name resolution", S.NETWORK, "DNS: the host name did not resolve", connect=True),
    term("DNS", S.NETWORK, "DNS: the host name did not resolve", connect=True),
    term("could not resolve", S.NETWORK, "DNS: the host name did not resolve", connect=True),
    term("getaddrinfo", S.NETWORK, "DNS: the host name did not resolve", connect=True),
    term("unreachable", S.NETWORK, "the common word"),
    # the service's own failure
    term("internal error", S.SERVER, "the common phrase"),
    term("server error", S.SERVER, "the common phrase"),
    term("temporarily unavailable", S.SERVER, "the common phrase"),
    # requests to correct
    term("is too long", S.TOO_LONG, "a prompt, message or field longer than allowed"),
    term("are too long", S.TOO_LONG, "messages longer than allowed"),
    term("too many tokens", S.TOO_LONG, "a prompt longer than the model takes"),
    term("context window", S.TOO_LONG, "a model's context"),
    term("context length", S.TOO_LONG, "a model's context"),
    term("idempotency key", S.IDEMPOTENCY, "a request key reused"),
    term("invalid request", S.BAD_REQUEST, "the common phrase"),
    term("malformed", S.BAD_REQUEST, "the common word"),
    term("invalid parameter", S.BAD_REQUEST, "the common phrase"),
    term("invalid argument", S.BAD_REQUEST, "the common phrase"),
    term("invalid value", S.BAD_REQUEST, "the common phrase"),
    # validation messages: JSON Schema, pydantic and the rest
    term("validation error", S.INVALID_INPUT, "pydantic and others"),
    term("validation failed", S.INVALID_INPUT, "the common phrase"),
    term("field required", S.INVALID_INPUT, "pydantic"),
    term("is required", S.INVALID_INPUT, "the common phrase"),
    term("is a required property", S.INVALID_INPUT, "JSON Schema required"),
    term("is not of type", S.INVALID_INPUT, "JSON Schema type"),
    term("is not one of", S.INVALID_INPUT, "JSON Schema enum"),
    term("does not match", S.INVALID_INPUT, "JSON Schema pattern"),
    term("is less than the minimum of", S.INVALID_INPUT, "JSON Schema minimum"),
    term("is greater than the maximum of", S.INVALID_INPUT, "JSON Schema maximum"),
    term("additional properties are not allowed", S.INVALID_INPUT, "JSON Schema"),
    term("input should be", S.INVALID_INPUT, "pydantic v2"),
    term("invalid input", S.INVALID_INPUT, "the common phrase"),
    term("missing required", S.INVALID_INPUT, "the common phrase"),
    term("not provided", S.INVALID_INPUT, "a missing parameter"),
    term("is missing", S.INVALID_INPUT, "a missing parameter"),
    # not there
    term("not found", S.NOT_FOUND, "the common phrase"),
    term("no such", S.NOT_FOUND, "the common phrase"),
    term("does not exist", S.NOT_FOUND, "the common phrase"),
    term("No matching distribution found", S.NOT_FOUND, "pip: no such package or version"),
    term("Could not find a version that satisfies", S.NOT_FOUND, "pip: no release fits"),
    term("Unable to locate package", S.NOT_FOUND, "apt: no such package in the sources"),
    # credentials
    term("invalid x-api-key", S.BAD_CREDENTIALS, "Anthropic 401"),
    term("incorrect api key", S.BAD_CREDENTIALS, "the common phrase"),
    term("authentication failed", S.BAD_CREDENTIALS, "the common phrase"),
    term("invalid token", S.BAD_CREDENTIALS, "the common phrase"),
    term("invalid credentials", S.BAD_CREDENTIALS, "the common phrase"),
    term("token has expired", S.EXPIRED_TOKEN, "the common phrase"),
    term("token expired", S.EXPIRED_TOKEN, "the common phrase"),
    term("expired token", S.EXPIRED_TOKEN, "the common phrase"),
    term("could not resolve authentication method", S.MISSING_KEY, "anthropic SDK: no key"),
    term("missing environment variables", S.MISSING_KEY, "a key not configured"),
    term("api key is required", S.MISSING_KEY, "the common phrase"),
    term("no api key", S.MISSING_KEY, "the common phrase"),
    # permissions
    term("permission denied", S.FORBIDDEN, "the common phrase"),
    term("access denied", S.FORBIDDEN, "the common phrase"),
    term("not authorized", S.FORBIDDEN, "the common phrase"),
    term("don't have permission", S.FORBIDDEN, "the common phrase"),
    term("do not have permission", S.FORBIDDEN, "the common phrase"),
    term("insufficient permissions", S.FORBIDDEN, "the common phrase"),
    term("insufficient authentication scopes", S.FORBIDDEN, "Google: token scopes"),
    term("cannot list resource", S.FORBIDDEN, "Kubernetes RBAC"),
    term("is forbidden", S.FORBIDDEN, "Kubernetes RBAC"),
    # data that cannot be read
    term("Expecting value", S.BAD_DATA, "Python json"),
    term("Unterminated string", S.BAD_DATA, "Python json"),
    term("Expecting property name", S.BAD_DATA, "Python json"),
    term("in JSON at position", S.BAD_DATA, "JavaScript JSON.parse: Unexpected token … in JSON"),
    cue("unexpected token", S.BAD_DATA, "JavaScript JSON.parse, when nothing says code"),
    term("Unexpected end of JSON input", S.BAD_DATA, "JavaScript JSON.parse"),
    term("not valid JSON", S.BAD_DATA, "the common phrase"),
    term("invalid json", S.BAD_DATA, "the common phrase"),
    term("json decode", S.BAD_DATA, "the common phrase"),
    term("malformed response", S.BAD_DATA, "the common phrase"),
    term("malformed json", S.BAD_DATA, "the common phrase"),
    # our own bugs, as Python names them
    *(
        term(name, S.INTERNAL, "Python: a programming error")
        for name in (
            "KeyError",
            "AttributeError",
            "NameError",
            "IndexError",
            "ZeroDivisionError",
            "AssertionError",
            "NotImplementedError",
            "RecursionError",
            "UnboundLocalError",
        )
    ),
    # memory, disk and the machine's limits, in general words
    term("out of memory", S.OUT_OF_MEMORY, "the common phrase (Java's OutOfMemoryError too)"),
    term("not enough memory", S.OUT_OF_MEMORY, "the common phrase"),
    term("insufficient memory", S.OUT_OF_MEMORY, "the common phrase"),
    term("more memory", S.OUT_OF_MEMORY, "needs more memory than there is"),
    term("more system memory", S.OUT_OF_MEMORY, "needs more memory than there is"),
    term("memory exhausted", S.OUT_OF_MEMORY, "the common phrase"),
    term("memory limit", S.OUT_OF_MEMORY, "a memory limit reached"),
    term("OOMKilled", S.OUT_OF_MEMORY, "Kubernetes and Docker: killed for memory"),
    term("heap space", S.OUT_OF_MEMORY, "Java: heap exhausted"),
    term("disk full", S.DISK_FULL, "the common phrase"),
    term("disk is full", S.DISK_FULL, "the common phrase (SQLite: database or disk is full)"),
    term("storage full", S.DISK_FULL, "the common phrase"),
    term("storage is full", S.DISK_FULL, "the common phrase"),
    term("insufficient storage", S.DISK_FULL, "the common phrase"),
    term("out of disk space", S.DISK_FULL, "the common phrase"),
    term("no space left", S.DISK_FULL, "the common phrase"),
    term("disk watermark", S.DISK_FULL, "a disk past its high or flood watermark"),
    # the same thing twice, and two changes at once
    term("duplicate key", S.EXISTS, "the common phrase (MongoDB E11000 and others)"),
    term("unique constraint", S.EXISTS, "the common phrase (SQLite, Oracle)"),
    term("already taken", S.EXISTS, "a name in use"),
    term("name in use", S.EXISTS, "a name in use"),
    term("write conflict", S.CONFLICT, "a concurrent write won"),
    term("version conflict", S.CONFLICT, "an optimistic lock: a stale version"),
    term("concurrent modification", S.CONFLICT, "a concurrent change won"),
    term("database is locked", S.CONFLICT, "a lock held by another writer (SQLite and others)"),
    term("database is busy", S.CONFLICT, "a lock held by another writer"),
    term("unable to obtain lock", S.CONFLICT, "a lock held by another"),
    term("cannot obtain exclusive access", S.CONFLICT, "a lock held by another"),
    term("unable to obtain exclusive access", S.CONFLICT, "a lock held by another"),
    term("deadlock", S.CONFLICT, "the common word: retry the transaction"),
    term("conditional request failed", S.CONFLICT, "a condition on the current state failed"),
    # a cluster between leaders: the next attempt finds the new one
    term("not leader", S.SERVER, "a node that is not the leader (failover under way)"),
    term("not the leader", S.SERVER, "a node that is not the leader (failover under way)"),
    term("leader not available", S.SERVER, "an election under way"),
    term("not master", S.SERVER, "a replica that is not the primary (failover)"),
    term("not primary", S.SERVER, "a replica that is not the primary (failover)"),
    term("not writable primary", S.SERVER, "a replica that is not the primary (failover)"),
    term("primary stepped down", S.SERVER, "failover under way"),
    term("shutdown in progress", S.SERVER, "a node going down: another will answer"),
    term("shutting down", S.SERVER, "a node going down: another will answer"),
    term("lost communication", S.NETWORK, "a worker and its server out of touch"),
    term("lost connection", S.NETWORK, "the common phrase"),
    term("connection lost", S.NETWORK, "the common phrase"),
    term("connection aborted", S.NETWORK, "the common phrase"),
    term("socket hang up", S.NETWORK, "Node.js: the peer closed the socket"),
    term("disconnected", S.NETWORK, "the common word"),
    term("unknown host", S.NETWORK, "Java UnknownHostException", connect=True),
    term("could not connect", S.NETWORK, "the common phrase", connect=True),
    term("cannot connect", S.NETWORK, "the common phrase", connect=True),
    term("can't connect", S.NETWORK, "the common phrase", connect=True),
    term("unable to connect", S.NETWORK, "the common phrase", connect=True),
    term("failed to connect", S.NETWORK, "the common phrase", connect=True),
    term("took longer than", S.TIMEOUT, "a time limit passed"),
    term("too much time", S.TIMEOUT, "a time limit passed"),
    term("taking too long", S.TIMEOUT, "a time limit passed"),
    term(
        "currently loading", S.LATER, "a service warming up (a model loading): it asks for a wait"
    ),
    term("is loading", S.LATER, "a service warming up: it asks for a wait"),
    # credentials and sessions
    term("authentication unsuccessful", S.BAD_CREDENTIALS, "the common phrase (Exchange)"),
    term("authentication failure", S.BAD_CREDENTIALS, "the common phrase"),
    term("invalid username or password", S.BAD_CREDENTIALS, "the common phrase"),
    term("wrong password", S.BAD_CREDENTIALS, "the common phrase"),
    term("incorrect password", S.BAD_CREDENTIALS, "the common phrase"),
    term("invalid password", S.BAD_CREDENTIALS, "the common phrase"),
    term("invalid access token", S.BAD_CREDENTIALS, "the common phrase"),
    term("unauthenticated", S.BAD_CREDENTIALS, "the common word (gRPC UNAUTHENTICATED too)"),
    term("session expired", S.EXPIRED_TOKEN, "the common phrase"),
    term("invalid session", S.EXPIRED_TOKEN, "a session that ended: sign in again"),
    term("jwt expired", S.EXPIRED_TOKEN, "a JSON Web Token past its time"),
    term("jwt invalid", S.BAD_CREDENTIALS, "a JSON Web Token that does not verify"),
    term("invalid jwt", S.BAD_CREDENTIALS, "a JSON Web Token that does not verify"),
    term("jwt malformed", S.BAD_CREDENTIALS, "a JSON Web Token that does not parse"),
    term("must use an api key", S.MISSING_KEY, "a request sent without a key"),
    term("missing api key", S.MISSING_KEY, "a request sent without a key"),
    term("api key missing", S.MISSING_KEY, "a request sent without a key"),
    term("without an api key", S.MISSING_KEY, "a request sent without a key"),
    term("access token is expired", S.EXPIRED_TOKEN, "the common phrase"),
    term("access token expired", S.EXPIRED_TOKEN, "the common phrase"),
    term("authorization failed", S.FORBIDDEN, "the common phrase (Kafka, Azure)"),
    term("does not have authorization", S.FORBIDDEN, "Azure and others"),
    term("insufficient privileges", S.FORBIDDEN, "the common phrase"),
    term("account locked", S.FORBIDDEN, "an account an administrator must unlock"),
    term("account is locked", S.FORBIDDEN, "an account an administrator must unlock"),
    term("account disabled", S.FORBIDDEN, "an account an administrator must enable"),
    term("account suspended", S.FORBIDDEN, "an account its owner must restore"),
    # money
    term("credits exceeded", S.QUOTA, "prepaid credits spent", billing=True),
    term("out of credits", S.QUOTA, "prepaid credits spent", billing=True),
    term("insufficient credits", S.QUOTA, "prepaid credits spent", billing=True),
    term("declined by", S.DECLINED, "a payment the processor or bank declined"),
    term("payment method was not accepted", S.DECLINED, "a payment method refused"),
    term("INSTRUMENT_DECLINED", S.DECLINED, "PayPal: the card or account was declined"),
    # sizes
    term("too large", S.TOO_LARGE, "the common phrase"),
    term("exceeds the maximum size", S.TOO_LARGE, "the common phrase"),
    # not there
    term("doesn't exist", S.NOT_FOUND, "the common phrase"),
    term("could not be found", S.NOT_FOUND, "the common phrase"),
    term("does not host", S.NOT_FOUND, "a server that does not hold the thing asked for"),
    term("no longer exists", S.GONE, "it was there and is not any more"),
    term("no longer available", S.GONE, "it was there and is not any more"),
    term("has been deleted", S.GONE, "it was deleted"),
    term("was deleted", S.GONE, "it was deleted"),
    term("already deleted", S.GONE, "it was deleted"),
    term("been removed", S.GONE, "it was removed"),
    # causes with a name: the sentence says it
    cause("null pointer", "a null pointer", "Java NullPointerException and others"),
    cause("nil pointer", "a nil pointer", "Go: nil pointer dereference"),
    cause("NoneType object", "a missing value", "Python: an attribute of None"),
    cause("of undefined", "a missing value", "JavaScript: reading a property of undefined"),
    cause("is not a function", "a wrong type", "JavaScript TypeError"),
    cause("segmentation fault", "a crash", "a native crash"),
    cause("stack overflow", "a stack overflow", "runaway recursion"),
    cause("cannot find module", "a missing module", "Node.js"),
    cause("module not found", "a missing module", "Python ModuleNotFoundError, webpack"),
    cause("no module named", "a missing module", "Python ImportError"),
    cause("ImportError", "a missing module", "Python"),
    cause("class not found", "a missing class", "Java ClassNotFoundException"),
    cause("NoClassDefFoundError", "a missing class", "Java: a class gone at run time"),
    cause("address already in use", "an address already in use", "EADDRINUSE: a port taken"),
    cause("EADDRINUSE", "an address already in use", "errno: a port taken"),
    cause("BindException", "an address already in use", "Java: a port taken"),
    cause("syntax error", "a syntax error", "code that does not parse"),
    cause("SyntaxError", "a syntax error", "Python and JavaScript"),
    cause("assertion failed", "a failed assertion", "a check in the code"),
    cause("index out of range", "an index out of range", "Python, Go"),
    cause("IndexOutOfBounds", "an index out of range", "Java: ArrayIndexOutOfBoundsException"),
    cause("division by zero", "a division by zero", "the common phrase"),
    cause("disk I/O error", "a disk read or write error", "SQLite SQLITE_IOERR"),
    cause("database disk image is malformed", "a damaged database", "SQLite SQLITE_CORRUPT"),
    term("panicked at", S.INTERNAL, "Rust: a thread panicked (its cause, if named, decides)"),
    term("goroutine", S.INTERNAL, "Go: a panic's goroutine dump (its cause, if named, decides)"),
    # general cues: they decide only when nothing more specific was found
    cue("try again later", S.LATER),
    cue("try later", S.LATER),
    cue("retry later", S.LATER),
    cue("please try again", S.LATER),
    cue("please wait", S.LATER),
    cue("come back later", S.LATER),
    cue("temporarily", S.LATER),
    cue("temporary", S.LATER),
    cue("not available", S.LATER),
    cue("currently unavailable", S.LATER),
    cue("currently loading", S.LATER),
    cue("unavailable", S.LATER),
    cue("busy", S.CAPACITY),
    cue("capacity", S.CAPACITY),
    cue("overload", S.CAPACITY),
    cue("locked", S.CONFLICT),
    cue("lock", S.CONFLICT),
    cue("conflict", S.CONFLICT),
    cue("too many", S.RATE_LIMIT),
    cue("per second", S.RATE_LIMIT),
    cue("per minute", S.RATE_LIMIT),
    cue("limit exceeded", S.RATE_LIMIT),
    cue("limit reached", S.RATE_LIMIT),
    cue("query limit", S.RATE_LIMIT),
    cue("exceeded your", S.QUOTA),
    cue("exceed your", S.QUOTA),
    cue("payment", S.QUOTA),
    cue("quota", S.QUOTA),
    cue("already exists", S.EXISTS),
    cue("duplicate", S.EXISTS),
    cue("cannot find", S.NOT_FOUND),
    cue("could not find", S.NOT_FOUND),
    cue("couldn't find", S.NOT_FOUND),
    cue("can't find", S.NOT_FOUND),
    cue("unable to find", S.NOT_FOUND),
    cue("not exist", S.NOT_FOUND),
    cue("no longer", S.GONE),
    cue("deleted", S.GONE),
    cue("gone", S.GONE),
    cue("denied", S.FORBIDDEN),
    cue("not allowed", S.FORBIDDEN),
    cue("not permitted", S.FORBIDDEN),
    cue("permission", S.FORBIDDEN),
    cue("disabled", S.FORBIDDEN),
    cue("suspended", S.FORBIDDEN),
    cue("blocked", S.FORBIDDEN),
    cue("unauthorised", S.BAD_CREDENTIALS),
    cue("expired", S.EXPIRED_TOKEN),
    cue("invalid", S.BAD_REQUEST),
    cue("not valid", S.BAD_REQUEST),
    cue("not a valid", S.BAD_REQUEST),
    cue("should be a valid", S.BAD_REQUEST),
    cue("restricted", S.FORBIDDEN),
    cue("access level", S.FORBIDDEN),
    cue("need access", S.FORBIDDEN),
    cue("declined", S.DECLINED),
    cue("checksum", S.BAD_DATA),
    cue("ssl", S.CERTIFICATE),
    cue("tls", S.CERTIFICATE),
    cue("certificate", S.CERTIFICATE),
    cue("must be", S.BAD_REQUEST),
    cue("required", S.BAD_REQUEST),
    cue("unsupported", S.BAD_REQUEST),
    cue("illegal", S.BAD_REQUEST),
    cue("refused", S.NETWORK),
    cue("reset", S.NETWORK),
    cue("unreachable", S.NETWORK),
    cue("resolve", S.NETWORK),
    cue("closed", S.NETWORK),
    cue("memory", S.OUT_OF_MEMORY),
    cue("timeout", S.TIMEOUT),
)


# The kinds of thing an error may say it could not find, or found invalid — the words a sentence
# may repeat ("no queue called …"). An error's own words reach a sentence only from a list
# like this one, or when the caller's own request holds them.
THINGS = frozenset(
    {"queue", "topic", "partition", "table", "database", "collection", "index", "bucket"}
    | {"object", "key", "file", "path", "directory", "folder", "model", "package", "version"}
    | {"module", "repository", "repo", "branch", "tag", "image", "manifest", "container"}
    | {"channel", "user", "account", "project", "organization", "team", "workspace", "page"}
    | {"record", "document", "item", "field", "column", "resource", "region", "zone"}
    | {"time zone", "timezone", "city", "place", "location", "address", "mailbox", "recipient"}
    | {"domain", "host", "service", "endpoint", "namespace", "schema", "function", "job"}
    | {"workflow", "pipeline", "secret", "certificate", "message", "thread", "guild", "role"}
    | {"database id", "record id", "id", "name", "value", "parameter", "argument", "option"}
    | {"currency", "language", "locale", "country", "unit", "format", "date", "symbol"}
)
