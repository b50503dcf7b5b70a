"""The bot's own cross-signing identity on the real Synapse: uploaded on the first
login (the sub-keys signed by the master key, the device by the self-signing key), unchanged and
not re-uploaded by a restart, a new device signed with the same identity after the olm store is
reset, and a lost identity replaced through the password's interactive auth."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from matrix_helpers import BotProcess, run, wait_for
from signedjson.key import decode_verify_key_bytes
from signedjson.sign import verify_signed_json
from synapse_server import Synapse
from unpaddedbase64 import decode_base64

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]


def _verify(obj: dict[str, Any], user_id: str, pub: str) -> None:
    key = decode_verify_key_bytes(f"ed25519:{pub}", decode_base64(pub))
    verify_signed_json(obj, user_id, key)  # raises SignatureVerifyException


def _identity(hs: Synapse, token: str, user_id: str) -> dict[str, Any]:
    """What any client sees: the master key, and the device(s) it vouches for."""
    q = hs.request("POST", "/_matrix/client/v3/keys/query",
                   {"device_keys": {user_id: []}}, token=token)
    master = q["master_keys"][user_id]
    ssk = q["self_signing_keys"][user_id]
    (mpub,) = master["keys"].values()
    (spub,) = ssk["keys"].values()
    _verify(ssk, user_id, mpub)
    signed = []
    for dev_id, dev in q["device_keys"][user_id].items():
        try:
            _verify(dev, user_id, spub)
            signed.append(dev_id)
        except Exception:
            pass
    return {"master": mpub, "ssk": spub, "signed": signed}


def _device(bot: BotProcess) -> str:
    row = sqlite3.connect(bot.db).execute(
        "SELECT value FROM matrix_kv WHERE key = 'session'").fetchone()
    return str(json.loads(row[0])["device_id"])


def test_cross_signing_identity(synapse: Synapse, tmp_path: Path) -> None:
    async def scenario() -> None:
        user = synapse.register("refxsign")
        viewer = synapse.register("xviewer")
        bot = BotProcess(synapse, user, tmp_path / "bot.db", [])
        crypto = tmp_path / "bot-crypto"
        try:
            async def started(n: int) -> None:
                await wait_for(lambda: bot.log_text().count("cross-signing identity") >= n
                               or not bot.alive(), 90, "the bot's cross-signing")
                assert bot.alive(), bot.log_text()[-2000:]

            bot.start()
            await started(1)
            first = _identity(synapse, viewer.access_token, user.user_id)
            dev1 = _device(bot)
            assert first["signed"] == [dev1]
            assert (crypto / "cross-signing.json").stat().st_mode & 0o077 == 0
            # A restart: same identity, nothing uploaded or signed again.
            bot.stop()
            bot.start()
            await started(2)
            assert _identity(synapse, viewer.access_token, user.user_id) == first
            assert bot.log_text().count("uploaded cross-signing keys") == 1
            assert bot.log_text().count("signed device") == 1
            # The olm store reset (a new login, a new device): signed by the same identity.
            bot.stop()
            with sqlite3.connect(bot.db) as c:
                c.execute("DELETE FROM matrix_kv WHERE key IN ('session', 'next_batch')")
            for f in crypto.iterdir():
                if f.name != "cross-signing.json":
                    f.unlink() if f.is_file() else shutil.rmtree(f)
            bot.start()
            await started(3)
            dev2 = _device(bot)
            assert dev2 != dev1
            after = _identity(synapse, viewer.access_token, user.user_id)
            assert after["master"] == first["master"] and dev2 in after["signed"]
            assert bot.log_text().count("uploaded cross-signing keys") == 1
            # The identity itself lost: a new one replaces it (Synapse asks for the password).
            bot.stop()
            (crypto / "cross-signing.json").unlink()
            bot.start()
            await started(4)
            new = _identity(synapse, viewer.access_token, user.user_id)
            assert new["master"] != first["master"] and dev2 in new["signed"]
            assert bot.log_text().count("uploaded cross-signing keys") == 2
            assert bot.log_text().count(", with password auth)") == 1
        finally:
            bot.stop()

    run(scenario())
