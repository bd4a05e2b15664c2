"""The words a person reads: the operation kept as written, and a sentence they can act on."""

from __future__ import annotations

import pytest

from errors import error_to_action, plainness_problems
from errors._wording import MAX_SUBJECT, subject_of

KEPT = [
    "Asking Claude 3.5 Sonnet for a summary",
    "Posting the deploy summary to #releases",
    "Sending a chat message using GPT-4",
    "Installing @types/node 20.11.5",
    "Notifying @channel_news about the outage",
    "Installing googlesearch-python 2020.0.2",
    "Fetching the weather from Open-Meteo via the backup route",
]


@pytest.mark.parametrize("operation", KEPT)
def test_the_operation_is_kept_as_written(operation: str) -> None:
    """Names, versions, #channels and @scopes survive, and so does the word that led to them."""
    assert subject_of(operation) == operation
    result = error_to_action("503 Service Unavailable", operation)
    assert result.user_message.startswith(operation)
    assert plainness_problems(result.user_message) == []


@pytest.mark.parametrize(
    ("operation", "subject"),
    [
        ("Fetching billing data from billing_api", "Fetching billing data"),
        ("Reading the report via https://example.test/r/1", "Reading the report"),
        ("Saving the notes to /var/tmp/notes.txt", "Saving the notes"),
        ("Calling the API with key=[redacted]", "Calling the API"),
    ],
)
def test_technical_words_go_with_the_word_that_led_to_them(operation: str, subject: str) -> None:
    """A URL, path, identifier or secret is dropped with its "from"/"via"/"to": nothing dangles."""
    assert subject_of(operation) == subject


def test_a_long_operation_is_cut_at_a_word_and_never_on_a_connector() -> None:
    """Shortened at a word boundary, with no dangling "for", "to" or "the" at the end."""
    operation = (
        "Loading the weather history for the last thirty days across every station for the "
        "northern region"
    )
    subject = subject_of(operation)
    assert len(subject) <= MAX_SUBJECT
    assert operation.startswith(subject)
    assert operation[len(subject)] == " "  # cut between words
    assert subject.split()[-1] not in {"for", "the", "to", "across", "every", "of"}


def test_a_cut_never_leaves_a_sentence_that_reads_wrong() -> None:
    """The issue's case: a cut operation does not end on "for" before the sentence goes on."""
    operation = "Fetching the weather history for " + "Saint-Rémy-de-Provence " * 4
    message = error_to_action("ReadTimeout", operation).user_message
    assert " for took" not in message
    assert " for couldn't" not in message


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ("'city' is a required property", ["city"]),
        (
            "1 validation error for WeatherQuery\ncity\n  Field required [type=missing, "
            "input_value={}, input_type=dict]",
            ["city"],
        ),
        ("None is not of type 'string'\n\nOn instance['units']:\n    None", ["units"]),
    ],
)
def test_a_missing_or_wrong_field_is_named(error: str, words: list[str]) -> None:
    """A validation error's sentence names the field to fix."""
    result = error_to_action(error, "Fetching the forecast")
    assert result.action.value == "fix_input"
    for word in words:
        assert word in result.user_message
    assert plainness_problems(result.user_message) == []


@pytest.mark.parametrize(
    ("error", "error_type", "words"),
    [
        ("prompt is too long: 208656 tokens > 200000 maximum", "context_too_long", ["shorten"]),
        (
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens.",
            "context_too_long",
            ["new conversation"],
        ),
        ("A pull request already exists for octo:feature.", "already_exists", ["already"]),
        ("[Errno 28] No space left on device", "disk_full", ["disk", "space"]),
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
            "tls_certificate",
            ["certificate"],
        ),
        ('{"error": {"code": "card_declined"}}', "payment_declined", ["card"]),
        ("Forbidden: bot was blocked by the user", "recipient_unavailable", ["blocked"]),
    ],
)
def test_each_kind_says_what_a_person_can_do(error: str, error_type: str, words: list[str]) -> None:
    """The sentence names the thing to act on: shorten, it exists, the disk, the certificate."""
    result = error_to_action(error, "Sending the request")
    assert result.error_type == error_type
    for word in words:
        assert word in result.user_message
    assert plainness_problems(result.user_message) == []


def test_a_decline_is_not_a_spent_quota() -> None:
    """A card decline is the payer's to fix, and its note invents no status."""
    result = error_to_action(
        '{"error": {"type": "card_error", "code": "card_declined", "decline_code": '
        '"insufficient_funds"}}',
        "Charging the customer",
    )
    assert (result.error_type, result.action.value) == ("payment_declined", "fix_input")
    assert "429" not in result.developer_note
    assert "402" not in result.developer_note
