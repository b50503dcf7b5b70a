"""The bot's cross-signing keys without a server (referee.adapters.matrix_xsign): what is uploaded
verifies as Matrix requires, the keys survive a save/load, the file is owner-only, and a damaged
file is refused in one line (never silently replaced: it is the bot's identity)."""

from __future__ import annotations

from pathlib import Path

import pytest
from signedjson.key import decode_verify_key_bytes
from signedjson.sign import SignatureVerifyException, verify_signed_json
from unpaddedbase64 import decode_base64

from referee.adapters.matrix_xsign import CrossSigningError, CrossSigningKeys

ME = "@referee:example.org"


def _verify(obj: dict[str, object], pub: str) -> None:
    verify_signed_json(obj, ME, decode_verify_key_bytes(f"ed25519:{pub}", decode_base64(pub)))


def test_upload_body_is_signed_by_the_master_key() -> None:
    keys = CrossSigningKeys.generate(ME)
    body = keys.upload_body()
    master = keys.public("master")
    assert body["master_key"]["keys"] == {f"ed25519:{master}": master}
    assert body["master_key"]["usage"] == ["master"]
    for role, field in (("self_signing", "self_signing_key"), ("user_signing", "user_signing_key")):
        obj = body[field]
        assert obj["usage"] == [role] and obj["user_id"] == ME
        _verify(obj, master)
        with pytest.raises(SignatureVerifyException):
            _verify(obj, keys.public("self_signing" if role == "user_signing" else "user_signing"))
    assert len({keys.public(r) for r in ("master", "self_signing", "user_signing")}) == 3


def test_keys_survive_save_and_load_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "cross-signing.json"
    keys = CrossSigningKeys.generate(ME)
    keys.save(path)
    assert path.stat().st_mode & 0o077 == 0
    again = CrossSigningKeys.load(path, ME)
    assert again is not None
    for role in ("master", "self_signing", "user_signing"):
        assert again.public(role) == keys.public(role)
    assert CrossSigningKeys.load(path, "@someone:else") is None
    assert CrossSigningKeys.load(tmp_path / "missing.json", ME) is None


def test_damaged_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "cross-signing.json"
    path.write_text('{"user_id": "@referee:example.org", "master": "not base64!"}')
    with pytest.raises(CrossSigningError) as e:
        CrossSigningKeys.load(path, ME)
    assert "\n" not in str(e.value) and str(path) in str(e.value)
    assert path.read_text().startswith('{"user_id"')  # left alone
