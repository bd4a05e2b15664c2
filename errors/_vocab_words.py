"""Plain words that say what happened, whoever wrote them: the vocabulary of last resort.

These are the phrases many services and libraries share ("rate limit", "timed out", "already
exists", "is a required property"), including the messages of JSON decoders, JSON Schema
(python-jsonschema) and pydantic. A more specific vocabulary wins where both match, because
the rule table looks at specific signals first.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["TERMS"]

_Q = {"billing": True}

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
    term("exceeded your current quota", S.QUOTA, "OpenAI and Gemini", **_Q),
    term("exceeded the quota", S.QUOTA, "the common phrase"),
    term("quota exhausted", S.QUOTA, "the common phrase"),
    term("exceeded quota", S.QUOTA, "Kubernetes ResourceQuota"),
    term("out of quota", S.QUOTA, "the common phrase"),
    term("insufficient quota", S.QUOTA, "the common phrase", **_Q),
    term("usage limit", S.QUOTA, "a plan's usage limit", **_Q),
    term("plan limit", S.QUOTA, "a plan's limit", **_Q),
    term("spending limit", S.QUOTA, "a spending cap", **_Q),
    term("insufficient funds", S.QUOTA, "a balance (a card's is a decline)", **_Q),
    term("insufficient credit", S.QUOTA, "a prepaid balance", **_Q),
    term("insufficient balance", S.QUOTA, "a prepaid balance", **_Q),
    term("plan and billing", S.QUOTA, "billing words", **_Q),
    term("billing details", S.QUOTA, "billing words", **_Q),
    term("upgrade your plan", S.QUOTA, "billing words", **_Q),
    term("upgrade your quota tier", S.QUOTA, "Gemini: billing words", **_Q),
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
    term("Unexpected token", S.BAD_DATA, "JavaScript JSON.parse"),
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
)
