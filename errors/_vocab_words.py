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

from typing import NamedTuple

from errors._facts import Signal as S
from errors._facts import Term, normalise, starts_a_word, stem, term, unaccented

__all__ = [
    "ALONE",
    "BAD",
    "BETWEEN",
    "CREDENTIAL",
    "EXPIRED",
    "GOOD",
    "INCORRECT",
    "KEY",
    "LABEL",
    "MISSING",
    "NEGATION",
    "OF_IT",
    "PAIRS",
    "QUALIFIER",
    "REFINES",
    "SESSION",
    "TERMS",
    "THINGS",
    "Pair",
    "WordClass",
]


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
    term("invalid response", S.BAD_DATA, "an answer that cannot be used"),
    term("json response", S.BAD_DATA, "an answer that is not the JSON it should be"),
    term("looking for beginning of value", S.BAD_DATA, "Go encoding/json: invalid character"),
    term("Deadline expired before operation could complete", S.TIMEOUT, "gRPC DEADLINE_EXCEEDED"),
    term("Client Closed Request", S.TIMEOUT, "nginx's 499: the client gave up waiting"),
    term("signature verification failed", S.BAD_CREDENTIALS, "webhooks, JWT, payment APIs"),
    term("Invalid data found when processing input", S.BAD_DATA, "FFmpeg AVERROR_INVALIDDATA"),
    term(
        "invalid_grant",
        S.EXPIRED_TOKEN,
        "OAuth 2: the grant (a refresh token, a code) is no longer valid",
    ),
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
    term("connection loss", S.NETWORK, "ZooKeeper's ConnectionLoss and others"),
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
    term("restart transaction", S.CONFLICT, "a transaction to retry (CockroachDB, MySQL)"),
    term("retry transaction", S.CONFLICT, "a transaction to retry"),
    term("transaction retry", S.CONFLICT, "a transaction to retry (CockroachDB)"),
    term("transaction aborted", S.CONFLICT, "a transaction aborted by a concurrent one"),
    term("resource busy", S.CONFLICT, "held by another for now (Oracle ORA-00054 and others)"),
    term("queue is full", S.CAPACITY, "a full queue: busy, not broken"),
    term("queue full", S.CAPACITY, "a full queue: busy, not broken"),
    term("buffer is full", S.CAPACITY, "a full buffer: busy, not broken"),
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
    term("expired access token", S.EXPIRED_TOKEN, "the common phrase"),
    term("authentication required", S.MISSING_KEY, "nothing that authenticates was sent"),
    term("authentication is required", S.MISSING_KEY, "nothing that authenticates was sent"),
    term("login required", S.MISSING_KEY, "nothing that authenticates was sent"),
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
    term("too big", S.TOO_LARGE, "the common phrase"),
    term("exceeds the maximum size", S.TOO_LARGE, "the common phrase"),
    # not there
    term("doesn't exist", S.NOT_FOUND, "the common phrase"),
    term("could not be found", S.NOT_FOUND, "the common phrase"),
    term("does not host", S.NOT_FOUND, "a server that does not hold the thing asked for"),
    term("undefined field", S.INVALID_INPUT, "a field the service does not know (Solr)"),
    term("unknown field", S.INVALID_INPUT, "a field the service does not know"),
    term("not subscribed", S.RECIPIENT_GONE, "a recipient who is not (or no longer) subscribed"),
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
    cause("NameError: name", "an undefined name", "Python: name 'x' is not defined"),
    cause("ReferenceError", "an undefined name", "JavaScript: a name not defined"),
    cause("UndefVarError", "an undefined name", "Julia: a name not defined"),
    cause("cannot open shared object file", "a missing library", "the Linux loader (dlopen)"),
    cue("file a bug", S.INTERNAL, "the software itself says it is its bug"),
    cue("please report this", S.INTERNAL, "the software itself says it is its bug"),
    term("panicked at", S.INTERNAL, "Rust: a thread panicked (its cause, if named, decides)"),
    term("goroutine", S.INTERNAL, "Go: a panic's goroutine dump (its cause, if named, decides)"),
    # general cues: they decide only when nothing more specific was found
    cue("lost", S.NETWORK),
    cue("route", S.NETWORK),
    cue("consent", S.FORBIDDEN),
    cue("in use", S.EXISTS),
    cue("in progress", S.CONFLICT),
    cue("isolation", S.CONFLICT),
    cue("serializable", S.CONFLICT),
    cue("read only", S.FORBIDDEN),
    cue("readonly", S.FORBIDDEN),
    cue("missing", S.BAD_REQUEST),
    cue("frequency", S.RATE_LIMIT),
    cue("not good", S.BAD_REQUEST),
    cue("bad format", S.BAD_REQUEST),
    cue("json", S.BAD_DATA),
    cue("empty response", S.BAD_DATA),
    cue("empty reply", S.BAD_DATA),
    cue("disallowed", S.FORBIDDEN),
    cue("no right", S.FORBIDDEN),
    cue("purchase", S.QUOTA),
    cue("no responders", S.LATER),
    cue("leader", S.LATER),
    cue("refresh", S.EXPIRED_TOKEN),
    cue("inactive", S.RECIPIENT_GONE),
    cue("unsubscribed", S.RECIPIENT_GONE),
    cue("while processing your request", S.SERVER),
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
    cue("another process", S.CONFLICT, "something else holds it now: once more, later"),
    cue("already running", S.CONFLICT, "another run holds it now"),
    cue("not ready", S.SERVER, "a service still starting: once more (or the wait it asks for)"),
    cue("not online", S.SERVER, "a part not serving yet: once more (or the wait it asks for)"),
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
    term("value must be unique", S.EXISTS, "a value another record already has"),
    term("validation_not_unique", S.EXISTS, "PocketBase: a value another record already has"),
    term("insufficient free space", S.DISK_FULL, "the common phrase (Syncthing, Windows)"),
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


