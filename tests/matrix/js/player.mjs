// A Matrix test player on matrix-js-sdk with its Rust crypto (matrix-sdk-crypto-wasm: what Element
// Web runs), driven by tests/matrix/js_player.py over stdin/stdout.
//
//   node player.mjs '{"baseUrl": ..., "user": "alice", "password": ..., "isolation": "all"|"signed"}'
//
// Out (stdout), one JSON object per line after the marker "@@ " (the SDK's own logging may share
// stdout; lines without the marker are not ours):
//   {"ev": "ready", "userId", "deviceId"}
//   {"ev": "msg", "room", "sender", "eventId", "body", "msgtype", "encrypted", "failure"}
//        -- every m.room.message seen, again when a failed decryption later succeeds
//   {"ev": "reply", "id", "ok": true, ...result} | {"ev": "reply", "id", "ok": false, "error"}
// In (stdin), one JSON command per line, each answered by a "reply":
//   {"id", "cmd": "say", "room", "text"}                -> {"eventId"}
//   {"id", "cmd": "dm", "invite"}                       -> {"room"} (encrypted, is_direct)
//   {"id", "cmd": "device", "userId", "deviceId"}       -> the DeviceVerificationStatus fields
//   {"id", "cmd": "withhold", "on": bool}               -> globalBlacklistUnverifiedDevices
//   {"id", "cmd": "verify", "userId", "room"|"deviceId", "answer": "confirm"|"mismatch"|"none"}
//        -> {"phase", "emoji", "decimals", "cancelCode", "error"}: asks to verify the user in the
//           DM room (Element's "Verify user") or that device ("Verify session"), starts SAS once
//           the other side is ready and answers the emoji as told ("none": never starts; waits
//           for the other side to cancel)
//   {"id", "cmd": "user", "userId"}                     -> the UserVerificationStatus fields
//   {"id", "cmd": "shield", "room", "eventId"}          -> the event's shield colour and reason
// With "xsign": true in the config the player bootstraps its own cross-signing identity (as
// Element does at first login), so verifying someone signs their master key.
//   {"id", "cmd": "stop"}
import * as readline from "node:readline";

// The newest matrix-js-sdk wants Node 22 (Promise.withResolvers); these machines run Node 20, on
// which that release otherwise stops at its first sync. The standard semantics, for running it
// here (a no-op on Node 22 and on the pinned release).
if (!Promise.withResolvers) {
    Promise.withResolvers = function () {
        let resolve, reject;
        const promise = new this((a, b) => {
            resolve = a;
            reject = b;
        });
        return { promise, resolve, reject };
    };
}

import * as sdk from "matrix-js-sdk";
import { logger } from "matrix-js-sdk/lib/logger.js";
import {
    AllDevicesIsolationMode,
    OnlySignedDevicesIsolationMode,
    VerificationPhase,
    VerificationRequestEvent,
    VerifierEvent,
} from "matrix-js-sdk/lib/crypto-api/index.js";

logger.setLevel(process.env.PLAYER_LOG || "error");

const cfg = JSON.parse(process.argv[2]);
const out = (obj) => process.stdout.write("@@ " + JSON.stringify(obj) + "\n");

async function login() {
    const r = await fetch(cfg.baseUrl + "/_matrix/client/v3/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
            type: "m.login.password",
            identifier: { type: "m.id.user", user: cfg.user },
            password: cfg.password,
            initial_device_display_name: "js-sdk test player",
        }),
    });
    if (!r.ok) throw new Error(`login: ${r.status} ${await r.text()}`);
    return r.json();
}

const session = await login();
const client = sdk.createClient({
    baseUrl: cfg.baseUrl,
    userId: session.user_id,
    accessToken: session.access_token,
    deviceId: session.device_id,
});
await client.initRustCrypto({ useIndexedDB: false });
const crypto = client.getCrypto();
crypto.setDeviceIsolationMode(
    cfg.isolation === "signed"
        ? new OnlySignedDevicesIsolationMode()
        : new AllDevicesIsolationMode(false),
);

const seen = new Map(); // eventId -> reported decrypted?

function report(event) {
    const id = event.getId();
    const failure = event.isDecryptionFailure() ? String(event.decryptionFailureReason) : null;
    const ok = failure === null && event.getType() === "m.room.message";
    if (!ok && failure === null) return; // another type, or a decryption still under way
    if (seen.get(id) === true || (seen.has(id) && !ok)) return;
    seen.set(id, ok);
    const content = ok ? event.getContent() : {};
    out({
        ev: "msg",
        room: event.getRoomId(),
        sender: event.getSender(),
        eventId: id,
        body: content.body ?? "",
        msgtype: content.msgtype ?? "",
        encrypted: event.isEncrypted(),
        failure,
        ts: event.getTs(),
    });
}

client.on(sdk.RoomEvent.Timeline, (event) => report(event));
client.on(sdk.MatrixEventEvent.Decrypted, (event) => report(event));
const joining = new Set();
function joinInvited(roomId) {
    if (joining.has(roomId)) return;
    joining.add(roomId);
    client.joinRoom(roomId).catch((e) => process.stderr.write(`join ${roomId}: ${e}\n`));
}
client.on(sdk.RoomMemberEvent.Membership, (_event, member) => {
    if (member.userId === session.user_id && member.membership === "invite") joinInvited(member.roomId);
});
// (newer releases announce an invite as the room's own membership rather than a member event)
client.on(sdk.RoomEvent.MyMembership, (room, membership) => {
    if (membership === "invite") joinInvited(room.roomId);
});

