"""The errors a table event can raise.

Every one is a ``ValueError`` subclass with a plain message that says what was
wrong and what would have been accepted, so any caller (the replay command, the
phone API, the board interpreter) can show it to a person as it is.
"""

from __future__ import annotations


class TableEventError(ValueError):
    """An event was refused; nothing changed."""


class MalformedEvent(TableEventError):
    """The event's form is wrong: a missing or mistyped field, an unknown card or event type."""


class IllegalEvent(TableEventError):
    """The event is well formed but the rules forbid it now.

    The message names the rule that was broken and what would have been legal.
    """


class MatchOver(IllegalEvent):
    """An event arrived after the match was already over."""