# --- two words said together ----------------------------------------------------------------
#
# Some failures are named by no single word but by two close together: a thing and what is
# wrong with it ("bad token", "sign invalid", "API key … unregistered", "session expired"), or
# a verb and its negation ("didn't find", "can't reach", "couldn't be downloaded"). Each class
# below is a kind of word; `PAIRS` says which two kinds, said within a few words of each other,
# name which failure. English words are given as they read (`errors._facts.stem`); words of
# other languages as the start of the word (their inflections vary at the end: "некорректн"
# → некорректный, некорректно); words of scripts written without spaces as they are written,
# found anywhere in the text within a few characters of each other. The other languages'
# words are those languages' ordinary words for the same kinds (key, signature, invalid,
# expired, missing, not), met in the real texts of the held-out sets
# (`tests/errors/corpus/unseen_*.jsonl`: "La firma enviada no es correcta", "签名错误",
# "미등록 인증키", "Oturum zamanaşımına uğradı", "Client_secret сформирован некорректно").


class WordClass(NamedTuple):
    """One kind of word: English stems; other languages' words — exact when short, else the
    start of the word —; and phrases of scripts written without spaces."""

    stems: frozenset[str]
    exact: frozenset[str]
    starts: tuple[str, ...]
    unspaced: tuple[str, ...]

    def holds(self, stemmed: str, written: str) -> bool:
        """Whether a word, as read (`stemmed`) or as written (lower case), is of this kind."""
        return stemmed in self.stems or written in self.exact or written.startswith(self.starts)


def words(english: str, other: str = "", unspaced: str = "") -> WordClass:
    """A kind of word from space-separated lists (English words are stemmed here). Other
    languages' words of four letters or more, and Korean words (written with spaces, a
    particle at their end: 토큰이), are the starts of words; shorter ones whole words; each
    also as typed without accents ("geçersiz", "gecersiz")."""
    others = list(dict.fromkeys(form for w in other.split() for form in _forms(w)))
    starts = [w for w in others if len(w) >= 4 or _korean(w)]
    return WordClass(
        frozenset(map(stem, english.split())),
        frozenset(w for w in others if w not in starts),
        tuple(starts),
        tuple(unspaced.split()),
    )


_ENGLISH_WORDS = sorted({w for t in TERMS for w in normalise(t.spelled or t.phrase).split()})


def typed_plain(text: str) -> str | None:
    """`text` as typed without accents, when that differs and is safe to read: not when it
    starts an English word of the vocabulary ("inválid" → "invalid" is read in English texts)
    nor when it is shorter than five letters ("già" → "gia", a name as often as a word)."""
    plain = unaccented(text)
    if plain == text or len(plain) < 5 or starts_a_word(plain, _ENGLISH_WORDS):
        return None
    return plain


def _forms(word: str) -> tuple[str, ...]:
    """A word as written, and as typed without accents (`typed_plain`)."""
    plain = typed_plain(word)
    return (word,) if plain is None else (word, plain)