function until(request, test, ms) {
    return new Promise((resolve) => {
        const check = () => {
            if (test()) {
                request.off(VerificationRequestEvent.Change, check);
                clearTimeout(timer);
                resolve(true);
            }
        };
        const timer = setTimeout(() => {
            request.off(VerificationRequestEvent.Change, check);
            resolve(false);
        }, ms);
        request.on(VerificationRequestEvent.Change, check);
        check();
    });
}

async function verify(cmd) {
    const request = cmd.room
        ? await crypto.requestVerificationDM(cmd.userId, cmd.room)
        : await crypto.requestDeviceVerification(cmd.userId, cmd.deviceId);
    const ms = cmd.waitMs ?? 60000;
    const over = () =>
        request.phase === VerificationPhase.Cancelled || request.phase === VerificationPhase.Done;
    const result = (extra) => ({
        phase: VerificationPhase[request.phase] ?? String(request.phase),
        cancelCode: request.cancellationCode ?? null,
        transactionId: request.transactionId ?? null,
        ...extra,
    });
    await until(request, () => over() || request.phase === VerificationPhase.Ready, ms);
    if (over() || cmd.answer === "none") {
        await until(request, over, ms);
        return result({});
    }
    const verifier = await request.startVerification("m.sas.v1");
    let shown = null;
    verifier.on(VerifierEvent.ShowSas, (sas) => {
        shown = sas.sas;
        if (cmd.answer === "mismatch") sas.mismatch();
        else sas.confirm().catch((e) => out({ ev: "log", error: String(e) }));
    });
    let error = null;
    // bounded like the other waits, so a flow that stalls comes back with its phase instead of
    // outliving the caller's timeout
    let timer = null;
    const stalled = new Promise((resolve) => {
        timer = setTimeout(() => resolve("the verifier did not finish"), ms);
    });
    try {
        error = await Promise.race([verifier.verify().then(() => null), stalled]);
    } catch (e) {
        error = String(e);
    } finally {
        clearTimeout(timer);
    }
    await until(request, over, ms);
    return result({
        emoji: shown?.emoji ? shown.emoji.map((e) => e[0]) : null,
        decimals: shown?.decimal ?? null,
        error,
    });
}

async function handle(cmd) {
    switch (cmd.cmd) {
        case "say": {
            const r = await client.sendMessage(cmd.room, { msgtype: "m.text", body: cmd.text });
            return { eventId: r.event_id };
        }
        case "dm": {
            const r = await client.createRoom({
                is_direct: true,
                invite: [cmd.invite],
                preset: "trusted_private_chat",
                initial_state: [
                    {
                        type: "m.room.encryption",
                        state_key: "",
                        content: { algorithm: "m.megolm.v1.aes-sha2" },
                    },
                ],
            });
            return { room: r.room_id };
        }
        case "device": {
            await crypto.getUserDeviceInfo([cmd.userId], true);
            const s = await crypto.getDeviceVerificationStatus(cmd.userId, cmd.deviceId);
            const u = await crypto.getUserVerificationStatus(cmd.userId);
            return {
                found: s !== null,
                signedByOwner: s ? s.signedByOwner : false,
                crossSigningVerified: s ? s.crossSigningVerified : false,
                localVerified: s ? s.localVerified : false,
                isVerified: s ? s.isVerified() : false,
                userCrossSigned: u ? u.isCrossSigningVerified() || u.wasCrossSigningVerified() : false,
            };
        }
        case "verify":
            return await verify(cmd);
        case "user": {
            await crypto.getUserDeviceInfo([cmd.userId], true);
            const u = await crypto.getUserVerificationStatus(cmd.userId);
            return {
                isVerified: u.isVerified(),
                isCrossSigningVerified: u.isCrossSigningVerified(),
            };
        }
        case "shield": {
            const ev = client.getRoom(cmd.room)?.findEventById(cmd.eventId);
            if (!ev) throw new Error(`no event ${cmd.eventId}`);
            const info = await crypto.getEncryptionInfoForEvent(ev);
            return { shieldColour: info?.shieldColour ?? null, shieldReason: info?.shieldReason ?? null };
        }
        case "withhold":
            crypto.globalBlacklistUnverifiedDevices = Boolean(cmd.on);
            return { on: crypto.globalBlacklistUnverifiedDevices };
        case "stop":
            client.stopClient();
            setTimeout(() => process.exit(0), 100);
            return {};
        default:
            throw new Error(`unknown command ${cmd.cmd}`);
    }
}

client.once(sdk.ClientEvent.Sync, async (state) => {
    if (cfg.xsign) {
        await crypto.bootstrapCrossSigning({
            authUploadDeviceSigningKeys: async (makeRequest) => {
                await makeRequest({
                    type: "m.login.password",
                    identifier: { type: "m.id.user", user: cfg.user },
                    password: cfg.password,
                });
            },
        });
    }
    out({ ev: "ready", userId: session.user_id, deviceId: session.device_id, state });
});
await client.startClient({ initialSyncLimit: 50 });

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", async (line) => {
    if (!line.trim()) return;
    let cmd;
    try {
        cmd = JSON.parse(line);
        const result = await handle(cmd);
        out({ ev: "reply", id: cmd.id, ok: true, ...result });
    } catch (e) {
        out({ ev: "reply", id: cmd ? cmd.id : null, ok: false, error: String(e?.stack || e) });
    }
});
rl.on("close", () => {
    client.stopClient();
    process.exit(0);
});
