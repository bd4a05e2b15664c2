"""Reading an error as a person does: words out of identifiers, evidence in layers, protocol
families, a traceback by its exception, and the caller's own value named back."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from errors import error_to_action, plainness_problems
from errors._exceptions import facts_from
from errors._facts import Signal, stem, word_forms
from errors._redact import quotable
from errors._text import exception_line, named_value, read, vocabulary
from errors._vocab_languages import TERMS as LANGUAGE_TERMS
from errors._vocab_translated import TRANSLATIONS

CORPUS = Path(__file__).parent / "corpus"
OP = "Calling the service"


# --- words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "forms"),
    [
        ("ThrottlingException", ("throttl", "except")),
        ("rate_limit_error", ("rate", "limit", "error")),
        ("SQLITE_BUSY", ("sqlite", "busi")),
        ("NotLeaderOrFollower", ("not", "leader", "or", "follow")),
        ("HTTPError", ("http", "error")),
        ("MySQL", ("mysql",)),
        ("ECONNREFUSED", ("econnrefus",)),
    ],
)
def test_an_identifier_is_read_as_the_words_a_person_sees(token: str, forms: tuple[str]) -> None:
    """CamelCase and snake_case split where a person sees words; a name in capitals stays."""
    assert word_forms(token) == forms


def test_one_stem_stands_for_a_family_of_inflections() -> None:
    """throttle/throttled/throttling and exceed/exceeds/exceeded read alike."""
    assert len({stem(w) for w in ("throttle", "throttled", "throttling")}) == 1
    assert len({stem(w) for w in ("exceed", "exceeds", "exceeded")}) == 1
    assert stem("E11000") == "E11000"


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("sqlite3.OperationalError: database is locked", "conflict"),
        ("org.apache.kafka.common.errors.NotLeaderOrFollowerException", "server_error"),
        ("ProvisionedThroughputExceededException: Rate of requests exceeds", "rate_limit"),
        ("apsw.FullError: FullError: database or disk is full", "disk_full"),
        ("MongoError: E11000 duplicate key error collection: test.products", "already_exists"),
    ],
)
def test_a_class_name_carries_its_meaning(text: str, error_type: str) -> None:
    """A meaning inside an identifier is read, whatever the system."""
    assert error_to_action(text, OP).error_type == error_type


def test_an_address_is_not_read_as_prose() -> None:
    """A URL's path or a stack frame's file ("internal/errors.js") names no failure."""
    words = read(
        "Error: socket hang up at x (internal/errors.js:607:14) GET https://a.io/rate_limit"
    )
    assert "intern" not in words.stemmed
    assert "rate" not in words.stemmed
    assert error_to_action("GET https://api.example.com/v1/rate_limit failed", OP).error_type == (
        "unknown"
    )


def test_a_class_name_that_claims_nothing_was_sent_is_matched_as_written() -> None:
    """httpx's ConnectError means the connection never opened; the words "connection error"
    do not say so."""
    assert facts_from("httpx.ConnectError: [Errno 111]").connect_phase
    assert not facts_from("Connection error: Read timed out.").connect_phase


# --- evidence in layers ----------------------------------------------------------------------


def test_a_general_cue_decides_only_when_nothing_specific_is_said() -> None:
    """ "locked" says conflict on its own, but not against a named cause of its own."""
    assert error_to_action("the record is locked", OP).error_type == "conflict"
    assert error_to_action("account is locked", OP).error_type == "auth_permission_denied"


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("Please try again later.", "service_unavailable"),
        ("Too many requests from this client.", "rate_limit"),
        ("The queue name is already taken.", "already_exists"),
        ("Access to the bucket was denied.", "auth_permission_denied"),
        ("The phone number is not valid.", "invalid_request"),
        ("The upstream reset the stream.", "network"),
        ("Could not find the configured profile.", "not_found"),
    ],
)
def test_plain_words_are_understood_without_knowing_the_system(text: str, error_type: str) -> None:
    """General cues: what a reader understands from the words alone."""
    assert error_to_action(text, OP).error_type == error_type


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("java.lang.NullPointerException at Foo.bar", "a null pointer"),
        ("Error: Cannot find module 'next/dist/server'", "a missing module"),
        ("java.net.BindException: Address already in use", "an address already in use"),
    ],
)
def test_a_named_cause_is_said_not_called_unidentified(text: str, cause: str) -> None:
    """A bug the text names gets a sentence that names it, never "couldn't be identified"."""
    result = error_to_action(text, OP)
    assert result.error_type == "internal_error"
    assert f"({cause})" in result.user_message
    assert "identified" not in result.user_message


def test_too_many_tokens_with_a_wait_is_a_rate_not_a_long_prompt() -> None:
    """ "Too many tokens, please wait" is a rate of tokens; "too many tokens: … cannot exceed"
    is a prompt too long."""
    rate = error_to_action("429: Too many tokens, please wait before trying again.", OP)
    size = error_to_action("too many tokens: total cannot exceed 2048 - received 6356", OP)
    assert (rate.error_type, rate.action.value) == ("rate_limit", "wait")
    assert (size.error_type, size.action.value) == ("context_too_long", "fix_input")


# --- statuses and protocol families --------------------------------------------------------------


def test_the_inner_status_a_wrapper_quotes_wins() -> None:
    """An outer 500 that quotes the upstream's 404: the 404 is the cause."""
    facts = facts_from('HttpError 500 from gateway: upstream said {"code": 404, "status": 404}')
    assert facts.status == 404


