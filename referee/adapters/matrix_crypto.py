"""End-to-end encryption for the Matrix bot: its keys, its cross-signing identity, and the
encrypted messages it cannot read yet.

An encrypted event whose room key has not arrived is never dropped: it is held (with every
later message of its room behind it, so the table sees them in order) until its key comes --
the bot asks the sender's device for it -- or until ``key_wait`` passes or the key is withheld;
then the sender is told, in plain text, that it was not processed. A key arriving after that
only gets the sender a notice: a late message is never applied out of turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import nio  # type: ignore[import-untyped]

from referee.adapters.matrix_delivery import PLAINTEXT
from referee.adapters.matrix_render import name_of, render
from referee.adapters.matrix_state import BotState
from referee.adapters.matrix_xsign import (
    CrossSigningError,
    CrossSigningPending,
    ensure_cross_signing,
)
from referee.lang.catalog import CatalogError
from referee.lang.catalog import text as msg

if TYPE_CHECKING:
    from referee.adapters.matrix_config import MatrixConfig

log = logging.getLogger("referee.matrix")

LATE_KEY_WINDOW = 3600.0  # a key this late still gets the sender a "too late" notice
JST = datetime.timezone(datetime.timedelta(hours=9))


async def share_keys(c: Any) -> None:
    """The end-to-end key traffic nio leaves to its caller after a sync: upload our keys, learn
    and claim the other devices', send the queued to-device messages (room keys among them)."""
    if c.should_upload_keys:
        await c.keys_upload()
    if c.should_query_keys:
        await c.keys_query()
    if c.should_claim_keys:
        await c.keys_claim(c.get_users_for_key_claiming())
    await c.send_to_device_messages()


