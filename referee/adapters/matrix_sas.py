"""SAS (short authentication string) verification of the bot, as a pure state machine.

A player's client (Element: "Verify user" in the DM, "Verify session" to-device) asks the bot
to verify; the bot answers as the *responder*: ``ready``, then ``accept`` when the player's
client sends ``start``, its ephemeral key, and -- once the player confirmed the emoji and their
client sent its MAC, which the bot checks -- its own MAC and ``done``. The bot's MAC covers its
device key *and* its cross-signing master key, so a verifying client signs the bot's identity
with its user-signing key and trusts every device that identity signed (the spec's
"cross-signing verification" of the user).

The same flow serves both transports: to-device messages carry ``transaction_id``; in-room
events (in the DM) carry ``m.relates_to`` to the request event, whose id is then the
transaction id. No I/O here: each step returns the messages to send and what to tell people
(:class:`Step`); the adapter (:mod:`matrix_verify`) sends them. The cryptography is vodozemac's
(X25519 agreement, HKDF for the SAS bytes, HMAC for the MACs) -- nio's own ``Sas`` helper is not
used because its commitment is hex (the spec says unpadded base64) and it MACs with the
corrected base64 under the old method's name, so Element's clients reject it.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

import vodozemac
from canonicaljson import encode_canonical_json

SAS_METHOD = "m.sas.v1"
KEY_AGREEMENT = "curve25519-hkdf-sha256"
HASH = "sha256"
# Preferred first. The plain "hkdf-hmac-sha256" is libolm's MAC with its broken base64
# (vodozemac keeps it as calculate_mac_invalid_base64); the others are the corrected one.
MACS = ("hkdf-hmac-sha256.v2", "org.matrix.msc3783.hkdf-hmac-sha256", "hkdf-hmac-sha256")
SAS_KINDS = ("emoji", "decimal")
PREFIX = "m.key.verification."
REQUEST_MSGTYPE = "m.key.verification.request"

# Cancel codes of the spec, with the reason text sent along (English: it is protocol).
TIMEOUT = ("m.timeout", "The verification timed out")
UNKNOWN_METHOD = ("m.unknown_method", "Only SAS (m.sas.v1) with emoji or decimals is supported")
UNEXPECTED = ("m.unexpected_message", "Unexpected verification message")
KEY_MISMATCH = ("m.key_mismatch", "The keys did not match")
COMMITMENT = ("m.mismatched_commitment", "The commitment did not match")
INVALID = ("m.invalid_message", "Malformed verification message")
USER = ("m.user", "Cancelled")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def emoji_table() -> list[tuple[str, str]]:
    """The spec's 64 SAS emoji with their English names (nio carries the table)."""
    from nio.crypto.sas import Sas  # type: ignore[import-untyped]

    table: list[tuple[str, str]] = list(Sas.emoji)
    return table


@dataclass(frozen=True)
class Me:
    """The bot's side: its user and device, the device's ed25519 key and (when it has one) the
    public key of its cross-signing master key."""

    user_id: str
    device_id: str
    ed25519: str
    master: str | None = None


@dataclass
class Step:
    """What one received message leads to: messages to send (type, content without the
    transaction reference) and a note for people (``sas``, ``verified``, ``done``,
    ``cancelled``)."""

    send: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    note: str | None = None
    code: str = ""
    reason: str = ""
    emoji: list[tuple[str, str]] = field(default_factory=list)
    decimals: tuple[int, ...] = ()
    by_them: bool = False


