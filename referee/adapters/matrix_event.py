"""The shape of what the Matrix bot reads of a room message, checked at the edge.

Any user on the homeserver can send the bot any JSON: a ``m.relates_to`` that is a list, a
``body`` that is a number, a ``formatted_body`` of a megabyte. nio checks little of it, so the
bot reads a message's content only through :func:`message_content`, which validates it with
pydantic and answers None for what is not a well-formed message (the caller logs the event id
and skips it: one event never stops another table).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# A chat line is short; a body beyond this is not a player's message but an attack on the
# reader (the referee's parser handles 10,000 characters well within its budget).
MAX_BODY = 20_000
MAX_FORMATTED = 100_000
# The message types a person's client sends as text the room sees.
TEXT_TYPES = frozenset({"m.text", "m.emote", "m.notice"})
# The event types the bot reads from a room's timeline (besides verification steps).
READ_TYPES = frozenset({"m.room.message", "m.reaction"})


class _Ref(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    event_id: str | None = Field(default=None, max_length=512)


class RelatesTo(BaseModel):
    """``m.relates_to``: an edit (``m.replace``), a thread, a reply (``m.in_reply_to``)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    rel_type: str | None = Field(default=None, max_length=256)
    event_id: str | None = Field(default=None, max_length=512)
    in_reply_to: _Ref | None = Field(default=None, alias="m.in_reply_to")


class MessageContent(BaseModel):
    """The content of an ``m.room.message`` the bot reads."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    msgtype: str = Field(max_length=256)
    body: str = Field(max_length=MAX_BODY)
    format: str | None = Field(default=None, max_length=256)
    formatted_body: str | None = Field(default=None, max_length=MAX_FORMATTED)
    relates_to: RelatesTo | None = Field(default=None, alias="m.relates_to")
    new_content: dict[str, Any] | None = Field(default=None, alias="m.new_content")

    @property
    def is_edit(self) -> bool:
        return self.relates_to is not None and self.relates_to.rel_type == "m.replace"

    @property
    def is_reply(self) -> bool:
        rel = self.relates_to
        return rel is not None and rel.in_reply_to is not None and rel.rel_type != "m.replace"

    @property
    def html(self) -> str | None:
        """The formatted body when it is HTML (the only format a client shows)."""
        if self.format == "org.matrix.custom.html" and self.formatted_body:
            return self.formatted_body
        return None

    def edited(self) -> MessageContent | None:
        """An edit's new content (``m.new_content``), checked the same way; None if absent or
        malformed."""
        if self.new_content is None:
            return None
        return message_content(self.new_content)


def message_content(content: Any) -> MessageContent | None:
    """The validated content of a room message, or None when it is not one the bot reads:
    not an object, a field of the wrong type or size, or a message type that carries no text."""
    if not isinstance(content, dict):
        return None
    try:
        parsed = MessageContent.model_validate(content)
    except ValidationError:
        return None
    return parsed if parsed.msgtype in TEXT_TYPES else None


class _Annotation(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    rel_type: str = Field(max_length=256)
    event_id: str = Field(max_length=512)
    key: str = Field(max_length=64)


class _ReactionContent(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    relates_to: _Annotation = Field(alias="m.relates_to")


def reaction_key(content: Any) -> tuple[str, str] | None:
    """(the event reacted to, the key) of a well-formed ``m.reaction``, else None."""
    if not isinstance(content, dict):
        return None
    try:
        rel = _ReactionContent.model_validate(content).relates_to
    except ValidationError:
        return None
    return (rel.event_id, rel.key) if rel.rel_type == "m.annotation" else None


def strip_reply_fallback(body: str) -> str:
    """A reply's body starts with the quoted original ("> <@a:hs> ..." lines, a blank line)."""
    if not body.startswith("> "):
        return body
    lines = body.split("\n")
    i = 0
    while i < len(lines) and lines[i].startswith(">"):
        i += 1
    if i < len(lines) and lines[i] == "":
        return "\n".join(lines[i + 1:])
    return body