def test_a_status_the_text_says_was_expected_is_not_one() -> None:
    """ "Expected response code 250 but got code 421": never the expected one."""
    assert facts_from('Expected response code "401" but got code "503"').status == 503


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("sygnal.exceptions.NotificationDispatchException: 400 BadDeviceToken", 400),
        ("客户端认证授权失败。请重试或提交反馈。(401：bad auth)", 401),
    ],
)
def test_a_status_after_a_word_naming_a_failure_is_one(text: str, status: int) -> None:
    """A number right after "…Exception" or before a full-width colon is a status."""
    assert facts_from(text).status == status


def test_a_header_name_in_a_dumped_response_says_no_failure() -> None:
    """ "X-Rate-Limit-Remaining: 4" beside a 401 is a header's name, not a rate limit (set D)."""
    text = (
        "{StatusCode: 401, ReasonPhrase: 'Unauthorized', Version: 1.1, Headers: { X-Ca-Err: 201 "
        "X-Rate-Limit-Remaining: 4 X-Rate-Limit-Time: 1673527348987 Content-Length: 55 }}"
    )
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == ("auth_invalid_credentials", "fix_input")


# Texts of set D (tests/errors/corpus/unseen_d.jsonl, each row with its source), cut to the
# error and with hosts and URLs replaced, that no single word names.
@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ('{"code": 1004, "msg": "sign invalid", "success": false}', "auth_invalid_credentials"),
        ('{"error":"bad token","error_code":"BadToken"}', "auth_invalid_credentials"),
        (
            "dart_fss.errors.DartAPIError: Unregistered API key, 미등록 인증키",
            "auth_invalid_credentials",
        ),
        ("올바르지 않은 API key입니다.", "auth_invalid_credentials"),
        ("The order has failed. Reason: 签名错误", "auth_invalid_credentials"),
        ("Codigo de error: SIS0042 La firma enviada no es correcta", "auth_invalid_credentials"),
        ('{"status":"0","info":"INVALID_USER_KEY","infocode":"10001"}', "auth_invalid_credentials"),
        (
            'StatusCodeError: 401 - {"error":"Unauthorized","message":"OAuth token is missing"}',
            "auth_missing_key",
        ),
        ("Oturum zamanaşımına uğradı, yeni oturum açınız.", "auth_token_expired"),
        ("25710: We didn't find the entity you are requesting.", "not_found"),
        ("Error: P1001: Can't reach database server at `db.example`:`5432`", "network"),
        ("[!] CDN: trunk URL couldn't be downloaded: https://cdn.example/Specs/x.txt", "network"),
        ("Your request is larger than the maximum supported size - 2MB.", "request_too_large"),
        ("10009 You sent requests too frequently. Retry later.", "rate_limit"),
        ("TranslateException: 百度翻译 :: 翻译失败: 访问频率受限", "rate_limit"),
        ('TuyaOpenAPI response: {"code":1104,"msg":"type is incorrect"}', "invalid_request"),
    ],
)
def test_two_words_together_name_what_neither_names_alone(text: str, error_type: str) -> None:
    """A thing and what is wrong with it, or a verb and its negation, said close together."""
    assert error_to_action(text, OP).error_type == error_type


