"""Cross-signing for the bot's own account.

Element (and every client on matrix-sdk-crypto) trusts a device when its owner's cross-signing
identity signed it: without one, each bot message carries a red shield, and a player in
"exclude insecure devices" mode (js-sdk ``OnlySignedDevicesIsolationMode``) cannot read their
hole cards at all. matrix-nio has no API for cross-signing, so this module does it over nio's
HTTP plumbing (``AsyncClient.send``):

* three ed25519 keys -- master, self-signing, user-signing -- generated once and kept in
  ``cross-signing.json`` in the bot's crypto store directory (mode 0600; back it up with the
  store: whoever holds it can vouch for devices as the bot);
* their public parts uploaded with ``POST /keys/device_signing/upload``, answering the
  user-interactive auth the homeserver asks for with the bot's password (``m.login.password``);
  the self-signing and user-signing keys are signed by the master key;
* the bot's current device signed by the self-signing key (``POST /keys/signatures/upload``).

Each start compares with ``/keys/query`` and changes only what differs, so the keys are uploaded
once, a restart re-uploads nothing, and a new device (a reset olm store, a new login) is signed
with the same identity. Lost keys (the file gone) mean a new identity, uploaded over the old
one with the password.

The signing itself is signedjson (canonical JSON + PyNaCl's ed25519, the library Synapse
verifies with), not hand-rolled: the Matrix signing rules (strip ``signatures`` and
``unsigned``, canonical JSON, unpadded base64, key id ``ed25519:<public key>``) are exactly what
it implements, and vodozemac's Python bindings expose no standalone ed25519 key.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signedjson.key import decode_signing_key_base64, encode_signing_key_base64, get_verify_key
from signedjson.sign import sign_json
from signedjson.types import SigningKey
from unpaddedbase64 import encode_base64

log = logging.getLogger("referee.matrix")

KEYS_FILE = "cross-signing.json"
ROLES = ("master", "self_signing", "user_signing")
_API = "/_matrix/client/v3"


class CrossSigningError(RuntimeError):
    """The homeserver refused (or could not be asked); the bot runs on, unsigned."""


class CrossSigningPending(CrossSigningError):
    """Not possible yet (the device's own keys are not on the server): try again soon."""


def _public(key: SigningKey) -> str:
    return encode_base64(get_verify_key(key).encode())


def _new_key() -> SigningKey:
    from nacl.signing import SigningKey as NaclKey

    seed = encode_base64(bytes(NaclKey.generate()))
    probe = decode_signing_key_base64("ed25519", "x", seed)
    # A cross-signing key's id is its own public key ("ed25519:<base64>").
    return decode_signing_key_base64("ed25519", _public(probe), seed)


@dataclass
class CrossSigningKeys:
    user_id: str
    master: SigningKey
    self_signing: SigningKey
    user_signing: SigningKey

    def key(self, role: str) -> SigningKey:
        k: SigningKey = getattr(self, role)
        return k

    def public(self, role: str) -> str:
        return _public(self.key(role))

    @classmethod
    def generate(cls, user_id: str) -> CrossSigningKeys:
        return cls(user_id, _new_key(), _new_key(), _new_key())

    @classmethod
    def load(cls, path: Path, user_id: str) -> CrossSigningKeys | None:
        """The saved keys, or None (no file, or another account's); CrossSigningError if the
        file is unreadable (never replaced silently: it is the bot's identity)."""
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            if data.get("user_id") != user_id:
                return None
            keys = {r: decode_signing_key_base64("ed25519", "x", str(data[r])) for r in ROLES}
            keys = {r: decode_signing_key_base64("ed25519", _public(k), str(data[r]))
                    for r, k in keys.items()}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise CrossSigningError(f"{path}: unreadable cross-signing keys ({e}); restore it "
                                    "from a back-up of the crypto store, or delete it to make a "
                                    "new identity") from None
        return cls(user_id, keys["master"], keys["self_signing"], keys["user_signing"])

    def save(self, path: Path) -> None:
        """Written before anything is uploaded (atomically, owner-only): a key the server has
        must never be one the bot lost."""
        data = {"user_id": self.user_id}
        data.update({r: encode_signing_key_base64(self.key(r)) for r in ROLES})
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    def upload_body(self) -> dict[str, Any]:
        """``/keys/device_signing/upload``'s three key objects (sub-keys signed by master)."""
        def obj(role: str, usage: str) -> dict[str, Any]:
            pub = self.public(role)
            return {"user_id": self.user_id, "usage": [usage], "keys": {f"ed25519:{pub}": pub}}

        master = obj("master", "master")
        ssk = sign_json(obj("self_signing", "self_signing"), self.user_id, self.master)
        usk = sign_json(obj("user_signing", "user_signing"), self.user_id, self.master)
        return {"master_key": master, "self_signing_key": ssk, "user_signing_key": usk}


@dataclass
class CrossSigningResult:
    master: str  # the master key's public part
    uploaded: bool  # the keys were uploaded now (first start, or a new identity)
    signed_device: bool  # the device was signed now


async def _call(client: Any, method: str, path: str,
                body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
    resp = await client.send(
        method, path, json.dumps(body) if body is not None else None,
        headers={"Authorization": f"Bearer {client.access_token}",
                 "Content-Type": "application/json"})
    try:
        status = int(resp.status)
        try:
            data = await resp.json(content_type=None)
        except (ValueError, TypeError):
            data = {}
    finally:
        with contextlib.suppress(Exception):
            resp.release()
    return status, data if isinstance(data, dict) else {}


def _keys_of(obj: Any) -> set[str]:
    return set((obj or {}).get("keys", {}).values()) if isinstance(obj, dict) else set()


async def _upload_keys(client: Any, keys: CrossSigningKeys, password: str | None) -> bool:
    """Upload the public keys; True if the homeserver asked for (and got) the password."""
    body = keys.upload_body()
    status, data = await _call(client, "POST", f"{_API}/keys/device_signing/upload", body)
    if status == 401 and "flows" in data:
        # User-interactive auth: the password stage (what Synapse asks of a password account).
        stages = {s for f in data.get("flows", []) for s in f.get("stages", [])}
        if "m.login.password" not in stages or not password:
            raise CrossSigningError(
                "the homeserver asks for interactive auth to upload cross-signing keys "
                f"({', '.join(sorted(stages)) or 'no stages'}); log the bot in with a password")
        localpart = keys.user_id[1:].partition(":")[0]
        body["auth"] = {
            "type": "m.login.password", "session": data.get("session"),
            "identifier": {"type": "m.id.user", "user": localpart}, "password": password,
        }
        status, data = await _call(client, "POST", f"{_API}/keys/device_signing/upload", body)
    if status != 200:
        raise CrossSigningError(f"cross-signing upload refused: {status} "
                                f"{data.get('errcode', '')} {data.get('error', '')}".strip())
    return "auth" in body


async def _sign_device(client: Any, keys: CrossSigningKeys, device: dict[str, Any]) -> None:
    unsigned = {k: v for k, v in device.items() if k not in ("signatures", "unsigned")}
    signed = sign_json(unsigned, keys.user_id, keys.self_signing)
    body = {keys.user_id: {str(device["device_id"]): signed}}
    status, data = await _call(client, "POST", f"{_API}/keys/signatures/upload", body)
    failures = data.get("failures") or {}
    if status != 200 or failures:
        raise CrossSigningError(f"device signature refused: {status} {failures or data}")


async def ensure_cross_signing(client: Any, user_id: str, device_id: str, store_dir: Path,
                               password: str | None) -> CrossSigningResult:
    """Make the server's cross-signing identity of ``user_id`` the one kept in ``store_dir``,
    and ``device_id`` signed by it; upload only what differs. CrossSigningError on refusal."""
    path = store_dir / KEYS_FILE
    keys = CrossSigningKeys.load(path, user_id)
    if keys is None:
        keys = CrossSigningKeys.generate(user_id)
        keys.save(path)
        log.info("generated cross-signing keys (master %s) in %s", keys.public("master"), path)
    status, data = await _call(client, "POST", f"{_API}/keys/query",
                                {"device_keys": {user_id: []}})
    if status != 200:
        raise CrossSigningPending(f"keys/query failed: {status} {data.get('error', '')}")
    uploaded = False
    have = (_keys_of(data.get("master_keys", {}).get(user_id)),
            _keys_of(data.get("self_signing_keys", {}).get(user_id)))
    if have != ({keys.public("master")}, {keys.public("self_signing")}):
        uia = await _upload_keys(client, keys, password)
        uploaded = True
        log.info("uploaded cross-signing keys (master %s%s)", keys.public("master"),
                 ", with password auth" if uia else "")
    device = (data.get("device_keys", {}).get(user_id) or {}).get(device_id)
    if device is None:
        raise CrossSigningPending(f"device {device_id} has no keys on the server yet")
    ssk_id = f"ed25519:{keys.public('self_signing')}"
    sigs = (device.get("signatures") or {}).get(user_id) or {}
    signed = False
    if uploaded or ssk_id not in sigs:
        await _sign_device(client, keys, device)
        signed = True
        log.info("signed device %s with the self-signing key", device_id)
    return CrossSigningResult(keys.public("master"), uploaded, signed)
