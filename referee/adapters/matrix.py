"""``referee matrix``: the bot on a Matrix homeserver (matrix-nio's AsyncClient).

A thin I/O shell around the service pipeline (:class:`referee.service.Referee`). What it adds is
delivery, and the guarantees the community asked for:

* **Exactly once.** A Matrix event id is the input id: the service saves the input, its events
  and its ledger in one transaction (``referee.store``) and never applies an id twice. The bot's
  replies go through an *outbox* table in the same database file, written before the sync token
  moves on and sent with a transaction id derived from (input, index), so a crash anywhere
  re-sends at most what Synapse then de-duplicates. The sync token is saved only after every
  event of that sync is processed and its replies are in the outbox.
* **Nothing lost.** Syncs use a large timeline; a ``limited`` (gappy) timeline is filled from
  ``/messages`` between ``prev_batch`` and the previous sync token. 429 / M_LIMIT_EXCEEDED is
  retried by nio for as long as it takes (never dropped); a vanished homeserver is retried with
  capped exponential backoff. Events from before the bot joined a room are ignored (on a
  first run in a room it was joined to beforehand, what came after the join is read).
* **Private cards.** Each player gets one direct-message room, created once, end-to-end encrypted,
  stored in the database and in ``m.direct`` (homeservers rate-limit room creation). A private
  message waits in the outbox until the player has joined that room, so their device is given the
  room key with it. The crypto store (olm account, sessions) persists next to the database.

This module is the bot itself: the login, the sync loop, what an event becomes (an input of
the service, routed by :mod:`referee.routing` when it is private), the action clock and
back-ups. It owns its parts rather than inheriting them, each with its own state and only what
it needs handed to it: the delivery (:mod:`matrix_delivery`: the outbox, the private rooms, the
sending), the crypto (:mod:`matrix_crypto`: cross-signing, and the messages waiting for their
room key, which it hands back to the bot once readable) and the verification
(:mod:`matrix_verify`, on the steps of :mod:`matrix_sas`: players verifying the bot). Besides:
:mod:`matrix_state` the adapter's own tables; :mod:`matrix_config` the settings;
:mod:`matrix_render` the text formats. The names the CLI imports from here stay importable from
here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import time
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import nio  # type: ignore[import-untyped]

from referee.adapters import gc_tuning
from referee.adapters.clock import due_ticks
from referee.adapters.config import ConfigError as ConfigError
from referee.adapters.matrix_config import KEY_WAIT as KEY_WAIT
from referee.adapters.matrix_config import MatrixConfig as MatrixConfig
from referee.adapters.matrix_config import load_config as load_config
from referee.adapters.matrix_crypto import Crypto
from referee.adapters.matrix_crypto import share_keys as share_keys
from referee.adapters.matrix_delivery import ENCRYPTION as ENCRYPTION
from referee.adapters.matrix_delivery import Delivery, pause
from referee.adapters.matrix_event import (
    READ_TYPES,
    MessageContent,
    message_content,
    reaction_key,
    strip_reply_fallback,
)
from referee.adapters.matrix_log import RateLimitCounter, quiet_repeats
from referee.adapters.matrix_render import incoming_text, name_of, render, without_addressee
from referee.adapters.matrix_state import DM_KINDS, BotState
from referee.adapters.matrix_timeline import (
    FIRST_RUN_WINDOW,
    after_own_join,
    first_run,
    is_own_join,
)
from referee.adapters.matrix_verify import Verification, is_verification
from referee.events import TableClosed, TableOpened
from referee.inputs import Directive, Message, Tick
from referee.lang.catalog import text as msg
from referee.routing import private_route
from referee.rules.voice import rendered_record
from referee.store import StoreError

if TYPE_CHECKING:
    from referee.service import Referee
    from referee.store import Store

log = logging.getLogger("referee.matrix")


SYNC_FILTER: dict[str, Any] = {
    # Synapse's default timeline limit is 10 events per room per sync; a larger one makes gaps
    # rarer (they are still filled, see _backfill).
    "room": {"timeline": {"limit": 100}, "state": {"lazy_load_members": False}},
    "presence": {"not_types": ["*"]},
}


class MatrixBot:
    """One bot account: sync loop → service pipeline → outbox → homeserver. It owns its parts:
    the delivery (outbox, private rooms), the crypto (cross-signing, messages waiting for a
    key) and the verification (players verifying the bot)."""

    def __init__(self, config: MatrixConfig, referee: Referee | None = None,
                 store: Store | None = None) -> None:
        self.config = config
        self.server = config.server_name
        config.database.parent.mkdir(parents=True, exist_ok=True)
        if store is None:
            from referee.store import Store

            store = Store(config.database, check="background")  # verified before login
        self.store = store
        if referee is None:
            from referee.service import Referee

            referee = Referee(moderators=[name_of(m, self.server) for m in config.moderators])
            from referee.adapters import resume

            for warning in resume(referee, store):  # tables go on where the last run left them
                log.warning("%s", warning)
        self.referee = referee
        self.state = BotState(config.database)
        from referee.store.integrity import Backups

        try:
            self.backups = Backups(config.database, config.backup_dir, config.backup_every,
                                   config.backup_keep)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        self._table_closed = False  # since the last back-up
        self.referee.on_table(self._on_table)
        self.client: Any = None
        self.stopping = asyncio.Event()
        self.synced = 0  # number of completed sync batches (tests wait on it)
        self.started = time.time()  # a first run reads what came after it joined, lately
        self.delivery = Delivery(config, self.state, referee, self._client, self.stopping)
        self.crypto = Crypto(config, self.state, self._client, self._dispatch)
        self.verification = Verification(config, self.state, self._client,
                                         lambda: self.crypto.master_key)
        self._ticked: dict[str, float] = {}  # room -> wall time of its last clock tick
        self._edit_told: set[tuple[str, str, int]] = set()  # (room, editor, hand) told once
        self.rate_limits = RateLimitCounter()
        logging.getLogger("nio").addHandler(self.rate_limits)

    def _client(self) -> Any:
        """The nio client, for the parts (made at login, so later than they are)."""
        return self.client

    async def _sleep(self, seconds: float) -> None:
        await pause(self.stopping, seconds)

    # --- login (keys and cross-signing: the crypto part) -------------------------------------
    async def _login(self) -> None:
        cfg = self.config
        cfg.crypto_dir.mkdir(parents=True, exist_ok=True)
        client_config = nio.AsyncClientConfig(
            encryption_enabled=True, store_sync_tokens=False,
            max_timeout_retry_wait_time=cfg.max_retry_wait, request_timeout=60,
        )
        client = nio.AsyncClient(cfg.homeserver, cfg.user_id, store_path=str(cfg.crypto_dir),
                             config=client_config)
        self.client = client
        token, device = cfg.access_token, cfg.device_id
        if token and not device:
            # Ask who we are: the crypto store is per device.
            client.access_token = token
            whoami = await client.whoami()
            device = getattr(whoami, "device_id", None)
        if not token:
            saved = self.state.get("session")
            if saved:
                s = json.loads(saved)
                if s.get("user_id") == cfg.user_id:
                    token, device = s["access_token"], s["device_id"]
        if token and device:
            client.restore_login(cfg.user_id, device, token)
        else:
            resp = await client.login(password=cfg.password, device_name=cfg.device_name)
            if not isinstance(resp, nio.LoginResponse):
                raise ConfigError(f"login failed: {resp}")
            self.state.put("session", json.dumps({
                "user_id": cfg.user_id, "access_token": resp.access_token,
                "device_id": resp.device_id}))
        log.info("logged in as %s, device %s", client.user_id, client.device_id)
        self.verification.disable_nio()
        if client.should_upload_keys:
            await client.keys_upload()
        await self.crypto.cross_sign()

    # --- the loop ---------------------------------------------------------------------------
    async def run(self) -> None:
        # never online on a damaged database (CorruptDatabase, one line)
        await asyncio.to_thread(self.store.verify)
        await self._login()
        await self.delivery.flush()  # replies a previous run queued but did not send
        clock = asyncio.create_task(self._clock())
        try:
            await self._sync_loop()
        finally:
            clock.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await clock

    # --- the action clock -------------------------------------------------------------------
    async def clock_tick(self, now: float) -> list[str]:
        """Tick the tables that wait on someone (see referee.adapters.clock) and queue what it
        says in the outbox (the caller flushes); the rooms ticked. Not before the first sync:
        messages sent while the bot was down come first, or a player who did act in time would
        be timed out."""
        if self.synced == 0:
            return []
        # A room holding an undecryptable message waits for it: a tick now could time out a
        # player whose action is in it (judged with its own time once readable).
        due = [r for r in due_ticks(self.referee, now, self._ticked, self.config.tick_every)
               if not self.state.has_held(r)]
        for room in due:
            self._ticked[room] = now
            input_id = f"tick:{uuid.uuid4().hex}"
            try:
                out = self.referee.process(Tick(input_id, room, now))
            except StoreError as e:
                log.error("clock tick of %s not saved, nothing changed: %s", room, str(e)[:300])
                continue
            finally:
                gc_tuning.answered()
            if out is not None:
                await self.delivery.queue(input_id, room, room, "",
                                          [e.to_json() for e in out.events])
        return due

    async def _clock(self) -> None:
        while not self.stopping.is_set():
            try:
                drained = self.synced > 0 and await self.crypto.drain_held(time.time())
                told = await self.verification.tick(time.time())
                if (await self.clock_tick(time.time()) or drained or told
                        or self.delivery.keys_pending):
                    await self.delivery.flush()
                    gc_tuning.quiet()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in one tick must not stop the clock of every table
                log.exception("clock tick failed")
            await self._backup_if_due()
            await self._sleep(1.0)

    def _on_table(self, event: TableOpened | TableClosed) -> None:
        if isinstance(event, TableClosed):
            self._table_closed = True  # its results are the record to keep: a back-up

    async def _backup_if_due(self) -> None:
        """Back the database up when a table has closed (!close) and every backup_every s."""
        closed, self._table_closed = self._table_closed, False
        if not closed and not self.backups.due():
            return
        try:
            made = await asyncio.to_thread(self.backups.run)
        except Exception as e:  # a failed back-up must not stop the tables; it is logged
            log.error("back-up failed: %s", e)
            return
        log.info("back-up (%s): %s", "!close" if closed else "interval", made)

    async def _sync_loop(self) -> None:
        since = self.state.get("next_batch")
        first = True
        backoff = 0.5
        while not self.stopping.is_set():
            try:
                resp = await self.client.sync(
                    timeout=self.config.sync_timeout_ms, sync_filter=SYNC_FILTER, since=since,
                    # After a restart nio knows no room: get the full state once.
                    full_state=first,
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:  # nio retries connection errors itself; this is a backstop
                log.warning("sync failed: %r; retrying in %.1fs", e, backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, self.config.max_retry_wait)
                continue
            if not isinstance(resp, nio.SyncResponse):
                log.warning("sync error: %s; retrying in %.1fs", resp, backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, self.config.max_retry_wait)
                continue
            backoff = 0.5
            await self._handle_sync(resp, since)
            if first and since is not None:
                self._announce_back()  # a restart: after what was typed while it was down
            since = resp.next_batch
            self.state.put("next_batch", since)  # only now: every event of it is processed
            self.state.prune_sent()
            first = False
            self.synced += 1
            await self.crypto.housekeeping()
            await self.delivery.flush()
            gc_tuning.quiet()  # the sync's replies are out; the next sync waits on the server

    def _announce_back(self) -> None:
        """After a restart, every table's room is told the dealer is back and whom the table
        waits for (players who typed while it was down see it answered them, or what is
        still awaited)."""
        batch = uuid.uuid4().hex
        for room, line in self.referee.back_lines().items():
            self.state.queue(f"back:{batch}:{room}", [(room, render(line, self.server, ()))])

    async def close(self) -> None:
        logging.getLogger("nio").removeHandler(self.rate_limits)
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.verification.cancel_all()
            await self.client.close()
        self.state.close()
        with contextlib.suppress(Exception):
            self.store.close()

    # --- one sync ---------------------------------------------------------------------------
    async def _handle_sync(self, resp: Any, since: str | None) -> None:
        me = self.config.user_id
        self.crypto.note_withheld(resp)
        async with self._contain("to-device events", "(to-device)", None):
            await self.verification.to_device(resp)
        for room_id, info in resp.rooms.invite.items():
            async with self._contain("invite", room_id, None):
                await self._on_invite(room_id, info)
        for room_id, info in resp.rooms.join.items():
            known = self.state.room_kind(room_id) is not None
            events = list(info.timeline.events)
            if since is None and not known:
                # First run ever in a room the bot had already joined (joined for it before it
                # ever ran): what came before its join is history; what came after it, while
                # the bot was starting, is for the bot -- a moderator's first !open typed right
                # after the join was lost here. Only lately, so an old membership does not
                # replay a room's past.
                self.state.add_room(room_id)
                events = first_run(events, list(getattr(info, "state", []) or []), me,
                                    self.started - FIRST_RUN_WINDOW)
                for ev in events:
                    await self._on_event(room_id, ev)
                continue
            if not known:
                events, found = after_own_join(events, me)
                if not found and info.timeline.limited:
                    events = await self._backfill(room_id, info.timeline.prev_batch, None) + \
                        list(info.timeline.events)
                    events, found = after_own_join(events, me)
                self.state.add_room(room_id)
            elif info.timeline.limited and since is not None:
                events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
            for ev in events:
                await self._on_event(room_id, ev)
        for room_id in resp.rooms.leave:
            kind = self.state.room_kind(room_id)
            if kind is not None and kind[0] == "dm":
                log.info("DM room %s was left; a new one will be made when needed", room_id)
        await self.crypto.drain_held(time.time())  # keys this sync brought

    async def _backfill(self, room_id: str, prev_batch: str | None,
                        since: str | None) -> list[Any]:
        """The events a gappy sync left out, oldest first (``/messages`` backwards)."""
        if not prev_batch:
            return []
        me = self.config.user_id
        got: list[Any] = []
        start: str | None = prev_batch
        while start:
            r = await self.client.room_messages(room_id, start=start, end=since, limit=100)
            if not isinstance(r, nio.RoomMessagesResponse):
                log.warning("backfill of %s failed: %s; retrying", room_id, r)
                await self._sleep(1.0)
                continue
            got.extend(r.chunk)
            if since is None and any(is_own_join(e, me) for e in r.chunk):
                break
            if not r.chunk or r.end in (None, start):
                break
            start = r.end
        got.reverse()
        log.info("gappy sync in %s: fetched %d missing events", room_id, len(got))
        return got

    async def _on_invite(self, room_id: str, info: Any) -> None:
        me = self.config.user_id
        inviter: str | None = None
        direct = False
        for ev in getattr(info, "invite_state", []):
            if isinstance(ev, nio.InviteMemberEvent) and ev.state_key == me:
                inviter = ev.sender
                direct = bool(ev.content.get("is_direct"))
        r = await self.client.join(room_id)
        if not isinstance(r, nio.JoinResponse):
            log.warning("could not join %s: %s", room_id, r)
            return
        if direct and inviter:
            # A player's own DM invite is a candidate private channel: nothing private goes
            # there unless, checked before every private send (by the delivery part), it is
            # encrypted and holds only the bot and that player. (nio keeps no
            # m.room.encryption of an invite's stripped state, so the check cannot be made
            # earlier.)
            if self.state.dm_room(inviter) is None:
                self.state.add_room(room_id, "dm", inviter)
                await self.delivery.publish_direct()
            else:
                self.state.add_room(room_id, "dm_lost", inviter)
        log.info("joined %s (invited by %s%s)", room_id, inviter, ", direct" if direct else "")

    # --- one event --------------------------------------------------------------------------
    async def _on_event(self, room_id: str, ev: Any) -> None:
        """One timeline event, in order: a membership change, or a message (or verification
        step) for the bot, which passes the crypto part's gate (held there until readable).
        Whatever goes wrong with one event is logged with its id and skipped (:meth:`_contain`):
        the sync position moves past it and every other table goes on."""
        async with self._contain("event", room_id, ev):
            if isinstance(ev, nio.RoomMemberEvent):
                await self._on_member(room_id, ev)
                return
            source = getattr(ev, "source", None)
            if not isinstance(source, dict) or ev.sender == self.config.user_id:
                return
            if (isinstance(ev, nio.MegolmEvent) or source.get("type") in READ_TYPES
                    or is_verification(source)):
                await self.crypto.admit(room_id, ev)

    @contextlib.asynccontextmanager
    async def _contain(self, what: str, room_id: str, ev: Any) -> AsyncIterator[None]:
        """Run the handling of one outside event; an exception is logged in one line with the
        event's id and swallowed, so one malformed event, room or user never stops the bot."""
        try:
            yield
        except asyncio.CancelledError:
            raise
        except Exception as e:
            event_id = getattr(ev, "event_id", None) or "?"
            log.error("skipped %s %s in %s: %s: %s", what, str(event_id)[:100], room_id[:100],
                      type(e).__name__, str(e)[:200])
            log.debug("the skipped event's error", exc_info=True)

    async def _dispatch(self, room_id: str, ev: Any) -> None:
        """A readable (decrypted) timeline event: a verification step, or a message."""
        async with self._contain("message", room_id, ev):
            source = getattr(ev, "source", None)
            if not isinstance(source, dict):
                return
            if is_verification(source):
                await self.verification.in_room(room_id, source)
            elif source.get("type") == "m.reaction":
                await self._on_reaction(room_id, ev, source.get("content"))
            elif source.get("type") == "m.room.message":  # (decrypted, it may be a reaction…)
                content = message_content(source.get("content"))
                if content is None:
                    log.info("skipped event %s in %s: not a well-formed text message",
                             str(getattr(ev, "event_id", "?"))[:100], room_id[:100])
                    return
                await self._on_message(room_id, ev, content)

    async def _on_message(self, room_id: str, ev: Any, content: MessageContent) -> None:
        if content.is_edit:
            await self._on_edit(room_id, ev, content)
            return
        kind = self.state.room_kind(room_id)
        dm = kind is not None and kind[0] in DM_KINDS
        sender = name_of(ev.sender, self.server)
        body = strip_reply_fallback(content.body) if content.is_reply else content.body
        text = without_addressee(incoming_text(body, content.html, self.server),
                                 (name_of(self.config.user_id, self.server),))
        if text.strip().lower() == "!verify":
            # the bot's keys and how to check them: said where asked, nothing private in it
            self.state.queue(f"verify:{ev.event_id}", [
                (room_id, render(self.verification.info(), self.server, ()))])
            return
        table_room: str | None = room_id
        if dm:
            # A private message concerns the table it names or where the sender sits (one rule
            # for every adapter: referee.routing); its announcements go to that table's room.
            route = private_route(self.referee, sender, text, self._table_names())
            table_room, text = route.room, route.text
            if table_room is not None and not self.delivery.member(table_room, ev.sender):
                # a table is only for the members of its room: whoever knows a room id cannot
                # sit at it, nor ask for anything of it, from a DM
                self.state.queue(ev.event_id, [(room_id, render(
                    msg("private_not_member", sender=sender), self.server, ()))])
                return
        events = await self._take(Message(ev.event_id, table_room or room_id, sender, text,
                                          ev.server_timestamp / 1000.0, dm), room_id, sender)
        if events is None:
            return
        # No table for a private message: what the service says "to the room" goes back to the
        # sender, privately (never into the room it came from: that room may not be private).
        await self.delivery.queue(ev.event_id, table_room, table_room or room_id, sender, events)

    async def _on_rename(self, room_id: str, ev: Any) -> None:
        """A display name changed in a table's room: the room reads it, so it is judged like a
        line the player wrote (a name that carries one's cards is hand talk), never acted on."""
        shown = (ev.content or {}).get("displayname") if isinstance(ev.content, dict) else None
        before = (ev.prev_content or {}).get("displayname") if isinstance(
            ev.prev_content, dict) else None
        if not isinstance(shown, str) or not shown.strip() or shown == before:
            return
        sender = name_of(ev.state_key, self.server)
        events = await self._take(Message(ev.event_id, room_id, sender, shown[:500],
                                          ev.server_timestamp / 1000.0, False, edit=True),
                                  room_id, None)
        if events:
            await self.delivery.queue(ev.event_id, room_id, room_id, sender, events)

    async def _on_reaction(self, room_id: str, ev: Any, content: Any) -> None:
        """A reaction to the table's question (「…はコールですか？」) is the asked player's answer:
        handed to the referee as that player's line, the reaction's key as its text (a yes
        such as 👍 takes the offered action; the referee checks who may answer). A reaction to
        anything else is nobody's business."""
        key = reaction_key(content)
        asked = self.referee.question_asked_by(room_id)
        if key is None or asked is None or self.delivery.sent_for.get(key[0]) != asked:
            return
        sender = name_of(ev.sender, self.server)
        events = await self._take(Message(ev.event_id, room_id, sender, key[1],
                                          ev.server_timestamp / 1000.0, False), room_id, sender)
        if events:
            await self.delivery.queue(ev.event_id, room_id, room_id, sender, events)

    async def _on_edit(self, room_id: str, ev: Any, content: MessageContent) -> None:
        """An edit: the original was the declaration and stands; what the room now reads is
        judged like a new message (hand talk, interference), never acted on. Whoever edited an
        action is told so, privately, once a hand."""
        sender = name_of(ev.sender, self.server)
        new = content.edited()
        body = new.body if new is not None else content.body.removeprefix("* ")
        text = incoming_text(body, new.html if new is not None else content.html, self.server)
        events: list[dict[str, Any]] = []
        if self.referee.has_table(room_id):
            taken = await self._take(Message(ev.event_id, room_id, sender, text,
                                             ev.server_timestamp / 1000.0, False, edit=True),
                                     room_id, sender)
            if taken is None:
                return
            events = taken
        original = content.relates_to.event_id if content.relates_to is not None else None
        view = self.referee.table_view(room_id)
        acted = original is not None and any(
            e.get("event") == "action" and e.get("player") == sender
            for e in self.store.events_of(original))
        key = (room_id, sender, view.hand if view is not None else 0)
        if acted and key not in self._edit_told:
            self._edit_told.add(key)
            events.append({"event": "say", "to": sender,
                           "text": msg("edit_ignored", player=sender)})
        if events:
            await self.delivery.queue(ev.event_id, room_id, room_id, sender, events)

    async def _on_member(self, room_id: str, ev: Any) -> None:
        """A player who leaves a table's room, is kicked or banned from it leaves the hand and
        the table at once (a ``departed`` directive, saved like any input, so a rebuild
        agrees), and nothing private of that table goes to them any more
        (:meth:`Delivery.queue`). One who comes back is a new arrival."""
        if not self.referee.has_table(room_id) or ev.prev_membership != "join":
            return
        if ev.membership == "join":
            await self._on_rename(room_id, ev)
            return
        if ev.membership not in ("leave", "ban"):
            return
        name = name_of(ev.state_key, self.server)
        if name not in self.referee.seated_names(room_id):
            return
        how = "ban" if ev.membership == "ban" else (
            "kick" if ev.sender != ev.state_key else "leave")
        log.info("%s left %s (%s): folded, leaving the table", ev.state_key, room_id, how)
        events = await self._take(Directive(ev.event_id, room_id, "departed",
                                            {"name": name, "how": how}), room_id, None)
        if events is not None:
            await self.delivery.queue(ev.event_id, room_id, room_id, name, events)

    async def _take(self, inp: Message | Directive, room_id: str,
                    sender: str | None) -> list[dict[str, Any]] | None:
        """The referee's events for one event's input, as JSON: its outcome's, or the stored
        ones when it was processed before a crash (its replies may not all be in the outbox
        yet); None when it could not be saved (nothing changed, see :meth:`_not_saved`)."""
        try:
            out = self.referee.process(inp)
        except StoreError as e:
            await self._not_saved(room_id, sender, inp.id, e)
            return None
        finally:
            gc_tuning.answered()
        if out is not None:
            return [e.to_json() for e in out.events]
        return [rendered_record(e) for e in self.store.events_of(inp.id)]

    async def _not_saved(self, room_id: str, sender: str | None, event_id: str,
                         error: Exception) -> None:
        """An input the store could not save changed nothing (the service went back to what
        the store holds): the operator gets one log line, the sender one line asking them to
        send it again -- sent at once, not through the outbox, which lives in the same
        database."""
        log.error("input %s not saved, nothing changed: %s", event_id[:100], str(error)[:300])
        if sender is None or self.client is None:
            return
        with contextlib.suppress(Exception):
            await self.client.room_send(
                room_id, "m.room.message",
                render(msg("save_failed", player=sender), self.server, ()),
                ignore_unverified_devices=True)

    def _table_names(self) -> dict[str, str]:
        """What a player may type in a DM to name a table: its room's aliases (and id)."""
        names: dict[str, str] = {}
        for rid in self.referee.rooms():
            room = self.client.rooms.get(rid) if self.client is not None else None
            if room is None:
                continue
            aliases = [getattr(room, "canonical_alias", None)]
            aliases += list(getattr(room, "alt_aliases", None) or [])
            for alias in aliases:
                if alias:
                    names[str(alias)] = rid
        return names


async def serve(config: MatrixConfig) -> None:
    bot = MatrixBot(config)  # resumes the tables
    gc_tuning.tune()  # what start-up made lives as long as the bot (referee.adapters.gc_tuning)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, bot.stopping.set)
    task = asyncio.create_task(bot.run())
    stop = asyncio.create_task(bot.stopping.wait())
    try:
        done, _ = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()
    finally:
        task.cancel()
        stop.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await bot.close()


def run(config: MatrixConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    quiet_repeats()  # one stuck key must not write the same warning every second
    logging.getLogger("nio").setLevel(logging.WARNING)
    asyncio.run(serve(config))