def _korean(word: str) -> bool:
    """Whether `word` holds a Hangul syllable (가 … 힣)."""
    return any("\uac00" <= c <= "\ud7a3" for c in word)


CREDENTIAL = words(
    "apikey appkey token signature sign secret password passphrase credential credentials",
    # es pt it fr de ru tr pl ko: key, signature, password, token
    "clave firma contraseña chave assinatura senha chiave jeton clé schlüssel signatur"
    " passwort kennwort ключ токен подпис пароль anahtar imza şifre klucz podpis hasło token"
    " 인증키 토큰 서명 비밀번호",
    # zh, ja: key, token, signature, password
    "密钥 秘钥 令牌 签名 密码 凭证 キー トークン 署名 パスワード",
)
# "key" names a credential only after a word that says which ("API key", "user key"): alone
# it is as often a dictionary's or a config file's key ("Invalid key 'foo' in config").
KEY = words("key keys")
QUALIFIER = words(
    "api app access secret private public client user auth license subscription account"
    " developer master signing encryption service"
)
SESSION = words(
    "session", "sesión sessão sessione сесси сеанс oturum sitzung 세션", "会话 セッション 登录 登陆"
)
# What is wrong with a thing. `INCORRECT` may say it alone (the last cue, `ALONE`); the rest
# only of a thing beside them: "wrong", "bad" and 错误 ("error") also say "something went
# wrong" and "内部错误" — 错误 counts only right after what was wrong (签名错误).
_INCORRECT = (
    "incorrect malformed",
    "inválid incorrect errón erróne invalide incorrecte erroné ungültig fehlerhaft неверн"
    " некорректн недействительн неправильн geçersiz hatalı nieprawidłow błędn 올바르지 유효하지"
    " incorret",
    "无效 不正确 非法 校验失败 验证失败 無効 不正 正しくありません",
)
INCORRECT = words(*_INCORRECT)
BAD = words(
    f"invalid wrong bad unregistered mismatch unrecognized unrecognised {_INCORRECT[0]}",
    f"falsch yanlış 잘못된 미등록 {_INCORRECT[1]}",
    f"错误 {_INCORRECT[2]}",
)
# "not valid", "no es correcta", "nicht korrekt": a good word negated is a bad one
GOOD = words(
    "valid correct recognized registered", "válid valid correct korrekt корректн верн действительн"
)
MISSING = words(
    "missing absent without",
    "falta ausente manquant fehlt отсутств eksik yok brak 누락 gönderilmedi",
    "缺少 未提供 缺失",
)
# a size beyond what is taken, a limit reached, a frequency limited
LARGER = words("larger bigger large big", "größer больше plus grande mayor maior", "过大 太大")
MAXIMUM = words("maximum max limit allowed", "maximale максимальн máximo maximum", "最大 上限 限制")
LIMIT = words("limit cap usage", "límite limite grenze лимит limit", "上限 限额 限制")
REACHED = words(
    "reached exceeded hit", "alcanzado atteint erreicht достигнут превышен aşıldı", "超过 达到"
)
FREQUENCY = words(
    "frequency frequently", "frecuencia fréquence häufigkeit частот 빈도", "频率 頻度 频繁"
)
LIMITED = words(
    "limited restricted too", "limitad limité begrenzt ограничен", "受限 限制 过高 过快"
)
EXPIRED = words(
    "expired expiry",
    "expirad caducad vencid expiré abgelaufen истек просрочен scadut wygas zamanaşım 만료",
    "过期 失效 期限切れ süresi",
)
NEGATION = words(
    "not cannot unable fail failure t",
    "no non ne nicht не nie değil 실패",
    "失败 失敗 できません",
)
FIND = words("find locate")
NO = words("no")
# A transaction that lost to another ("Transaction has been aborted. Please retry."); not a
# rollback, which follows any error.
TRANSACTION = words("transaction txn", "transacción transação transaktion транзакц", "事务")
ABORTED = words("aborted abort", "abortad", "中止")
# A payment its bank turned down ("La tarjeta fue rechazada", "Транзакция отклонена"): a
# transaction is one here too (транзакц is also a TRANSACTION word); whole Russian forms of
# "card", not картинка or картридж.
PAYMENT = words(
    "card payment charge",
    "tarjeta cartão carte karte карта карты карту картой платеж платёж pago paiement zahlung"
    " pagamento транзакц",
    "卡 支付 付款",
)
REFUSED = words("declined", "rechazad recusad refusé abgelehnt отклонен отклонён", "拒绝 被拒")
FOUND = words("found matched")
ALREADY = words("already", "déjà bereits уже già 이미", "已经 既に")
TAKEN = words(
    "used taken registered exist exists", "utilisé vergeben используется", "被占用 使用済み"
)
REQUESTS = words("requests request calls uploading uploads", "", "请求 调用 访问")
TOO_FAST = words("fast", "", "过快 太快")
REACH = words("reach connect contact communicate download retrieve fetch")
LOOKUP = words("lookup dns")
PARSE = words("parse decode deserialize unmarshal")
AUTHENTICATE = words("authenticate authorize", "", "认证 授权 鉴权 認証")
# The names of an error's fields, which stand right before what they say ("msg": "sign
# invalid"): a credential's word may follow one.
LABEL = words("msg message error errors reason detail details description info errmsg text")
# Words that, right after a credential's word, make it name something else ("key name",
# "token count", "token limit"): then it is no credential.
OF_IT = words("name names count limit length size type field format column value index usage")
# Words that may stand between the two of a pair: articles, "is", and a credential's own
# qualifiers ("API", "user", "access" in "invalid user access key").
BETWEEN = words(
    "the a an your this that than is was are were be been has have had to of for provided"
    " supplied too given sent api user access auth app client public private secret security"
    " bearer oauth request entered refresh jwt personal service account",
    "않은 않습니다 es est ist является enviada enviado envoyé envoyée gesendet la le les el los"
    " las der die das den il lo un una une ein eine fue foi wurde был была было",
)