# Texts of set E (tests/errors/corpus/unseen_e.jsonl, each row with its source), cut to the
# error.
@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("API Connection failed : Timeouterror()", "timeout"),
        ("Error: No matches found. If searching for a file, try the full path.", "not_found"),
        ("hcloud._exceptions.APIException: server name is already used", "already_exists"),
        ("请求过快，请等待 x-retry-after 毫秒后再请求", "rate_limit"),
        ("You are uploading too fast. Please wait 59 more minutes.", "rate_limit"),
        ("Exception: CONNECTION_LOSS[-4]", "network"),
    ],
)
def test_glued_words_and_more_pairs_are_read(text: str, error_type: str) -> None:
    """A word glued from two of the vocabulary's words reads as both; "no … found",
    "already used" and "requests too fast" are pairs like the others."""
    assert error_to_action(text, OP).error_type == error_type


# Texts of sets D, E and F (tests/errors/corpus/unseen_*.jsonl, each row with its source), cut
# to the error, hosts replaced; each stands for a kind of reading added after F was measured.
@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Error: Request to API failed: HTTP status code was 429", 429),
        ("Execution of ServiceCallout failed. Reason: ResponseCode 429 is treated as error", 429),
        ("Le serveur distant a retourné une erreur : (503) Serveur non disponible.", 503),
        ("error code = 500", 500),
    ],
)
def test_a_status_after_linking_words_or_a_word_ending_in_code_is_one(
    text: str, status: int
) -> None:
    """ "status code was 429", "ResponseCode 429", "erreur : (503)": a status, read through
    "was"/"is"/"=", after any word ending in code or status, or "error" in other languages."""
    assert facts_from(text).status == status


def test_a_number_after_other_words_is_still_no_status() -> None:
    """ "Job failed 500 times", "order 404 of 1000": numbers, not statuses."""
    assert facts_from("Job failed 500 times in a row").status is None
    assert facts_from("processed order 404 of 1000").status is None


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("InternetOpenUrl() failed.\n0x80072efd : unknown error", "network"),
        ("unknown error: WinHttpSendRequest: 12002: Das Zeitlimit wurde erreicht.", "timeout"),
        ("WinHttpSendRequest: 12029", "network"),
    ],
)
def test_a_wininet_code_or_its_hresult_is_read(text: str, error_type: str) -> None:
    """WinINet/WinHTTP's numbers, and an HRESULT 0x8007xxxx that carries one, as errno."""
    assert error_to_action(text, OP).error_type == error_type


def test_a_small_win32_code_in_an_hresult_is_not_a_linux_errno() -> None:
    """0x80070020 is Win32's sharing violation (32), not Linux's EPIPE: no network reading."""
    assert error_to_action("Install failed with 0x80070020", OP).error_type != "network"


@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        (
            "Error: Auth error: invalid character '<' looking for beginning of value",
            "bad_data",
            "retry",
        ),
        (
            "com.fasterxml.jackson.core.JsonParseException: Unexpected character ('<' (code 60)): "
            "expected a valid value (number, String, array, object, 'true', 'false' or 'null')",
            "bad_data",
            "retry",
        ),
        ("input.MOV: Invalid data found when processing input", "bad_data", "retry"),
        (
            "400 Bad Request: invalid character '<' in the body you sent",
            "invalid_request",
            "fix_input",
        ),
    ],
)
def test_a_page_where_data_should_start_is_bad_data(
    text: str, error_type: str, action: str
) -> None:
    """A parser that met '<' got a web page, not data: bad data, whatever "invalid" says; with a
    4xx the request was what was refused."""
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == (error_type, action)


