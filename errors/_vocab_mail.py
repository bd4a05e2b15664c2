"""Mail servers: the reply codes of SMTP, basic and enhanced.

Sources of truth: RFC 5321 §4.2 (basic reply codes: the first digit says 4 transient — the
same message may go through later — or 5 permanent) and RFC 3463 with the IANA "SMTP
Enhanced Status Codes" registry (class.subject.detail: subject 1 addressing, 2 mailbox, 3 mail
system, 4 network and routing, 5 protocol, 6 content, 7 security and policy). A reply's words
say more than its code and are read first; a code is what is left when they say nothing.
"""

from __future__ import annotations

from errors._facts import Signal as S

__all__ = ["BASIC", "DETAILS", "MAIL_ONLY", "MARKERS", "PERMANENT", "SUBJECTS", "TRANSIENT"]

# What a transient (4xx) and a permanent (5xx) reply mean when nothing more specific is known.
TRANSIENT = S.SERVER  # "the same message may go through later": once more
PERMANENT = S.BAD_REQUEST  # the same message will be refused again: correct something first

# class 5, by subject (the enhanced code's middle number)
SUBJECTS: dict[int, S] = {
    1: S.NOT_FOUND,  # addressing: no such mailbox, domain or address
    2: S.RECIPIENT_GONE,  # the mailbox: disabled, full
    3: S.SERVER,  # the receiving mail system
    4: S.NETWORK,  # network and routing
    5: S.BAD_REQUEST,  # the protocol
    6: S.BAD_REQUEST,  # the content
    7: S.FORBIDDEN,  # security and policy: relaying, sender, authentication
}
# Single enhanced codes whose meaning differs from their subject's.
DETAILS: dict[str, S] = {
    "4.2.2": S.LATER,  # the mailbox is full, for now
    "4.3.1": S.LATER,  # the mail system is full
    "4.3.2": S.LATER,  # the system is not accepting messages
    "4.7.0": S.LATER,  # a temporary security refusal (Gmail: "Try again later")
    "5.1.7": S.FORBIDDEN,  # bad sender mailbox syntax: the sender is refused
    "5.1.8": S.FORBIDDEN,  # bad sender's system address
    "5.2.3": S.TOO_LONG,  # the message is longer than the mailbox takes
    "5.3.4": S.TOO_LONG,  # the message is too big for the system
    "5.7.3": S.BAD_CREDENTIALS,  # authentication unsuccessful (Exchange)
    "5.7.8": S.BAD_CREDENTIALS,  # authentication credentials invalid
    "5.7.9": S.FORBIDDEN,  # the authentication mechanism is too weak
    "5.7.0": S.FORBIDDEN,
}
# Basic codes (RFC 5321 §4.2.2-4.2.3, and RFC 4954 for authentication), without an enhanced
# code: what each says, and whether the first digit alone is all it says.
BASIC: dict[int, S] = {
    421: S.LATER,  # service not available, closing the channel
    450: TRANSIENT,  # mailbox unavailable (busy, greylisted)
    451: TRANSIENT,  # local error in processing
    452: S.LATER,  # insufficient system storage
    454: S.LATER,  # temporary authentication failure
    500: PERMANENT,  # syntax error, command unrecognised
    501: PERMANENT,  # syntax error in parameters
    502: PERMANENT,  # command not implemented
    503: PERMANENT,  # bad sequence of commands
    504: PERMANENT,  # parameter not implemented
    530: S.MISSING_KEY,  # authentication required
    534: S.FORBIDDEN,  # the mechanism is too weak
    535: S.BAD_CREDENTIALS,  # authentication credentials invalid
    550: S.NOT_FOUND,  # mailbox unavailable: not found, no access
    551: S.NOT_FOUND,  # user not local
    552: S.TOO_LONG,  # exceeded storage allocation
    553: S.NOT_FOUND,  # mailbox name not allowed
    554: S.FORBIDDEN,  # transaction failed: refused by policy
}
# Reply codes HTTP hardly sends (421 and 451 are HTTP's too, but rare): leading a text, they are
# a mail server's.
MAIL_ONLY = frozenset({421, 450, 451, 452, 454, 530, 534, 535, 550, 551, 552, 553, 554})
# Words that say a text is a mail server's, so a bare reply code is one (stemmed, as read).
MARKERS = frozenset(
    {"smtp", "esmtp", "lmtp", "mail", "email", "rcpt", "helo", "ehlo", "mailbox", "recipient"}
    | {"sender", "postfix", "exim", "sendmail", "relay", "starttl", "mailer", "mx", "dsn"}
)
