"""The bot's SAS verification steps (referee.adapters.matrix_sas), no homeserver: the other
side is written here from the spec's text (its own vodozemac key, its own commitment check,
its own MAC), so a step that only agrees with itself would fail; the js-sdk players of
test_verification.py check the same against Element's crypto."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
import vodozemac
from canonicaljson import encode_canonical_json

from referee.adapters.matrix_sas import Me, SasFlow, emoji_table

ME = Me("@referee:hs", "BOTDEVICE", "botEd25519Key", "masterPublicKey")
ALICE, PHONE, PHONE_KEY = "@alice:hs", "PHONE", "phoneEd25519Key"
TXN = "$request-event"
START = {"from_device": PHONE, "method": "m.sas.v1",
         "key_agreement_protocols": ["curve25519-hkdf-sha256", "curve25519"],
         "hashes": ["sha256"],
         "message_authentication_codes": ["hkdf-hmac-sha256.v2", "hkdf-hmac-sha256"],
         "short_authentication_string": ["decimal", "emoji"],
         "m.relates_to": {"rel_type": "m.reference", "event_id": TXN}}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


class Player:
    """Alice's phone, started the SAS after the bot was ready (the spec's starter side)."""

    def __init__(self) -> None:
        self.sas = vodozemac.Sas()
        self.key = self.sas.public_key.to_base64()
        self.est: Any = None

    def receive_key(self, bot_key: str, commitment: str, start: dict[str, Any]) -> None:
        # the accepter committed to its key before seeing ours
        assert commitment == _b64(hashlib.sha256(bot_key.encode() + encode_canonical_json(start))
                                  .digest())
        self.est = self.sas.diffie_hellman(vodozemac.Curve25519PublicKey.from_base64(bot_key))
        self.bot_key = bot_key

    def sas_bytes(self) -> Any:
        info = (f"MATRIX_KEY_VERIFICATION_SAS|{ALICE}|{PHONE}|{self.key}|"
                f"{ME.user_id}|{ME.device_id}|{self.bot_key}|{TXN}")
        return self.est.bytes(info)

    def mac(self, device_key: str = PHONE_KEY) -> dict[str, Any]:
        info = f"MATRIX_KEY_VERIFICATION_MAC{ALICE}{PHONE}{ME.user_id}{ME.device_id}{TXN}"
        kid = f"ed25519:{PHONE}"
        return {"mac": {kid: self.est.calculate_mac(device_key, info + kid)},
                "keys": self.est.calculate_mac(kid, info + "KEY_IDS")}

    def check_bot_mac(self, content: dict[str, Any]) -> None:
        info = f"MATRIX_KEY_VERIFICATION_MAC{ME.user_id}{ME.device_id}{ALICE}{PHONE}{TXN}"
        want = {f"ed25519:{ME.device_id}": ME.ed25519, f"ed25519:{ME.master}": ME.master}
        assert set(content["mac"]) == set(want)  # the device *and* the master key
        for kid, value in want.items():
            assert content["mac"][kid] == self.est.calculate_mac(value, info + kid)
        assert content["keys"] == self.est.calculate_mac(",".join(sorted(want)),
                                                         info + "KEY_IDS")


def _flow(now: float = 0.0) -> SasFlow:
    return SasFlow(ME, ALICE, PHONE, PHONE_KEY, TXN, now, timeout=60.0)


def _to_sas(flow: SasFlow, player: Player) -> Any:
    ready = flow.receive("request", {"from_device": PHONE,
                                     "methods": ["m.sas.v1", "m.qr_code.show.v1"]}, 1.0)
    assert [k for k, _ in ready.send] == ["m.key.verification.ready"]
    assert ready.send[0][1] == {"from_device": ME.device_id, "methods": ["m.sas.v1"]}
    accept = flow.receive("start", START, 2.0)
    (kind, content), = accept.send
    assert kind == "m.key.verification.accept"
    assert content["message_authentication_code"] == "hkdf-hmac-sha256.v2"
    assert content["key_agreement_protocol"] == "curve25519-hkdf-sha256"
    key = flow.receive("key", {"key": player.key}, 3.0)
    (kind, bot_key), = key.send
    assert kind == "m.key.verification.key"
    player.receive_key(bot_key["key"], content["commitment"], START)
    return key


def test_the_whole_verification() -> None:
    flow, player = _flow(), Player()
    shown = _to_sas(flow, player)
    sas = player.sas_bytes()
    table = emoji_table()
    assert shown.note == "sas"
    assert shown.emoji == [table[i] for i in sas.emoji_indices]  # what the player's screen shows
    assert shown.decimals == tuple(sas.decimals)
    mac = flow.receive("mac", player.mac(), 4.0)
    assert [k for k, _ in mac.send] == ["m.key.verification.mac", "m.key.verification.done"]
    assert mac.note == "verified"
    player.check_bot_mac(mac.send[0][1])
    done = flow.receive("done", {}, 5.0)
    assert done.note == "done" and flow.finished and flow.state == "done"


def test_a_wrong_mac_cancels_with_key_mismatch() -> None:
    flow, player = _flow(), Player()
    _to_sas(flow, player)
    step = flow.receive("mac", player.mac(device_key="someoneElsesKey"), 4.0)
    assert step.note == "cancelled" and step.code == "m.key_mismatch"
    assert step.send == [("m.key.verification.cancel",
                          {"code": "m.key_mismatch", "reason": step.reason})]
    assert flow.receive("done", {}, 5.0).send == []  # nothing more after a cancel


def test_the_player_saying_they_differ() -> None:
    flow, player = _flow(), Player()
    _to_sas(flow, player)
    step = flow.receive("cancel", {"code": "m.mismatched_sas", "reason": "The SAS did not match"},
                        4.0)
    assert step.note == "cancelled" and step.by_them and step.code == "m.mismatched_sas"
    assert step.send == []  # their cancel is not answered


@pytest.mark.parametrize(("kind", "content"), [
    ("request", {"from_device": PHONE, "methods": ["m.qr_code.show.v1", "m.reciprocate.v1"]}),
    ("start", {**START, "method": "m.reciprocate.v1"}),
    ("start", {**START, "short_authentication_string": ["pictures"]}),
    ("start", {**START, "message_authentication_codes": ["hmac-sha512"]}),
])
def test_an_unsupported_method_is_refused(kind: str, content: dict[str, Any]) -> None:
    step = _flow().receive(kind, content, 1.0)
    assert step.code == "m.unknown_method" and step.send[0][0] == "m.key.verification.cancel"


def test_an_unanswered_request_times_out() -> None:
    flow = _flow(now=100.0)
    flow.receive("request", {"from_device": PHONE, "methods": ["m.sas.v1"]}, 100.0)
    assert flow.expire(159.0).send == []
    step = flow.expire(160.0)
    assert step.code == "m.timeout" and step.send[0][1]["code"] == "m.timeout"
    assert flow.finished and flow.expire(500.0).send == []


def test_steps_out_of_order_are_unexpected() -> None:
    flow = _flow()
    flow.receive("request", {"from_device": PHONE, "methods": ["m.sas.v1"]}, 1.0)
    step = flow.receive("mac", {"mac": {f"ed25519:{PHONE}": "x"}, "keys": "y"}, 2.0)  # no key yet
    assert step.code == "m.unexpected_message"


def test_a_malformed_message_is_invalid() -> None:
    flow = _flow()
    flow.receive("request", {"from_device": PHONE, "methods": ["m.sas.v1"]}, 1.0)
    flow.receive("start", START, 2.0)
    assert flow.receive("key", {"key": "not a key"}, 3.0).code == "m.invalid_message"


def test_the_old_mac_method_uses_libolms_base64() -> None:
    """Older clients offer only "hkdf-hmac-sha256": libolm's MAC, whose base64 was broken and is
    kept so for them (vodozemac's calculate_mac_invalid_base64)."""
    flow, player = _flow(), Player()
    flow.receive("request", {"from_device": PHONE, "methods": ["m.sas.v1"]}, 1.0)
    start = {**START, "message_authentication_codes": ["hkdf-hmac-sha256"]}
    accept = flow.receive("start", start, 2.0)
    assert accept.send[0][1]["message_authentication_code"] == "hkdf-hmac-sha256"
    key = flow.receive("key", {"key": player.key}, 3.0)
    player.receive_key(key.send[0][1]["key"], accept.send[0][1]["commitment"], start)
    info = f"MATRIX_KEY_VERIFICATION_MAC{ALICE}{PHONE}{ME.user_id}{ME.device_id}{TXN}"
    kid = f"ed25519:{PHONE}"
    mac = {"mac": {kid: player.est.calculate_mac_invalid_base64(PHONE_KEY, info + kid)},
           "keys": player.est.calculate_mac_invalid_base64(kid, info + "KEY_IDS")}
    assert flow.receive("mac", mac, 4.0).note == "verified"