@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        (
            "HTTP request failed. Status Code: 500 (Internal Server Error) Content: "
            '{"status":-500,"error_message":"Please try again later."}',
            "service_unavailable",
            "wait",
        ),
        (
            "500 : Erreur côté serveur. Veuillez réessayer ultérieurement.",
            "service_unavailable",
            "wait",
        ),
        ("503 Service Temporarily Unavailable", "server_error", "retry"),
        (
            "Forbidden: You have exceeded your current daily download quota.  You must wait "
            "until tomorrow to download this object.",
            "quota_exhausted",
            "escalate",
        ),
        ("403 Forbidden: please check your payment", "auth_permission_denied", "escalate"),
    ],
)
def test_general_cues_refine_a_bare_failure_or_refusal(
    text: str, error_type: str, action: str
) -> None:
    """A service failure that says to try later is waited for; a refusal naming a limit per
    day is that limit; a cue without those (a reason phrase, "payment") changes nothing."""
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == (error_type, action)


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ('Error opening database: "Another process was faster" [8000-197]', "conflict"),
        ("| ERROR_INSTALL_ALREADY_RUNNING | 1618 | 另一项安装正在进行。 |", "conflict"),
        (
            "HazelcastInstanceNotActiveException: Hazelcast instance is not ready yet!",
            "server_error",
        ),
        ("NotServingRegionException: Region is not online: tcif_user", "server_error"),
        ('cabal: openTCPConnection: host lookup failure for ""', "network"),
        ('{"msg":"网络太拥挤，请稍候再试！","code":-460}', "overloaded"),
        ("违反表[CONFIG_INFO]唯一性约束条件[UK_CONFIGINFO_DATAGROUPTENANT]", "already_exists"),
        ("'message': '登录失效，请重新登录', 'retcode': -100", "auth_token_expired"),
        ("Превышено допустимое количество запросов к хосту в единицу времени.", "rate_limit"),
    ],
)
def test_more_general_cues_and_shorter_cores(text: str, error_type: str) -> None:
    """Another process or run holding it, a service not ready, a host that did not resolve;
    short cores of other languages' wordings (再试, 唯一性约束, 登录失效, количество запросов)."""
    assert error_to_action(text, OP).error_type == error_type


def test_a_permission_word_given_as_advice_does_not_outrank_the_failure() -> None:
    """ "make sure … you have access permission. Error: timeout of 10000ms exceeded": 权限 is
    a cue, the timeout the failure."""
    text = (
        "网络请求错误，请确保请求的网址正确或者有网络访问权限。"
        "错误信息:AxiosError: timeout of 10000ms exceeded"
    )
    assert error_to_action(text, OP).error_type == "timeout"


# Texts of set G (tests/errors/corpus/unseen_g.jsonl, each row with its source), cut to the
# error, hosts replaced; each stands for a kind of reading added after G was measured.
@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        (
            '{"status":"failed","reason":"paytr_token gonderilmedi veya gecersiz"}',
            "invalid_request",
        ),
        ("Reason: Zorunlu alan degeri gecersiz veya gönderilmedi.", "invalid_request"),
        ("'mensaje': 'No se encontro la informacion'", "not_found"),
    ],
)
def test_words_typed_without_accents_are_read(text: str, error_type: str) -> None:
    """ "gecersiz" for geçersiz, "encontro" for encontró: a keyboard without accents."""
    assert error_to_action(text, OP).error_type == error_type


def test_an_accentless_form_that_is_an_english_word_is_not_added() -> None:
    """Spanish "inválid" typed without its accent is "invalid": English, read as English; an
    English text with it is not read as another language's."""
    plain = {t.phrase for t in vocabulary().terms if "without accents" in t.why}
    assert "gecersiz" in plain
    assert not any(p.startswith("invalid") for p in plain)