class Crypto:
    """The bot's end-to-end encryption, a part :class:`referee.adapters.matrix.MatrixBot` owns:
    its cross-signing identity, the room keys it is told are withheld, and the gate every
    message for the bot passes -- readable ones go on to ``readable`` (the bot's handler, in
    room order), the others wait here for their key. It reads the client through a getter: there is
    none before login."""

    def __init__(self, config: MatrixConfig, state: BotState, client: Callable[[], Any],
                 readable: Callable[[str, Any], Awaitable[None]]) -> None:
        self.config = config
        self.server = config.server_name
        self.state = state
        self._client = client
        self._readable = readable
        self.cross_signed = False
        self.master_key: str | None = None  # public master key, once cross-signing is done
        self._withheld: dict[str, str] = {}  # megolm session id -> withheld code
        # event id -> first known index of the key that failed it
        self._undecryptable: dict[str, int] = {}
        self._draining = asyncio.Lock()
        self._xsign_error = ""
        self._xsign_next = 0.0  # monotonic time of the next cross-signing attempt

    @property
    def client(self) -> Any:
        return self._client()

    async def cross_sign(self) -> None:
        """The account's cross-signing identity, and this device signed by it (see
        matrix_xsign); retried after each sync until it is done, never fatal."""
        if self.cross_signed or self.client.olm is None or time.monotonic() < self._xsign_next:
            return
        try:
            r = await ensure_cross_signing(self.client, self.config.user_id,
                                           str(self.client.device_id), self.config.crypto_dir,
                                           self.config.password)
        except Exception as e:  # refused, or the homeserver away: try again after a sync
            refused = isinstance(e, CrossSigningError) and not isinstance(e, CrossSigningPending)
            why = str(e) if refused else repr(e)
            if why != self._xsign_error:  # said once, not after every sync
                log.warning("cross-signing: %s (will retry)", why)
                self._xsign_error = why
            # A refusal is asked again every ten minutes; a homeserver away, after a sync.
            self._xsign_next = time.monotonic() + (600.0 if refused else 0.0)
            return
        self.cross_signed = True
        self.master_key = r.master
        log.info("cross-signing identity %s: %s, device %s", r.master,
                 "uploaded" if r.uploaded else "already on the server",
                 "signed now" if r.signed_device else "already signed")

    async def housekeeping(self) -> None:
        """After each sync: the key traffic nio leaves to its caller, and cross-signing if it
        is not done yet."""
        if self.client.olm is None:
            return
        with contextlib.suppress(Exception):
            await share_keys(self.client)
        await self.cross_sign()

    async def admit(self, room_id: str, ev: Any) -> None:
        """A message of the timeline, in order: readable now, it goes on; an encrypted one that
        cannot be decrypted yet is kept (with every later message of its room behind it) until
        its key comes: never dropped."""
        if self.state.has_held(room_id):
            self.state.hold(room_id, ev.event_id, ev.source, time.time())
            return
        if isinstance(ev, nio.MegolmEvent):
            dec = self._decrypt(room_id, ev)
            if dec is None:
                log.warning("cannot decrypt %s in %s from %s yet (session %s); holding it",
                            ev.event_id, room_id, ev.sender, ev.session_id)
                self.state.hold(room_id, ev.event_id, ev.source, time.time())
                await self._request_key(ev)
                return
            ev = dec
        await self._readable(room_id, ev)

    def _decrypt(self, room_id: str, ev: Any) -> Any:
        """The decrypted event, or None while its room key is missing (checked first: nio
        logs a warning for every failed attempt, and held events are retried often)."""
        ev.room_id = room_id
        store = getattr(self.client.olm, "inbound_group_store", None)
        index: int | None = None
        with contextlib.suppress(Exception):
            if store is not None:
                session = store.get(room_id, ev.sender_key, ev.session_id)
                if not session:
                    return None
                index = int(session.first_known_index)
                # A key that came incomplete (starting after this message) fails the same way
                # every retry: tried again only once a different key for the session arrives.
                if self._undecryptable.get(ev.event_id) == index:
                    return None
        try:
            dec = self.client.decrypt_event(ev)
        except Exception:
            if index is not None:
                self._undecryptable[ev.event_id] = index
            return None
        self._undecryptable.pop(ev.event_id, None)
        return dec

    async def _request_key(self, ev: Any) -> None:
        """Ask the sender's device for the missing room key (clients that share keys only with
        devices they trust may answer with m.room_key.withheld instead)."""
        with contextlib.suppress(Exception):
            await self.client.to_device(
                ev.as_key_request(ev.sender, self.client.device_id, device_id=ev.device_id))

    def note_withheld(self, resp: Any) -> None:
        """The room keys a sync's to-device events say will not come (a held message waiting
        for one is given up on at once)."""
        for ev in getattr(resp, "to_device_events", []):
            src = getattr(ev, "source", {}) or {}
            if src.get("type") in ("m.room_key.withheld", "org.matrix.room_key.withheld"):
                c = src.get("content") or {}
                if c.get("session_id"):
                    self._withheld[str(c["session_id"])] = str(c.get("code", ""))
                    log.info("room key withheld by %s (%s): session %s", src.get("sender"),
                             c.get("code"), c.get("session_id"))

    async def drain_held(self, now: float) -> bool:
        """Held events, in order per room: a decryptable one is processed (with its own time),
        one whose key was withheld or did not come within key_wait is given up on (the sender
        is told), and a room waits behind an event still within its wait. The sync loop and the
        clock both call it; one at a time, so replies stay in order."""
        async with self._draining:
            return await self._drain_held(now)

    async def _drain_held(self, now: float) -> bool:
        waiting: set[str] = set()
        held = self.state.held()
        changed = False
        for room_id, event_id, source, held_at in held:
            if room_id in waiting:
                continue
            ev = nio.Event.parse_event(source)
            if isinstance(ev, nio.MegolmEvent):
                dec = self._decrypt(room_id, ev)
                if dec is None:
                    code = self._withheld.get(ev.session_id)
                    if code is None and now - held_at < self.config.key_wait:
                        waiting.add(room_id)
                        continue
                    await self._unreadable(room_id, ev, code)
                    changed = True
                    continue
                ev = dec
            await self._readable(room_id, ev)
            self.state.unhold(event_id)
            changed = True
        late = self.state.unreadable(now - LATE_KEY_WINDOW)
        live = {e for _, e, _, _ in held} | {e for _, e, _ in late}
        for gone in set(self._undecryptable) - live:
            del self._undecryptable[gone]
        for room_id, event_id, source in late:
            ev = nio.Event.parse_event(source)
            if isinstance(ev, nio.MegolmEvent) and self._decrypt(room_id, ev) is not None:
                log.info("the key of %s came after it was given up on", event_id)
                self._notice(f"late:{event_id}", room_id, ev, "undecryptable_late", "")
                self.state.forget_unreadable(event_id)
                changed = True
        return changed

    async def _unreadable(self, room_id: str, ev: Any, code: str | None) -> None:
        why = code or "timeout"
        log.warning("giving up on %s in %s from %s: %s", ev.event_id, room_id, ev.sender, why)
        key = f"undecryptable_reason_{why.removeprefix('m.').replace('.', '_')}"
        try:
            reason = msg(key)
        except CatalogError:
            reason = msg("undecryptable_reason_other", code=why)
        self._notice(f"unreadable:{ev.event_id}", room_id, ev,
                     "undecryptable_withheld" if code else "undecryptable_gave_up", reason)
        self.state.give_up(room_id, ev.event_id, ev.source, time.time())

    def _notice(self, input_id: str, room_id: str, ev: Any, key: str, reason: str) -> None:
        """A plaintext m.notice to the sender in the room they typed in (it tells nothing
        private, and a client that cannot read the bot's encrypted messages still shows it)."""
        sender = name_of(ev.sender, self.server)
        when = datetime.datetime.fromtimestamp(ev.server_timestamp / 1000, JST)
        body = msg(key, sender=sender, when=when.strftime("%H:%M:%S"), reason=reason)
        content = render(body, self.server, {sender})
        content["msgtype"] = "m.notice"
        content[PLAINTEXT] = True
        self.state.queue(input_id, [(room_id, content)])