class SasFlow:
    """One verification with one device of another user (the bot always responds)."""

    def __init__(self, me: Me, user_id: str, device_id: str, their_ed25519: str | None,
                 txn: str, now: float, timeout: float) -> None:
        self.me = me
        self.user_id, self.device_id = user_id, device_id
        self.their_ed25519 = their_ed25519
        self.txn = txn
        self.timeout = timeout
        self.last = now
        self.state = "requested"  # ready, accepted, keyed, macs, done, cancelled
        self._sas = vodozemac.Sas()
        self._est: Any = None
        self._start: dict[str, Any] = {}
        self._mac_method = ""
        self._their_key = ""
        self.kinds: list[str] = []

    @property
    def finished(self) -> bool:
        return self.state in ("done", "cancelled")

    def cancel(self, why: tuple[str, str]) -> Step:
        self.state = "cancelled"
        code, reason = why
        return Step([("m.key.verification.cancel", {"code": code, "reason": reason})],
                    "cancelled", code, reason)

    # --- the messages of the other side ---------------------------------------------------
    def receive(self, kind: str, content: dict[str, Any], now: float) -> Step:
        """``kind``: the event type without ``m.key.verification.`` (``request``, ``start``…)."""
        if self.finished:
            return Step()
        self.last = now
        handler = {"request": self._request, "start": self._on_start, "key": self._on_key,
                   "mac": self._on_mac, "done": self._on_done, "cancel": self._on_cancel,
                   "ready": self._unexpected, "accept": self._unexpected}.get(kind)
        if handler is None:
            return Step()
        try:
            return handler(content)
        except (KeyError, TypeError, ValueError, vodozemac.KeyException, vodozemac.SasException):
            return self.cancel(INVALID)

    def expire(self, now: float) -> Step:
        """A cancel with m.timeout when nothing came for ``timeout`` seconds."""
        if self.finished or now - self.last < self.timeout:
            return Step()
        return self.cancel(TIMEOUT)

    def _unexpected(self, content: dict[str, Any]) -> Step:
        return self.cancel(UNEXPECTED)

    def _request(self, content: dict[str, Any]) -> Step:
        if self.state != "requested":
            return self.cancel(UNEXPECTED)
        if SAS_METHOD not in (content.get("methods") or []):
            return self.cancel(UNKNOWN_METHOD)
        self.state = "ready"
        return Step([("m.key.verification.ready",
                      {"from_device": self.me.device_id, "methods": [SAS_METHOD]})])

    def _on_start(self, content: dict[str, Any]) -> Step:
        if self.state not in ("requested", "ready"):  # "requested": a start with no request
            return self.cancel(UNEXPECTED)
        macs = [m for m in MACS if m in (content.get("message_authentication_codes") or [])]
        kinds = [k for k in SAS_KINDS if k in (content.get("short_authentication_string")
                                                or [])]
        if (content.get("method") != SAS_METHOD
                or KEY_AGREEMENT not in (content.get("key_agreement_protocols") or [])
                or HASH not in (content.get("hashes") or []) or not macs or not kinds):
            return self.cancel(UNKNOWN_METHOD)
        self._start = content
        self._mac_method = macs[0]
        self.kinds = kinds
        ours = self._sas.public_key.to_base64()
        commitment = _b64(hashlib.sha256(ours.encode() + encode_canonical_json(content))
                          .digest())
        self.state = "accepted"
        return Step([("m.key.verification.accept", {
            "method": SAS_METHOD, "key_agreement_protocol": KEY_AGREEMENT, "hash": HASH,
            "message_authentication_code": self._mac_method,
            "short_authentication_string": kinds, "commitment": commitment})])

    def _on_key(self, content: dict[str, Any]) -> Step:
        if self.state != "accepted":
            return self.cancel(UNEXPECTED)
        self._their_key = str(content["key"])
        ours = self._sas.public_key.to_base64()
        self._est = self._sas.diffie_hellman(
            vodozemac.Curve25519PublicKey.from_base64(self._their_key))
        # The starter (the player's device) first, then the accepter (the bot).
        info = (f"MATRIX_KEY_VERIFICATION_SAS|{self.user_id}|{self.device_id}|"
                f"{self._their_key}|{self.me.user_id}|{self.me.device_id}|{ours}|{self.txn}")
        sas_bytes = self._est.bytes(info)
        table = emoji_table()
        self.state = "keyed"
        return Step([("m.key.verification.key", {"key": ours})], "sas",
                    emoji=[table[i] for i in sas_bytes.emoji_indices],
                    decimals=tuple(sas_bytes.decimals))

    def _mac(self, value: str, info: str) -> str:
        if self._mac_method == "hkdf-hmac-sha256":
            return str(self._est.calculate_mac_invalid_base64(value, info))
        return str(self._est.calculate_mac(value, info))

    def _on_mac(self, content: dict[str, Any]) -> Step:
        """Their MAC: sent once the player confirmed the emoji. Checked against their device
        key; then the bot's own MAC (device and master key) and ``done``."""
        if self.state != "keyed":
            return self.cancel(UNEXPECTED)
        macs: dict[str, str] = dict(content["mac"])
        theirs = (f"MATRIX_KEY_VERIFICATION_MAC{self.user_id}{self.device_id}"
                  f"{self.me.user_id}{self.me.device_id}{self.txn}")
        if self._mac(",".join(sorted(macs)), theirs + "KEY_IDS") != content["keys"]:
            return self.cancel(KEY_MISMATCH)
        device_key = f"ed25519:{self.device_id}"
        if (self.their_ed25519 is None or device_key not in macs
                or self._mac(self.their_ed25519, theirs + device_key) != macs[device_key]):
            return self.cancel(KEY_MISMATCH)
        ours = (f"MATRIX_KEY_VERIFICATION_MAC{self.me.user_id}{self.me.device_id}"
                f"{self.user_id}{self.device_id}{self.txn}")
        keys = {f"ed25519:{self.me.device_id}": self.me.ed25519}
        if self.me.master:
            keys[f"ed25519:{self.me.master}"] = self.me.master
        mac = {kid: self._mac(value, ours + kid) for kid, value in keys.items()}
        self.state = "macs"
        return Step([("m.key.verification.mac",
                      {"mac": mac, "keys": self._mac(",".join(sorted(keys)), ours + "KEY_IDS")}),
                     ("m.key.verification.done", {})], "verified")

    def _on_done(self, content: dict[str, Any]) -> Step:
        if self.state != "macs":
            return self.cancel(UNEXPECTED)
        self.state = "done"
        return Step(note="done")

    def _on_cancel(self, content: dict[str, Any]) -> Step:
        self.state = "cancelled"
        return Step(note="cancelled", code=str(content.get("code", "")),
                    reason=str(content.get("reason", "")), by_them=True)