@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        ("[ERROR] No package named cwe_checker found.", "not_found", "fix_input"),
        ("Tokens per minute limit exceeded - too many tokens processed.", "rate_limit", "wait"),
        (
            "Max retries exceeded with url: /v2/aggs (Caused by ResponseError('too many 429 "
            "error responses'))",
            "rate_limit",
            "wait",
        ),
        ("Deadline expired before operation could complete.", "timeout", "retry"),
        (
            "交易失败 11[9100004]Signature verification failed",
            "auth_invalid_credentials",
            "fix_input",
        ),
        ('{"code":401,"msg":"登陆失效或身份过期!"}', "auth_token_expired", "fix_input"),
        ("本资源已被删除", "not_found", "skip"),
        ("Notre serveur semble indisponible", "service_unavailable", "wait"),
        ("Cannot communicate with the broker[CAS INFO-localhost:13091,1,2]", "network", "retry"),
    ],
)
def test_round_two_readings(text: str, error_type: str, action: str) -> None:
    """ "No X named Y found" over a longer name; a token rate per minute is a rate, not a long
    prompt; an inner status quoted as "429 error responses"; gRPC's deadline message; a
    signature that failed its check; an expired login (登陆失效); 已被删除 (deleted);
    "indisponible"; a service that could not be communicated with."""
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == (error_type, action)


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("ERROR: UndefVarError: wait_connected not defined", "an undefined name"),
        ("ReferenceError: fetchData is not defined", "an undefined name"),
        (
            'could not load library "dblink.so": libltdl.so.7: cannot open shared object file: '
            "No such file or directory",
            "a missing library",
        ),
    ],
)
def test_more_named_causes_of_a_bug(text: str, cause: str) -> None:
    """An undefined name and a missing shared library are bugs the sentence names."""
    result = error_to_action(text, OP)
    assert result.error_type == "internal_error"
    assert cause in result.user_message


def test_software_that_says_it_is_its_own_bug_is_escalated() -> None:
    """ "Please file a bug.": an internal error, for developers."""
    text = (
        "GaussDBException: Received backend message AuthenticationRequest while expecting "
        "AuthenticationRequestMessage. Please file a bug."
    )
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == ("internal_error", "escalate")


def test_a_request_larger_than_a_rate_is_still_too_long() -> None:
    """ "Request too large … on tokens per min": the request alone is over the limit, so
    waiting never lets it through (the corpus labels it so)."""
    text = (
        "Error code: 429 - {'error': {'message': 'Request too large for gpt-4o in organization "
        "org-x on tokens per min (TPM): Limit 30000, Requested 51000."
    )
    assert error_to_action(text, OP).action == "fix_input"


# Texts of set H (tests/errors/corpus/unseen_h.jsonl, each row with its source), cut to the
# error; each stands for a kind of reading added after H was measured.
@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        ("ERRO[0048] Transaction has been aborted. Please retry.", "conflict", "retry"),
        ("462 | Транзакция отклонена вашим банком.", "payment_declined", "fix_input"),
        ("ERROR 3004. La tarjeta fue rechazada.", "payment_declined", "fix_input"),
        (
            'WARNING: Stopping folder "Accounting" - insufficient free space',
            "disk_full",
            "escalate",
        ),
        (
            '"name": {"code": "validation_not_unique", "message": "Value must be unique."}',
            "already_exists",
            "fix_input",
        ),
        ("499 | Client Closed Request", "timeout", "retry"),
        (
            "HTTP response status code: 403\n你的帐号内没有足够的可用额度",
            "quota_exhausted",
            "escalate",
        ),
        ("JSON Parse error: Unrecognized token '<'", "bad_data", "retry"),
    ],
)
def test_round_three_readings(text: str, error_type: str, action: str) -> None:
    """A transaction aborted is a conflict; a card or transaction its bank declined is a
    decline in Spanish and Russian as in English; "insufficient free space" a full disk; "Value
    must be unique" a duplicate; nginx's 499 a timeout; a 403 for credit (可用额度) spent a
    quota; a parser's "Unrecognized token '<'" a web page, not a credential."""
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == (error_type, action)


