"""The agent's own failures and notes, in one table: what a turn says when no upstream error
describes what happened.

A reply with no text, a call the turn ended before running, a repeated failing call, too many
calls or a repeated id in one reply, a turn out of time or out of rounds, a question the agent
is too busy to start: each has error-to-action's six fields, fixed here, and is logged like
any failure (`ErrorAction.log_fields`). Each user_message is one plain sentence. Below them,
the notes a turn adds to an answer.
"""

from __future__ import annotations

from errors import Action, ErrorAction, duration

__all__ = [
    "ASKED_AGAIN",
    "BROKE_OFF",
    "BUSY",
    "CONTEXT_FULL",
    "CUT_SHORT",
    "DUPLICATE_ID",
    "EMPTY",
    "GAVE_UP",
    "NOT_RUN",
    "NO_ANSWER",
    "OUT_OF_ROUNDS",
    "REFUSED",
    "REPEATED",
    "WRAP_UP",
    "bounded",
    "out_of_time",
    "too_long",
    "too_many",
]

E, F, K, W = Action.ESCALATE, Action.FIX_INPUT, Action.SKIP, Action.WAIT


def _record(error_type: str, action: Action, sentence: str, detail: str, note: str) -> ErrorAction:
    return ErrorAction(
        error_type=error_type,
        user_message=sentence,
        action=action,
        action_detail=detail,
        retryable=action.retries,
        developer_note=note,
    )


GAVE_UP = (
    "I couldn't finish looking that up: the tools kept failing, so I stopped rather than keep "
    "trying. Please try again in a little while."
)
OUT_OF_ROUNDS = (
    "I couldn't finish looking that up: it took more steps than one question may, so I "
    "stopped there. Please ask again, perhaps about fewer things at once."
)
NO_ANSWER = (
    "The model finished without saying anything, so there is no answer; please ask again, "
    "perhaps in other words."
)

# error_type, action (why), sentence, detail, developer note
NOT_RUN = _record(
    "tool_not_run",
    K,  # the turn is over: nothing to retry now, the next question may ask again
    "This call was not run because the turn ended first; ask again if it is still needed.",
    "Answer without this result; the call may be made again in a later turn.",
    "a tool_use left in the turn's last reply was closed without being run",
)
REPEATED = _record(
    "repeated_call",
    F,  # the same input would fail the same way: change it or stop
    "This exact call already failed earlier in this turn, so it was not run again; do not "
    "repeat it — answer with what you have or ask the user.",
    "Do not resend this tool call with the same input; answer from earlier results.",
    "the model repeated a tool call (same tool, same input) that already failed in this turn; "
    "not run",
)
DUPLICATE_ID = _record(
    "duplicate_call_id",
    F,  # the same reply would be refused the same way
    "This call was not run because another call in the same reply had the same id; make it "
    "again on its own if it is still needed.",
    "Do not reuse a tool_use id within one reply; repeat the call with a new id.",
    "a reply repeated a tool_use id; none of those calls was run, the first is kept in the "
    "history with this result and the later ones are dropped",
)
EMPTY = _record(
    "empty_answer",
    E,  # the same request tends to end the same way: the user rephrases
    NO_ANSWER,
    "Do not resend as is; report no answer and let the user ask differently.",
    "the model ended its reply with no text and no tool call; turn not kept",
)
BUSY = _record(
    "busy",
    W,  # capacity frees up as the running questions finish; retryable by the caller, later
    "The agent is busy with other questions right now, so this one was not started; please "
    "try again shortly.",
    "Ask again in a few seconds; nothing was started for this question.",
    "refused by admission control: too many questions in flight and waiting",
)


def too_many(limit: int) -> ErrorAction:
    """A call past the per-reply cap of `limit` calls."""
    return _record(
        "too_many_calls",
        F,  # the same reply would be capped the same way
        f"This call was not run because one reply may run at most {limit} tool calls at "
        "once; ask for fewer at a time, the most important first.",
        f"Split the work: at most {limit} tool calls per reply.",
        f"a reply asked for more than {limit} tool calls; the rest were not run",
    )


def too_long(chars: int, limit: int) -> ErrorAction:
    """A question (or a line typed into the chat) of `chars` characters, past the cap of
    `limit`: refused before anything is sent."""
    return _record(
        "question_too_long",
        F,  # the same text would be refused the same way: shorten it
        f"This is {chars:,} characters long and a question may be at most {limit:,}, so "
        "nothing was sent; please shorten it, or ask about a part of it at a time.",
        f"Send at most {limit} characters in one question.",
        f"a question of {chars} characters, over the {limit}-character cap; nothing was sent",
    )


def out_of_time(limit_s: float) -> ErrorAction:
    """A turn whose deadline ran out before an answer."""
    return _record(
        "turn_timed_out",
        E,  # the same question would take as long: the user decides
        f"This question took longer than its limit of {duration(max(1, round(limit_s)))}, so "
        "it was stopped without an answer; please try again, perhaps asking for less at once.",
        "Do not resend as is; report no answer and let the user ask again.",
        f"the turn's deadline ({limit_s:g} s, AGENT_TURN_TIMEOUT) ran out; turn not kept",
    )


def bounded(calls: int, *, why: str, failed: bool) -> ErrorAction:
    """A turn stopped by its bounds (`why`: the repeat bound or the round limit); its sentence
    says what happened: tools that kept failing (`failed`), or simply no rounds left."""
    return _record(
        "turn_bounded",
        E,  # more rounds would not help: stop and answer with what there is
        GAVE_UP if failed else OUT_OF_ROUNDS,
        "Stop calling tools; ask the model once more with tools off, then answer.",
        f"turn bounded after {calls} model calls: {why}; last call has tools off",
    )


# --- what a turn adds to an answer, or asks the model ------------------------------------------

CUT_SHORT = "(The answer was cut short because it reached the length limit.)"
# After an answer whose stream stopped making progress (or ran out of time) once text was
# shown: what was shown is kept, and this follows it.
BROKE_OFF = "(The answer stopped coming here, so it is cut off; ask again for the rest.)"
# Before a model is asked again after an answer broke off part way (a mid-stream failure).
ASKED_AGAIN = "(The answer above broke off, so the model is being asked again.)"
CONTEXT_FULL = (
    "(The answer was cut short: this conversation no longer fits in the model's memory; start "
    "a new one with /reset.)"
)
WRAP_UP = (
    "You have reached this turn's limit of tool calls. Do not call any more tools: answer now "
    "with what you have."
)
REFUSED = "I can't help with that request."