class Pair(NamedTuple):
    """Two kinds of word that, said within `reach` words of each other, name `signal`
    (`ordered`: the first kind before the second)."""

    first: WordClass
    second: WordClass
    signal: S
    why: str
    ordered: bool = False
    reach: int = 3
    any_between: bool = False  # any words may stand between ("No matches found")


PAIRS: tuple[Pair, ...] = (
    Pair(CREDENTIAL, BAD, S.BAD_CREDENTIALS, "a key, token or signature said to be wrong"),
    Pair(CREDENTIAL, MISSING, S.MISSING_KEY, "a key or token said to be missing"),
    Pair(CREDENTIAL, EXPIRED, S.EXPIRED_TOKEN, "a key or token said to have expired"),
    Pair(SESSION, EXPIRED, S.EXPIRED_TOKEN, "a session said to have expired"),
    Pair(SESSION, BAD, S.EXPIRED_TOKEN, "a session no longer valid: sign in again"),
    Pair(NEGATION, FIND, S.NOT_FOUND, "something that could not be found", ordered=True),
    Pair(NO, FOUND, S.NOT_FOUND, "no such thing found", ordered=True, reach=6, any_between=True),
    Pair(ALREADY, TAKEN, S.EXISTS, "a name already used", ordered=True),
    Pair(REQUESTS, TOO_FAST, S.RATE_LIMIT, "requests coming too fast", ordered=True),
    Pair(NEGATION, REACH, S.NETWORK, "a service that could not be reached", ordered=True),
    Pair(LOOKUP, NEGATION, S.NETWORK, "a host name that did not resolve ('host lookup failure')"),
    Pair(NEGATION, PARSE, S.BAD_DATA, "an answer that could not be read", ordered=True),
    Pair(NEGATION, AUTHENTICATE, S.BAD_CREDENTIALS, "a caller that could not be verified"),
    Pair(LARGER, MAXIMUM, S.TOO_LARGE, "larger than the most that is taken", ordered=True),
    Pair(TRANSACTION, ABORTED, S.CONFLICT, "a transaction aborted: lost to another", ordered=True),
    Pair(PAYMENT, REFUSED, S.DECLINED, "a card or payment its bank declined", ordered=True),
    Pair(LIMIT, REACHED, S.RATE_LIMIT, "a limit reached (over a day or a month: a quota)"),
    Pair(FREQUENCY, LIMITED, S.RATE_LIMIT, "a frequency limited"),
)
# One kind of word alone, when no pair and no more specific word says more: something in the
# request is wrong ("type is incorrect").
ALONE: tuple[tuple[WordClass, S], ...] = ((INCORRECT, S.BAD_REQUEST),)
# What a pair may add to a bare "invalid" or "malformed": what it was that was wrong.
REFINES = frozenset({S.BAD_CREDENTIALS, S.MISSING_KEY, S.EXPIRED_TOKEN, S.TOO_LARGE})