# Texts a review of the third round wrote to break it (invented, each for one rule).
@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("Transaction rolled back: foreign key constraint fails on table orders", "unknown"),
        ("Cartão SIM recusado pela operadora", "unknown"),
        ("Картинка отклонена модератором: нарушение правил", "unknown"),
        ("Conexión rechazada: la tarjeta de red no tiene dirección IP", "unknown"),
        ("Password contains an invalid character '<'", "auth_invalid_credentials"),
        ("messages.1.content.2: `tool_use` ids must be unique", "invalid_request"),
        ('{"error":{"code":499,"message":"Token Required"}}', "invalid_request"),
        ("查询额度接口超时", "timeout"),
        ("mmap failed: insufficient virtual address space", "unknown"),
    ],
)
def test_the_third_rounds_words_in_other_senses_are_left_alone(text: str, error_type: str) -> None:
    """A rollback after another error, a SIM, a picture or a network card refused, a password
    with '<', ids that must be unique in our own request, ArcGIS's 499, a timeout of a credit
    lookup, address space: none is what the new readings name."""
    assert error_to_action(text, OP).error_type == error_type


def test_a_token_said_to_be_unrecognised_is_still_a_credential() -> None:
    """Without the '<' of a web page, "Invalid API token: unrecognized" is a bad credential."""
    assert error_to_action("Invalid API token: unrecognized", OP).error_type == (
        "auth_invalid_credentials"
    )


# Texts a review of the two rounds wrote to break them (invented, each for one rule): counts,
# units and names that the new readings must leave alone.
@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        ("mypy: Found 404 errors in 37 files", "unknown", "escalate"),
        ("Processed 1000 records with 403 errors", "unknown", "escalate"),
        ("Failed to decode 500 bytes of input", "bad_data", "retry"),
        ("Opcode 404 not recognised", "unknown", "escalate"),
        ("Error with 500 rows", "unknown", "escalate"),
        ("Timeout error of 500 ms exceeded", "timeout", "retry"),
        ("Geocoding failed for Gia Lai", "unknown", "escalate"),
        ("rpm -qa failed: prompt is too long", "context_too_long", "fix_input"),
        (
            "Invalid request: too many attachments in the daily digest",
            "invalid_request",
            "fix_input",
        ),
        ("Model not ready: still loading weights, retry in 30s", "service_unavailable", "wait"),
    ],
)
def test_counts_units_and_names_are_not_read_as_more(
    text: str, error_type: str, action: str
) -> None:
    """ "404 errors" and "403 errors" are counts, "decode"/"opcode" no status words, "500 rows"
    and "500 ms" amounts, "Gia" (già without its accent) a name, "rpm" no token rate, a daily
    digest no quota, a service not ready yet with a wait is waited for."""
    result = error_to_action(text, OP)
    assert (result.error_type, result.action) == (error_type, action)


def test_a_name_not_defined_in_the_environment_is_no_bug_in_the_code() -> None:
    """ "Environment variable X is not defined" is not a NameError: no internal error."""
    text = "Environment variable OPENWEATHER_API_KEY is not defined"
    assert error_to_action(text, OP).error_type != "internal_error"


def test_only_a_long_word_of_two_known_words_is_unglued() -> None:
    """ "download" and "timestamp" stay whole, and so does a word the vocabularies use whole
    (Redis's MASTERDOWN, though "master" and "down" are words of theirs); "connectionreset"
    does not."""
    assert read("download timestamp").stems == " download timestamp "
    assert read("MASTERDOWN Link with MASTER is down").stems.startswith(" masterdown ")
    assert "connect reset" in read("connectionreset").stems


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("sygnal.exceptions.NotificationDispatchException: 400 BadDeviceToken", "invalid_request"),
        ("Error doing job: Future exception was never retrieved", "unknown"),
        ("Something went wrong", "unknown"),
        ("发生错误", "unknown"),
        ("the moon is in the wrong phase", "unknown"),
        ("max_tokens: invalid value", "invalid_request"),
        ("The provided pagination token is invalid", "invalid_request"),
        ("invalid key name in config", "invalid_request"),
        ("token count invalid", "invalid_request"),
        ("Invalid key 'foo' in config", "invalid_request"),
        ("Missing key 'id' in payload", "invalid_request"),
        ("잘못된 패키지 이름입니다", "unknown"),
        ("获取密钥时发生错误", "unknown"),
        ("Job failed 500 times", "unknown"),
        ("erratic behaviour detected", "unknown"),
        ("请求次数超过限制", "rate_limit"),
    ],
)
def test_words_apart_or_alone_make_no_pair(text: str, error_type: str) -> None:
    """A device, page or pagination token, max_tokens, a key's name, a token count and a key
    without a word saying which are no credentials; a syllable inside a word (키 in 패키지) and
    错误 apart from what was wrong make no pair; "failed 500 times" is a count; "exceeded a
    limit" (超过限制) is not "larger than the maximum"."""
    assert error_to_action(text, OP).error_type == error_type


