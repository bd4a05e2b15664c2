"""The error bodies of the major APIs: their `type`, `code`, `status` and message words.

Sources of truth, each API's error reference: Anthropic (`error.type`), OpenAI and Azure OpenAI
(`error.type` / `error.code`), Google APIs (`error.status`, `ErrorInfo.reason`), AWS (`__type`
/ `Code`), Stripe (`type`, `code`, `decline_code`), GitHub (`message`), Slack (`ok: false`,
`error`), Telegram (`description`), Discord (`message`), Open-Meteo (`reason`),
OpenWeatherMap (`cod`, `message`) and WeatherAPI.com (`error.message`). Codes are matched as
whole words wherever they appear, so a body quoted inside a log line or an SDK's message
counts as much as a clean one.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["STATUS_OF_TYPE", "TERMS"]

# Anthropic error types → the HTTP status they stand for. A mid-stream `overloaded_error`
# arrives with HTTP 200, so the type decides, not the status.
STATUS_OF_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


TERMS: tuple[Term, ...] = (
    # Anthropic error.type (OpenAI shares invalid_request_error)
    term("invalid_request_error", S.BAD_REQUEST, "Anthropic and OpenAI: a malformed request"),
    term("not_found_error", S.NOT_FOUND, "Anthropic: no such resource"),
    term("authentication_error", S.BAD_CREDENTIALS, "Anthropic: bad API key"),
    term("billing_error", S.QUOTA, "Anthropic: billing", billing=True),
    term("permission_error", S.FORBIDDEN, "Anthropic: key lacks permission"),
    term("rate_limit_error", S.RATE_LIMIT, "Anthropic: rate limit"),
    term(
        "api_error",
        S.SERVER,
        "Anthropic: internal error (as written: not prose's API error)",
        literal=True,
    ),
    term("overloaded_error", S.CAPACITY, "Anthropic: overloaded"),
    term("timeout_error", S.TIMEOUT, "Anthropic: the request timed out"),
    term("prompt is too long", S.TOO_LONG, "Anthropic: prompt over the context window"),
    term("credit balance is too low", S.QUOTA, "Anthropic: prepaid credits spent", billing=True),
    # OpenAI / Azure OpenAI error.code and messages
    term("insufficient_quota", S.QUOTA, "OpenAI: the account's quota is spent", billing=True),
    term("rate_limit_exceeded", S.RATE_LIMIT, "OpenAI: a rate limit"),
    term("context_length_exceeded", S.TOO_LONG, "OpenAI: over the context length"),
    term("maximum context length", S.TOO_LONG, "OpenAI: over the context length"),
    term("ContextWindowExceededError", S.TOO_LONG, "litellm: over the context window"),
    term("invalid_api_key", S.BAD_CREDENTIALS, "OpenAI: bad API key"),
    term("Incorrect API key provided", S.BAD_CREDENTIALS, "OpenAI: bad API key"),
    term("model_not_found", S.NOT_FOUND, "OpenAI: no such model"),
    term("Request too large for", S.TOO_LONG, "OpenAI: one request exceeds the TPM limit"),
    term("exceeded token rate limit", S.RATE_LIMIT, "Azure OpenAI: TPM limit"),
    term("exceeded call rate limit", S.RATE_LIMIT, "Azure OpenAI: RPM limit"),
    term("throttling_error", S.RATE_LIMIT, "litellm: a throttled call"),
    # Google APIs: error.status (gRPC names, see _vocab_grpc) and ErrorInfo.reason
    term("RATE_LIMIT_EXCEEDED", S.RATE_LIMIT, "Google ErrorInfo.reason"),
    term("rateLimitExceeded", S.RATE_LIMIT, "Google JSON API reason"),
    term("userRateLimitExceeded", S.RATE_LIMIT, "Google JSON API reason"),
    term("dailyLimitExceeded", S.QUOTA, "Google JSON API reason: a daily limit"),
    term("quotaExceeded", S.QUOTA, "Google JSON API reason"),
    term("API_KEY_INVALID", S.BAD_CREDENTIALS, "Google ErrorInfo.reason"),
    term("API key not valid", S.BAD_CREDENTIALS, "Google: bad API key"),
    term("Resource has been exhausted", S.RATE_LIMIT, "Google: RESOURCE_EXHAUSTED message"),
    term("Resource exhausted", S.RATE_LIMIT, "Vertex AI 429: shared capacity, try later"),
    # AWS error codes (__type / Code)
    term("ThrottlingException", S.RATE_LIMIT, "AWS: throttled"),
    term("Throttling", S.RATE_LIMIT, "AWS: throttled"),
    term("TooManyRequestsException", S.RATE_LIMIT, "AWS: throttled"),
    term("RequestLimitExceeded", S.RATE_LIMIT, "AWS EC2: throttled"),
    term("ProvisionedThroughputExceededException", S.RATE_LIMIT, "AWS DynamoDB: throttled"),
    term("ProvisionedThroughputExceeded", S.RATE_LIMIT, "AWS DynamoDB: the code, bare"),
    term("SlowDown", S.RATE_LIMIT, "AWS S3: reduce the request rate"),
    term("ExpiredToken", S.EXPIRED_TOKEN, "AWS STS: temporary credentials expired"),
    term("ExpiredTokenException", S.EXPIRED_TOKEN, "AWS: temporary credentials expired"),
    term("RequestExpired", S.EXPIRED_TOKEN, "AWS: the signed request is too old"),
    term("security token included in the request is expired", S.EXPIRED_TOKEN, "AWS STS"),
    term("security token included in the request is invalid", S.BAD_CREDENTIALS, "AWS STS"),
    term("InvalidClientTokenId", S.BAD_CREDENTIALS, "AWS: unknown access key"),
    term("UnrecognizedClientException", S.BAD_CREDENTIALS, "AWS: unknown access key"),
    term("SignatureDoesNotMatch", S.BAD_CREDENTIALS, "AWS: wrong secret key"),
    term("InvalidAccessKeyId", S.BAD_CREDENTIALS, "AWS S3: unknown access key"),
    term("AccessDenied", S.FORBIDDEN, "AWS: a policy denies it"),
    term("AccessDeniedException", S.FORBIDDEN, "AWS: a policy denies it"),
    term("UnauthorizedOperation", S.FORBIDDEN, "AWS EC2: a policy denies it"),
    term("is not authorized to perform", S.FORBIDDEN, "AWS IAM message"),
    term("NoSuchKey", S.NOT_FOUND, "AWS S3"),
    term("NoSuchBucket", S.NOT_FOUND, "AWS S3"),
    term("ResourceNotFoundException", S.NOT_FOUND, "AWS: the named resource does not exist"),
    term("ServiceQuotaExceededException", S.QUOTA, "AWS: a service quota is reached"),
    term("BucketAlreadyExists", S.EXISTS, "AWS S3: the name is taken"),
    term("EntityAlreadyExists", S.EXISTS, "AWS IAM"),
    term("ValidationException", S.INVALID_INPUT, "AWS: the input failed validation"),
    # Stripe
    term("card_declined", S.DECLINED, "Stripe code: the card was declined"),
    term("Your card was declined", S.DECLINED, "Stripe message"),
    term("Your card has insufficient funds", S.DECLINED, "Stripe decline: insufficient_funds"),
    term("insufficient_funds", S.DECLINED, "Stripe decline_code"),
    term("decline_code", S.DECLINED, "Stripe: a card decline carries one"),
    term("declineCode", S.DECLINED, "Stripe mobile SDKs: a card decline"),
    term("expired_card", S.DECLINED, "Stripe decline"),
    term("incorrect_cvc", S.DECLINED, "Stripe decline"),
    term("do_not_honor", S.DECLINED, "Stripe decline_code"),
    term("generic_decline", S.DECLINED, "Stripe decline_code"),
    term("idempotency_error", S.IDEMPOTENCY, "Stripe: key reused with other parameters"),
    term("IdempotencyError", S.IDEMPOTENCY, "Stripe SDKs"),
    term("Keys for idempotent requests", S.IDEMPOTENCY, "Stripe message"),
    term("unique idempotent key", S.IDEMPOTENCY, "Stripe (old) message"),
    term("Idempotent Key", S.IDEMPOTENCY, "Stripe 409: the key is in use by another request"),
    term("idempotency_key_in_use", S.IDEMPOTENCY, "Stripe 409 code"),
    term("resource_missing", S.NOT_FOUND, "Stripe: no such object"),
    term("balance_insufficient", S.QUOTA, "Stripe: the account balance", billing=True),
    term("insufficient funds in your Stripe account", S.QUOTA, "Stripe: balance", billing=True),
    # GitHub
    term("Bad credentials", S.BAD_CREDENTIALS, "GitHub 401"),
    term("API rate limit exceeded", S.RATE_LIMIT, "GitHub primary rate limit"),
    term("secondary rate limit", S.RATE_LIMIT, "GitHub secondary rate limit"),
    term("Resource not accessible by integration", S.FORBIDDEN, "GitHub: token permissions"),
    term("Requires authentication", S.MISSING_KEY, "GitHub 401: no token sent"),
    term("Validation Failed", S.INVALID_INPUT, "GitHub 422"),
    term("already exists", S.EXISTS, "GitHub 422 and many others"),
    # Slack error codes
    term("ratelimited", S.RATE_LIMIT, "Slack"),
    term("rate_limited", S.RATE_LIMIT, "Slack and others"),
    term("channel_not_found", S.NOT_FOUND, "Slack"),
    term("user_not_found", S.NOT_FOUND, "Slack"),
    term("invalid_auth", S.BAD_CREDENTIALS, "Slack"),
    term("not_authed", S.MISSING_KEY, "Slack: no token sent"),
    term("token_revoked", S.EXPIRED_TOKEN, "Slack"),
    term("token_expired", S.EXPIRED_TOKEN, "Slack and OAuth"),
    term("missing_scope", S.FORBIDDEN, "Slack: the app lacks a scope an admin grants"),
    term("MissingScope", S.FORBIDDEN, "slack-ruby-client"),
    term("msg_too_long", S.TOO_LONG, "Slack"),
    # Telegram descriptions
    term("bot was blocked by the user", S.RECIPIENT_GONE, "Telegram 403"),
    term("bot can't initiate conversation with a user", S.RECIPIENT_GONE, "Telegram 403"),
    term("user is deactivated", S.RECIPIENT_GONE, "Telegram 403"),
    term("bot was kicked from", S.RECIPIENT_GONE, "Telegram 403"),
    term("chat not found", S.NOT_FOUND, "Telegram 400"),
    term("message is too long", S.TOO_LONG, "Telegram 400"),
    # Discord messages
    term("Missing Permissions", S.FORBIDDEN, "Discord 50013"),
    term("Missing Access", S.FORBIDDEN, "Discord 50001"),
    term("Cannot send messages to this user", S.RECIPIENT_GONE, "Discord 50007"),
    term("Unknown Channel", S.NOT_FOUND, "Discord 10003"),
    term("You are being rate limited", S.RATE_LIMIT, "Discord 429"),
    # Open-Meteo reasons
    term("API request limit exceeded", S.RATE_LIMIT, "Open-Meteo: the period says which"),
    term("Too many concurrent requests", S.RATE_LIMIT, "Open-Meteo: queue full, a moment"),
    term("Cannot initialize", S.BAD_REQUEST, "Open-Meteo: a parameter value it cannot read"),
    term("from invalid String value", S.BAD_REQUEST, "Open-Meteo: unknown variable or unit"),
    term("must be in range of", S.BAD_REQUEST, "Open-Meteo: latitude/longitude range"),
    term("Invalid timezone", S.BAD_REQUEST, "Open-Meteo"),
    # OpenWeatherMap and WeatherAPI.com
    term("Invalid API key", S.BAD_CREDENTIALS, "OpenWeatherMap 401, and others"),
    term("city not found", S.NOT_FOUND, "OpenWeatherMap 404"),
    term("exceeding of requests limitation", S.RATE_LIMIT, "OpenWeatherMap 429: per minute"),
    term("API key provided is invalid", S.BAD_CREDENTIALS, "WeatherAPI 2006"),
    term("API key is invalid", S.BAD_CREDENTIALS, "app wording of a bad key"),
    term("API key not provided", S.MISSING_KEY, "WeatherAPI 1002"),
    term("API key has been disabled", S.FORBIDDEN, "WeatherAPI 2008: the owner must act"),
    term("does not have access to the resource", S.FORBIDDEN, "WeatherAPI 2009"),
    term("No location found matching", S.NOT_FOUND, "WeatherAPI 1006"),
    term("calls per month quota", S.QUOTA, "WeatherAPI 2007: monthly quota"),
)
