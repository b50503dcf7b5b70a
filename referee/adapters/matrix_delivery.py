"""How the Matrix bot's replies reach players: the outbox, the private rooms, the sending.

Everything an input makes the bot say is first written to the outbox (:mod:`matrix_state`),
in one transaction, with a transaction id derived from (input, index) -- so a crash anywhere
re-sends at most what the homeserver then de-duplicates. :meth:`Delivery.flush` sends it, each
room in order and the rooms side by side.

Private content goes only to a player's own direct-message room: created once, end-to-end
encrypted, stored in the database and in ``m.direct``; checked before every send
(:meth:`Delivery._vouch`: encrypted, exactly the bot and the player) and replaced when it is no
private channel any more; a message waits until the player has joined it, so their device is
given the room key with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import nio  # type: ignore[import-untyped]

from referee.adapters.aio import wait_event
from referee.adapters.matrix_render import mxid_of, render
from referee.adapters.matrix_state import DM_KINDS, BotState
from referee.lang.catalog import text as msg

if TYPE_CHECKING:
    from referee.adapters.matrix_config import MatrixConfig
    from referee.service import Referee

log = logging.getLogger("referee.matrix")

ENCRYPTION = {"type": "m.room.encryption", "state_key": "",
              "content": {"algorithm": "m.megolm.v1.aes-sha2"}}
# A DM's later joiners read nothing sent before they joined (and the bot's checks keep them out).
HISTORY_JOINED = {"type": "m.room.history_visibility", "state_key": "",
                  "content": {"history_visibility": "joined"}}
PLAINTEXT = "referee.plaintext"  # outbox content marker: send unencrypted (a notice, no secret)
# A player's device with no olm session yet (it logged in a moment ago and has not uploaded its
# one-time keys) holds that player's private messages back for at most this long: sent before
# it can be given the room key, they would stay unreadable on it for good.
NEW_DEVICE_WAIT = 15.0
DM_NAME = "referee"  # the name of the private rooms the bot makes
SENT_REMEMBERED = 500  # sent messages whose input is remembered (reactions to questions)


def _made_by(room: Any) -> bool:
    """Whether ``room`` is named as the bot names the private rooms it makes
    (:meth:`Delivery.dm_room`). (Whoever made it, :meth:`Delivery._vouch` still decides: a
    room that is private to the bot and the player is one the bot would have taken from the
    player's own DM invite too.)"""
    return getattr(room, "name", None) == DM_NAME


def _txn(input_id: str, idx: int) -> str:
    """Deterministic transaction id: a re-send after a crash is de-duplicated by the server."""
    return "referee-" + hashlib.sha256(f"{input_id}\0{idx}".encode()).hexdigest()[:32]


def table_labels(names: dict[str, str | None]) -> dict[str, tuple[str, str]]:
    """(name, short id) of each table room: its name alone when no other table has that name;
    with the shortest prefix of the room id (at least four characters) that tells it from the
    other tables when the name is shared or missing (short id "" when the name alone is
    unique)."""
    counts: dict[str, int] = {}
    for name in names.values():
        if name:
            counts[name] = counts.get(name, 0) + 1
    ids = {rid: rid.removeprefix("!").partition(":")[0] or rid for rid in names}
    out: dict[str, tuple[str, str]] = {}
    for rid, name in names.items():
        if name and counts[name] == 1:
            out[rid] = (name, "")
            continue
        others = [ids[o] for o in names if o != rid]
        n = 4
        while n < len(ids[rid]) and any(o.startswith(ids[rid][:n]) for o in others):
            n += 1
        out[rid] = (name or "", ids[rid][:n])
    return out


async def pause(stopping: asyncio.Event, seconds: float) -> None:
    """Wait ``seconds``, or less if the bot is stopping (a cancel is never lost: see aio)."""
    await wait_event(stopping, timeout=seconds)


class Delivery:
    """How the bot's replies reach players, a part :class:`referee.adapters.matrix.MatrixBot`
    owns: the outbox (what an input makes the bot say, then its sending), the players' private
    rooms, and the devices a private message waits for. It reads the referee only to know who
    sits where, and the client through a getter (there is none before login)."""

    def __init__(self, config: MatrixConfig, state: BotState, referee: Referee,
                 client: Callable[[], Any], stopping: asyncio.Event) -> None:
        self.config = config
        self.server = config.server_name
        self.state = state
        self.referee = referee
        self._client = client
        self.stopping = stopping
        self._flushing = asyncio.Lock()  # the sync loop and the clock both flush the outbox
        # (user, device) -> when it was first found without an olm session
        self._device_seen: dict[tuple[str, str], float] = {}
        # private messages wait for a new device's keys (the clock flushes again)
        self.keys_pending = False
        self.sent_for: OrderedDict[str, str] = OrderedDict()  # event id -> the input answered

    @property
    def client(self) -> Any:
        return self._client()

    def _table_label(self, player: str, table_room: str) -> str:
        """「【room name】」 before a private message for a player seated at several tables, so
        two tables' cards are never mixed up; "" otherwise. Unique per table (see
        :func:`table_labels`), never the member list a client makes up for an unnamed room."""
        if len(self.referee.seated_rooms(player)) < 2 or not self.referee.has_table(table_room):
            return ""
        names: dict[str, str | None] = {}
        for rid in self.referee.rooms():
            room = self.client.rooms.get(rid) if self.client is not None else None
            names[rid] = (getattr(room, "name", None) or getattr(room, "canonical_alias", None)
                          or None)
        name, short = table_labels(names)[table_room]
        if not short:
            return msg("private_table_label", table=name)
        return msg("private_table_label_id", table=name or msg("private_table_unnamed"),
                   id=short)

    def member(self, room_id: str, user_id: str) -> bool:
        """Whether ``user_id`` has joined ``room_id`` now (nio's room state, kept by sync)."""
        room = self.client.rooms.get(room_id) if self.client is not None else None
        return room is not None and user_id in room.users and user_id not in getattr(
            room, "invited_users", {})

    async def queue(self, input_id: str, reply_room: str | None, table_room: str, sender: str,
                     events: Iterable[dict[str, Any]]) -> None:
        """``reply_room``: where what is said "to the room" goes; None: to ``sender``
        privately."""
        mention = set(self.referee.seated_names(table_room)) | {sender}
        rows: list[tuple[str, dict[str, Any]]] = []
        for e in events:
            if e.get("event") != "say":
                continue
            to, text = str(e.get("to", "room")), str(e.get("text", ""))
            if to == "room" and reply_room is None:
                to = sender
            if to == "room" and reply_room is not None:
                rows.append((reply_room, render(text, self.server, mention)))
            elif (self.referee.has_table(table_room)
                  and not self.member(table_room, mxid_of(to, self.server))):
                # a table's private content only for the members of its room (one banned or
                # gone is dealt nothing more, even before their !leave took effect)
                log.info("private message for %s withheld: not in %s", to, table_room)
            else:
                room = await self.dm_room(mxid_of(to, self.server))
                rows.append((room, render(self._table_label(to, table_room) + text,
                                          self.server, ())))
        if rows:
            self.state.queue(input_id, rows)

    # --- direct messages --------------------------------------------------------------------
    async def dm_room(self, user_id: str) -> str:
        """The player's private room, created (encrypted) on first use and then reused."""
        existing = self.state.dm_room(user_id) or self._orphan_dm(user_id)
        if existing is not None:
            return existing
        while True:
            # private_chat (not trusted_private_chat): the player is not an admin of the room,
            # and inviting needs the bot's power level, so nobody is let in by the homeserver.
            r = await self.client.room_create(
                is_direct=True, invite=[user_id], preset=nio.RoomPreset.private_chat,
                initial_state=[ENCRYPTION, HISTORY_JOINED], name=DM_NAME,
                power_level_override={"invite": 100},
            )
            if isinstance(r, nio.RoomCreateResponse):
                break
            log.warning("could not create a DM room for %s: %s; retrying", user_id, r)
            await pause(self.stopping, 2.0)
        self.state.add_room(r.room_id, "dm", user_id)
        await self.publish_direct()
        log.info("created DM room %s for %s", r.room_id, user_id)
        return str(r.room_id)

    def _orphan_dm(self, user_id: str) -> str | None:
        """A private room the bot made for ``user_id`` but never recorded (it was stopped
        between creating the room and saving it): adopted, not left beside a new one."""
        client = self.client
        for room_id, room in (client.rooms.items() if client is not None else ()):
            kind = self.state.room_kind(room_id)
            if (kind in (None, ("room", None)) and _made_by(room)
                    and self._vouch(room_id, user_id) is None):
                self.state.add_room(room_id, "dm", user_id)
                log.info("adopted DM room %s for %s (made before a stop)", room_id, user_id)
                return str(room_id)
        return None

    async def publish_direct(self) -> None:
        """``m.direct`` account data, so clients show the rooms as DMs (and a re-login finds
        them)."""
        path = ("/_matrix/client/v3/user/" + urllib.parse.quote(self.config.user_id)
                + "/account_data/m.direct")
        with contextlib.suppress(Exception):
            await self.client.send(
                "PUT", path, json.dumps(self.state.dm_map()),
                headers={"Authorization": f"Bearer {self.client.access_token}",
                         "Content-Type": "application/json"})

    def _vouch(self, room_id: str, partner: str) -> str | None:
        """Why ``room_id`` is no private channel for ``partner`` (None: it is, as far as the
        bot's view of the room goes): encrypted, and its members -- joined or invited -- exactly
        the bot and the partner, in a room nobody joins uninvited."""
        room = self.client.rooms.get(room_id)
        if room is None:
            return None  # not synced yet: _ready holds its messages back
        if not room.encrypted:
            return "not encrypted"
        members = set(room.users) | set(room.invited_users)
        if members != {self.config.user_id, partner}:
            if partner not in members:
                return "left"
            return "members: " + ", ".join(sorted(members - {self.config.user_id}))
        if room.join_rule not in ("invite", "knock"):
            return f"join rule {room.join_rule}"
        return None

    async def _replace_if_left(self, room_id: str) -> str:
        """Checked before every send to a DM: a player's private room that is no longer private
        (they left or refused it, someone else was invited, it is not encrypted) is given up,
        and the player gets a new one; what waited for the old room moves there, in order."""
        kind = self.state.room_kind(room_id)
        if kind is None or kind[0] not in DM_KINDS or not kind[1]:
            return room_id
        partner = kind[1]
        if kind[0] == "dm":
            why = self._vouch(room_id, partner)
            if why is None:
                return room_id
            log.warning("DM room %s of %s is no private channel (%s); making a new one",
                        room_id, partner, why)
            self.state.add_room(room_id, "dm_left" if why == "left" else "dm_lost", partner)
        new = await self.dm_room(partner)
        if new != room_id:
            self.state.move_unsent(room_id, new)
        return new

    def _ready(self, room_id: str) -> bool:
        room = self.client.rooms.get(room_id)
        if room is None:
            return False
        kind = self.state.room_kind(room_id)
        if kind is not None and kind[0] == "dm" and kind[1]:
            partner = kind[1]
            # Encrypted: the key goes to joined members' devices, so wait for the join.
            return partner in room.users and partner not in room.invited_users
        return True

    async def flush(self) -> None:
        """Send what the outbox holds, in order per room; a room not ready yet holds back only
        its own messages."""
        async with self._flushing:
            await self._flush()

    async def _flush(self) -> None:
        """Each room's messages in order, the rooms side by side: a slow or rate-limited room
        (a DM waiting out a 429) never delays another table's replies."""
        by_room: dict[str, list[tuple[int, str, int, dict[str, Any]]]] = {}
        for seq, input_id, idx, room_id, content in self.state.unsent():
            by_room.setdefault(room_id, []).append((seq, input_id, idx, content))
        partners: dict[str, str] = {}
        for room_id, rows in by_room.items():
            kind = self.state.room_kind(room_id)
            if (kind is not None and kind[0] in DM_KINDS and kind[1]
                    and any(not c.get(PLAINTEXT) for _, _, _, c in rows)):
                partners[room_id] = kind[1]
        waiting = await self._every_device_keyed(partners, time.time()) if partners else set()
        self.keys_pending = bool(waiting)
        await asyncio.gather(*(self._flush_room(r, rows) for r, rows in by_room.items()
                               if r not in waiting))

    async def _every_device_keyed(self, partners: dict[str, str], now: float) -> set[str]:
        """Before private content goes out: the partners' current devices, from the
        homeserver (the bot's own sync may not have told it about a device that logged in a
        moment ago), each with an olm session, and each DM's room key session shared with
        every one of them -- else a fresh session, which nio then shares with all. The rooms
        that must wait for a new device's keys (at most NEW_DEVICE_WAIT) are returned."""
        olm = self.client.olm if self.client is not None else None
        if olm is None:
            return set()
        users = set(partners.values())
        olm.users_for_key_query.update(users)
        try:
            await self.client.keys_query()  # (nio drops shared sessions of changed users)
        except Exception as e:
            log.warning("device list refresh failed: %r; sending with what is known", e)
            return set()
        missing = {u: [d.id for d in self._devices(u) if not olm.session_store.get(d.curve25519)]
                   for u in users}
        missing = {u: ds for u, ds in missing.items() if ds}
        if missing:
            with contextlib.suppress(Exception):
                await self.client.keys_claim(missing)
        waiting: set[str] = set()
        for room_id, user in partners.items():
            devices = self._devices(user)
            keyless = [d.id for d in devices if not olm.session_store.get(d.curve25519)]
            late = []
            for dev in keyless:
                first = self._device_seen.setdefault((user, dev), now)
                if now - first < NEW_DEVICE_WAIT:
                    late.append(dev)
            if late:
                log.info("new device %s of %s has no one-time keys yet: its private messages "
                         "wait (at most %.0fs)", ", ".join(late), user, NEW_DEVICE_WAIT)
                waiting.add(room_id)
                continue
            session = olm.outbound_group_sessions.get(room_id)
            unkeyed = [d.id for d in devices if d.id not in keyless and session is not None
                       and session.shared and (user, d.id) not in session.users_shared_with]
            if unkeyed:
                log.info("new device %s of %s: a fresh room key session for %s",
                         ", ".join(unkeyed), user, room_id)
                self.client.invalidate_outbound_session(room_id)
        return waiting

    def _remember(self, event_id: str, input_id: str) -> None:
        """Which input a sent message answered (the newest few hundred): a reaction to the
        table's question is known by the input that asked it."""
        self.sent_for[event_id] = input_id
        while len(self.sent_for) > SENT_REMEMBERED:
            self.sent_for.popitem(last=False)

    def _devices(self, user_id: str) -> list[Any]:
        """The user's devices a room key goes to (not the blacklisted ones)."""
        olm = self.client.olm
        return [d for d in self.client.device_store.active_user_devices(user_id)
                if not olm.is_device_blacklisted(d)]

    async def _flush_room(self, room_id: str,
                          rows: list[tuple[int, str, int, dict[str, Any]]]) -> None:
        """One room's unsent messages, in order, up to the first that cannot go yet."""
        for seq, input_id, idx, content in rows:
            if content.pop(PLAINTEXT, False):
                sent = await self._send_plain(room_id, content, _txn(input_id, idx))
                if sent is None:
                    return
                self.state.sent(seq, sent)
                self._remember(sent, input_id)
                continue
            target = await self._replace_if_left(room_id)
            if not self._ready(target):
                return
            try:
                r = await self.client.room_send(
                    target, "m.room.message", content, tx_id=_txn(input_id, idx),
                    ignore_unverified_devices=True)
            except Exception as e:
                log.warning("send to %s failed: %r; will retry", target, e)
                return
            if isinstance(r, nio.RoomSendResponse):
                self.state.sent(seq, r.event_id)
                self._remember(r.event_id, input_id)
            else:
                log.warning("send to %s refused: %s; will retry", target, r)
                return

    async def _send_plain(self, room_id: str, content: dict[str, Any], txn: str) -> str | None:
        """An unencrypted message, even in an encrypted room (nio would encrypt it); its event
        id, or None (retried later)."""
        path = (f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/send/m.room.message/"
                + txn)
        try:
            resp = await self.client.send(
                "PUT", path, json.dumps(content),
                headers={"Authorization": f"Bearer {self.client.access_token}",
                         "Content-Type": "application/json"})
            data = await resp.json(content_type=None)
        except Exception as e:
            log.warning("plaintext send to %s failed: %r; will retry", room_id, e)
            return None
        if resp.status != 200 or not isinstance(data, dict) or "event_id" not in data:
            log.warning("plaintext send to %s refused: %s %s; will retry", room_id,
                        resp.status, data)
            return None
        return str(data["event_id"])