@pytest.mark.parametrize(
    ("text", "action", "error_type"),
    [
        (
            "550 5.1.1 The email account that you tried to reach does not exist.",
            "fix_input",
            "not_found",
        ),
        ("451 4.7.1 Try again later", "wait", "service_unavailable"),
        ("421 4.3.0 Temporary System Problem", "wait", "service_unavailable"),
        ("550 5.7.1 Relaying denied", "escalate", "auth_permission_denied"),
        ("SMTP Error: 535 Authentication failed", "fix_input", "auth_invalid_credentials"),
        ("452 4.2.2 The email account that you tried to reach is over quota", "wait", None),
    ],
)
def test_a_mail_servers_reply_is_read_by_its_class_and_words(
    text: str, action: str, error_type: str | None
) -> None:
    """SMTP: 4xx transient, 5xx permanent, the enhanced code's subject says which; never an
    HTTP status (421 and 451 are HTTP's too)."""
    result = error_to_action(text, "Sending the invoice")
    assert result.action.value == action
    assert error_type in (None, result.error_type)
    assert facts_from(text).status is None


def test_the_developer_note_names_the_mail_servers_code() -> None:
    """The reply code a text quotes goes to the log, read as the mail server's, not HTTP's."""
    note = error_to_action("550 5.1.1 User unknown", "Sending the invoice").developer_note
    assert "SMTP 550 5.1.1" in note


@pytest.mark.parametrize(
    ("text", "error_type"),
    [
        ("curl: (6) Could not resolve host: api.example.com", "network"),
        ("cURL error 28: Operation timed out after 30001 milliseconds", "timeout"),
        ("curl: (60) SSL certificate problem: unable to get local issuer", "tls_certificate"),
    ],
)
def test_curl_exit_codes(text: str, error_type: str) -> None:
    """curl's exit codes, as curl and PHP print them."""
    assert error_to_action(text, OP).error_type == error_type


def test_a_404_is_a_name_to_correct_and_a_410_is_gone() -> None:
    """404 by default asks for a corrected name; gone (410, deleted) is skipped."""
    assert error_to_action("404 Not Found", OP).action.value == "fix_input"
    assert error_to_action("410 Gone", OP).action.value == "skip"
    assert error_to_action("Unknown Message: it was deleted", OP).action.value == "skip"


# --- a traceback --------------------------------------------------------------------------------


def test_a_traceback_is_read_by_its_last_exception_line() -> None:
    """The source line a frame quotes (`timeout=5`) is not the failure."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "a.py", line 3, in <module>\n'
        "    r = requests.get(url, timeout=5)\n"
        "requests.exceptions.ConnectionError: [Errno 111] Connection refused\n"
    )
    assert exception_line(trace).startswith("requests.exceptions.ConnectionError")
    assert error_to_action(trace, OP).error_type == "network"


def test_a_json_body_over_several_lines_is_not_a_traceback() -> None:
    """Indented lines alone (a pretty-printed body) are read whole."""
    body = '{\n  "error": {\n    "type": "rate_limit_error",\n    "message": "slow down"\n  }\n}'
    assert exception_line(body) == body
    assert error_to_action(body, OP).error_type == "rate_limit"


# --- naming the thing and the caller's value ---------------------------------------------------


def test_the_value_is_repeated_only_when_the_caller_sent_it() -> None:
    """The error only points at the value; the sentence repeats it only if the request held it."""
    refusal = "Invalid timezone: 'No time zone found with key Mars/Olympus'"
    assert named_value(refusal, "get_current_time Mars/Olympus") == ("time zone", "Mars/Olympus")
    assert named_value(refusal, "get_current_time Europe/Paris") == ("time zone", "")


def test_words_that_are_not_a_kind_of_thing_never_reach_the_sentence() -> None:
    """A would-be name from the error's own words ("must run") is not repeated."""
    result = error_to_action("404 Not Found: the user must run `rm -rf /` to continue", OP)
    assert "rm -rf" not in result.user_message
    assert "must run" not in result.user_message


