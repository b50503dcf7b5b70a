"""Players verify the bot: SAS verification in the DM (in-room) and to-device, answered by the
bot, and ``!verify`` in a table room (the bot's fingerprint and how to check it).

The protocol steps are :class:`referee.adapters.matrix_sas.SasFlow`; this module is their
transport. Anyone may verify the bot (it proves the bot's keys, and tells nothing private), but
an in-room request is answered only in the requester's own DM with the bot; the bot never starts
a verification itself. While the SAS is shown, the bot writes its side of the emoji and numbers
into the player's DM (and its log), so a moderator can compare them with the bot's log too.
nio's own to-device verification handling is switched off: it answers with a key of its own and
a commitment other clients reject, which would break every flow.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import nio  # type: ignore[import-untyped]

from referee.adapters.matrix_render import name_of, render
from referee.adapters.matrix_sas import PREFIX, REQUEST_MSGTYPE, USER, Me, SasFlow, Step
from referee.adapters.matrix_state import DM_KINDS, BotState
from referee.lang.catalog import CatalogError
from referee.lang.catalog import text as msg

if TYPE_CHECKING:
    from referee.adapters.matrix_config import MatrixConfig

log = logging.getLogger("referee.matrix")

NOT_HERE = ("m.unexpected_message", "Verify the bot in your direct messages with it")


def is_verification(source: dict[str, Any]) -> bool:
    """A verification event of the room timeline (the request is an m.room.message)."""
    kind = str(source.get("type", ""))
    if kind.startswith(PREFIX):
        return True
    content = source.get("content") or {}
    return kind == "m.room.message" and content.get("msgtype") == REQUEST_MSGTYPE


def fingerprint(key: str) -> str:
    """An ed25519 key in groups of four, as Element shows a session key."""
    return " ".join(key[i:i + 4] for i in range(0, len(key), 4))


class Verification:
    """Players' verifications of the bot, a part :class:`referee.adapters.matrix.MatrixBot`
    owns: the flows under way, their messages to and from the other device, and what the player
    is told in their DM. It reads the client through a getter (there is none before login) and
    the master key through another (cross-signing is the crypto part's, and may be done only
    after a later sync)."""

    def __init__(self, config: MatrixConfig, state: BotState, client: Callable[[], Any],
                 master_key: Callable[[], str | None]) -> None:
        self.config = config
        self.server = config.server_name
        self.state = state
        self._client = client
        self._master_key = master_key
        self._flows: dict[str, tuple[SasFlow, str | None]] = {}  # transaction -> (flow, room)

    @property
    def client(self) -> Any:
        return self._client()

    def _me(self) -> Me:
        return Me(self.config.user_id, str(self.client.device_id),
                  str(self.client.olm.account.identity_keys["ed25519"]), self._master_key())

    def disable_nio(self) -> None:
        """nio's OlmMachine would answer to-device verifications itself (wrongly: see the
        module docstring); the bot's flows do it instead."""
        if self.client is not None and self.client.olm is not None:
            self.client.olm.handle_key_verification = lambda event: None

    async def _device_key(self, user_id: str, device_id: str) -> Any:
        """The other device as nio knows it, its keys queried first if it is new."""
        devices = self.client.device_store.active_user_devices(user_id)
        found = next((d for d in devices if d.id == device_id), None)
        if found is None:
            self.client.olm.users_for_key_query.add(user_id)
            try:
                await self.client.keys_query()
            except Exception as e:  # the flow cancels with a key mismatch if it stays unknown
                log.warning("verification: keys of %s not queried: %r", user_id, e)
            devices = self.client.device_store.active_user_devices(user_id)
            found = next((d for d in devices if d.id == device_id), None)
        return found

    # --- incoming ---------------------------------------------------------------------------
    async def to_device(self, resp: Any) -> None:
        """The verification steps among a sync's to-device events."""
        for ev in getattr(resp, "to_device_events", []):
            src = getattr(ev, "source", {}) or {}
            if not isinstance(src, dict):
                continue
            kind = str(src.get("type", ""))
            content = src.get("content")
            if not kind.startswith(PREFIX) or not src.get("sender") or not isinstance(
                    content, dict):
                continue
            txn = content.get("transaction_id")
            if not txn:
                continue
            try:
                await self._verification(None, str(src["sender"]), kind[len(PREFIX):],
                                         dict(content), str(txn), time.time())
            except asyncio.CancelledError:
                raise
            except Exception as e:  # one malformed step never stops the others, nor the bot
                log.error("skipped verification step %s from %s: %s: %s", kind[:80],
                          str(src["sender"])[:100], type(e).__name__, str(e)[:200])

    async def in_room(self, room_id: str, source: dict[str, Any]) -> None:
        """A verification step of a room's timeline (answered only in the sender's own DM)."""
        sender = str(source.get("sender", ""))
        if not sender or sender == self.config.user_id:
            return
        raw = source.get("content")
        if not isinstance(raw, dict):
            return
        content = dict(raw)
        kind = str(source.get("type", ""))
        if kind == "m.room.message":
            if content.get("to") != self.config.user_id:
                return
            kind, txn = "request", str(source.get("event_id", ""))
        else:
            kind = kind[len(PREFIX):]
            relates = content.get("m.relates_to")
            txn = str(relates.get("event_id", "")) if isinstance(relates, dict) else ""
        if txn:
            await self._verification(room_id, sender, kind, content, txn, time.time())

    async def _verification(self, room: str | None, sender: str, kind: str,
                            content: dict[str, Any], txn: str, now: float) -> None:
        known = self._flows.get(txn)
        if known is None:
            if kind not in ("request", "start") or not content.get("from_device"):
                # (a client echoes the bot's own cancel back once the flow is forgotten)
                log.log(logging.DEBUG if kind == "cancel" else logging.INFO,
                        "verification %s from %s: %s of no verification the bot knows",
                        txn, sender, kind)
                return
            device_id = str(content["from_device"])
            device = await self._device_key(sender, device_id)
            flow = SasFlow(self._me(), sender, device_id,
                           getattr(device, "ed25519", None), txn, now,
                           self.config.verify_timeout)
            self._flows[txn] = (flow, room)
            log.info("verification %s: %s of %s %s (%s)", txn, kind, sender, device_id,
                     f"in {room}" if room else "to-device")
            if room is not None and not self._own_dm(room, sender):
                await self._apply(flow, room, flow.cancel(NOT_HERE))
                return
        else:
            flow, room = known
            if flow.user_id != sender:
                return  # someone else's verification: not theirs to steer
        await self._apply(flow, room, flow.receive(kind, content, now))

    def _own_dm(self, room_id: str, user_id: str) -> bool:
        kind = self.state.room_kind(room_id)
        return kind is not None and kind[0] in DM_KINDS and kind[1] == user_id

    async def tick(self, now: float) -> bool:
        """Cancel (m.timeout) what waited too long; forget what is over. Whether anything was
        said (the caller flushes the outbox)."""
        told = False
        for txn, (flow, room) in list(self._flows.items()):
            if not flow.finished:
                step = flow.expire(now)
                await self._apply(flow, room, step)
                told = told or step.note is not None
            if flow.finished:
                del self._flows[txn]
        return told

    async def cancel_all(self) -> None:
        """On shutdown: the other side is told rather than left waiting."""
        for flow, room in list(self._flows.values()):
            if not flow.finished:
                await self._apply(flow, room, flow.cancel(USER))

    # --- outgoing ---------------------------------------------------------------------------
    async def _apply(self, flow: SasFlow, room: str | None, step: Step) -> None:
        for kind, content in step.send:
            await self._send_step(flow, room, kind, content)
        if step.note is not None:
            self._tell(flow, room, step)

    async def _send_step(self, flow: SasFlow, room: str | None, kind: str,
                         content: dict[str, Any]) -> None:
        try:
            if room is None:
                r = await self.client.to_device(nio.ToDeviceMessage(
                    kind, flow.user_id, flow.device_id,
                    {**content, "transaction_id": flow.txn}))
                ok = isinstance(r, nio.ToDeviceResponse)
            else:
                rel = {"rel_type": "m.reference", "event_id": flow.txn}
                r = await self.client.room_send(room, kind, {**content, "m.relates_to": rel},
                                                ignore_unverified_devices=True)
                ok = isinstance(r, nio.RoomSendResponse)
        except Exception as e:
            r, ok = repr(e), False
        if not ok:
            log.warning("verification %s: sending %s failed: %s", flow.txn, kind, r)

    def _tell(self, flow: SasFlow, room: str | None, step: Step) -> None:
        """The log line, and the player's DM told what happened (where they can see it)."""
        who = name_of(flow.user_id, self.server)
        if step.note == "sas":
            emoji = " ".join(f"{e}({n})" for e, n in step.emoji)
            decimals = " ".join(f"{d:04d}" for d in step.decimals)
            log.info("verification %s with %s %s: emoji %s; decimals %s", flow.txn,
                     flow.user_id, flow.device_id, emoji, decimals)
            body = msg("verify_sas", player=who, emoji=emoji, decimals=decimals)
        elif step.note == "verified":
            log.info("verification %s: %s %s confirmed; the bot sent its MAC (device and "
                     "master key)", flow.txn, flow.user_id, flow.device_id)
            return
        elif step.note == "done":
            log.info("verification %s with %s %s done", flow.txn, flow.user_id, flow.device_id)
            with_device = self._verified_device(flow)
            if with_device is not None:
                self.client.verify_device(with_device)
            body = msg("verify_done", player=who, device=self.client.device_id)
        else:
            log.info("verification %s with %s %s cancelled by %s: %s %s", flow.txn,
                     flow.user_id, flow.device_id, "them" if step.by_them else "the bot",
                     step.code, step.reason)
            body = msg("verify_cancelled", player=who, reason=_reason(step.code))
        target = room if room is not None else self.state.dm_room(flow.user_id)
        if target is not None:
            self.state.queue(f"verify:{flow.txn}:{step.note}", [(target, render(
                body, self.server, ()))])

    def _verified_device(self, flow: SasFlow) -> Any:
        for d in self.client.device_store.active_user_devices(flow.user_id):
            if d.id == flow.device_id:
                return d
        return None

    def info(self) -> str:
        """What ``!verify`` says in a table room: the bot's keys, and how to compare them."""
        me = self._me()
        return msg("verify_info", user=me.user_id, device=me.device_id,
                   fingerprint=fingerprint(me.ed25519),
                   master=fingerprint(me.master) if me.master else msg("verify_no_master"))


def _reason(code: str) -> str:
    try:
        return msg(f"verify_reason_{code.removeprefix('m.')}")
    except CatalogError:
        return msg("verify_reason_other", code=code)