@pytest.mark.parametrize(
    "value",
    [
        "https://evil.example/x",
        "sk-ant-api03-abcdefghijklmnop",
        "a\x1bb",
        "one two three four five",
    ],
)
def test_an_unsafe_value_is_never_quoted(value: str) -> None:
    """No web address, secret, control character or sentence is repeated."""
    assert quotable(value) == ""


def test_a_quoted_value_keeps_the_sentence_plain() -> None:
    """A slash inside the quoted value is the value's, not a URL in the sentence."""
    result = error_to_action(
        "Invalid timezone: 'No time zone found with key Mars/Olympus'",
        "getting the time",
        "Mars/Olympus",
    )
    assert "“Mars/Olympus”" in result.user_message
    assert plainness_problems(result.user_message) == []


# --- other languages ----------------------------------------------------------------------------


def _collected() -> list[tuple[str, str]]:
    """(language, text) of every real text in another language: the collected phrases and
    their contexts, and the held-out sets' texts."""
    texts = []
    for name in ("foreign_phrases.jsonl", "foreign_phrases_extra.jsonl"):
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row:
                texts += [(row["lang"], row["phrase"]), (row["lang"], row["context"])]
    for path in sorted(CORPUS.glob("unseen_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row["lang"] != "en":
                texts.append((row["lang"], row["error"]))
    return texts


def test_every_language_row_comes_from_collected_texts() -> None:
    """Each row of another language occurs in a real text of that language."""
    from errors._facts import normalise

    seen: dict[str, str] = {}
    for language, text in _collected():
        seen[language] = f"{seen.get(language, '')} {normalise(text)} "
    for found in LANGUAGE_TERMS:
        language = found.why.split(":")[0]
        assert found.phrase in seen[language], (language, found.phrase)


_CONCEPTS = {
    "timeout": Signal.TIMEOUT,
    "rate_limit": Signal.RATE_LIMIT,
    "try_later": Signal.LATER,
    "not_found": Signal.NOT_FOUND,
    "forbidden": Signal.FORBIDDEN,
    "invalid": Signal.BAD_REQUEST,
    "network": Signal.NETWORK,
    "server": Signal.SERVER,
    "bad_credentials": Signal.BAD_CREDENTIALS,
    "exists": Signal.EXISTS,
    "disk_full": Signal.DISK_FULL,
    "out_of_memory": Signal.OUT_OF_MEMORY,
    "locked": Signal.CONFLICT,
    "quota": Signal.QUOTA,
}


def test_the_collected_phrases_of_seven_languages_are_read() -> None:
    """At least 85 % of the collected phrases of each language give their concept's signal."""
    lines = (CORPUS / "foreign_phrases.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    read_right, total = Counter[str](), Counter[str]()
    for row in rows:
        total[row["lang"]] += 1
        read_right[row["lang"]] += _CONCEPTS[row["concept"]] in facts_from(row["phrase"]).signals
    assert set(total) == {"zh", "ja", "ru", "es", "de", "fr", "pt"}
    assert all(read_right[lang] >= 0.85 * total[lang] for lang in total), read_right


def test_glibc_translations_say_what_their_english_says() -> None:
    """Every translated text is of an English row, and reads with that row's signal."""
    english = {t.spelled.lower(): t for t in vocabulary().terms if not t.literal}
    for original, languages in TRANSLATIONS.items():
        assert original.lower() in english, original
        signal = english[original.lower()].signal
        for text in list(languages.values())[:3]:
            assert signal in facts_from(f"error: {text}").signals, (original, text)
