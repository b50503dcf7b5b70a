"""The IRC identity book without a server: secrets (scrypt, salted), proven connections kept in
a real SQLite file across a reopen, nick changes and quits, accounts."""

from __future__ import annotations

from pathlib import Path

from referee.adapters.irc import casefold
from referee.adapters.irc_identity import Book, Whois, pass_args
from referee.lang.reader import is_secret, redacted
from referee.store import Store
from referee.store.identity import Identities, hash_secret, valid_secret, verify_secret


def book(store: Store, known: list[str] | None = None) -> Book:
    return Book(Identities(store.conn), casefold, lambda: known or [])


def whois(nick: str, signon: int, host: str = "127.0.0.1") -> Whois:
    return Whois(nick=nick, user=nick.rstrip("_"), host=host, signon=signon, exists=True)


def test_secrets_are_salted_scrypt_digests(tmp_path: Path) -> None:
    salt, digest, params = hash_secret("hunter22")
    assert params.startswith("scrypt:") and len(salt) == 16 and len(digest) == 32
    assert verify_secret("hunter22", salt, digest, params)
    assert not verify_secret("hunter23", salt, digest, params)
    assert hash_secret("hunter22")[1] != digest  # a fresh salt each time
    assert not verify_secret("x", salt, digest, "md5:whatever")
    with Store(tmp_path / "s.db") as st:
        ids = Identities(st.conn)
        ids.set_secret("alice", "Alice", "hunter22")
        raw = st.conn.execute("SELECT * FROM irc_secrets").fetchall()
        assert b"hunter22" not in repr(raw).encode()  # never stored as typed
    with Store(tmp_path / "s.db") as st:
        ids = Identities(st.conn)
        assert ids.check_secret("alice", "hunter22") and not ids.check_secret("alice", "nope")
        assert ids.display("alice") == "Alice" and not ids.has_secret("bob")
    assert valid_secret("abcd") and not valid_secret("abc") and not valid_secret("ab cd")


def test_pass_args() -> None:
    assert pass_args("!pass abc") == ["abc"]
    assert pass_args("！合言葉 @alice abc") == ["@alice", "abc"]
    assert pass_args("!PASS a b") == ["a", "b"]
    assert pass_args("!passport x") is None
    assert pass_args("手札") is None


def test_a_proven_connection_survives_a_restart_but_not_a_new_connection(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    with Store(db) as st:
        b = book(st, ["alice"])
        b.prove("alice", "alice", whois("alice", 1000))
        assert b.of_nick("ALICE") == ("alice", "secret") and b.nick_of("alice") == "alice"
        assert b.renamed("alice", "alice_") == "alice"
        assert b.nick_of("alice") == "alice_" and b.of_nick("alice") is None
    with Store(db) as st:  # a restart of the bot: nothing in memory
        b = book(st, ["alice"])
        assert b.nick_of("alice") is None and b.of_nick("alice_") is None
        # a stranger who took the old nick: a later sign-on, not the proven connection
        assert b.restore("alice", whois("alice", 2000)) is None
        assert b.of_nick("alice") is None
        # the same user@host and sign-on second under another nick: a second connection
        # through the same gateway in the same second (or the real one, renamed while the bot
        # was down: nothing tells them apart), never the proven one
        assert b.restore("ally", whois("alice_", 1000)) is None
        assert b.of_nick("ally") is None and b.nick_of("alice") is None
        # the real one, under the nick the bot last saw it with
        s = b.restore("alice_", whois("alice_", 1000))
        assert s is not None and s.display == "alice" and b.nick_of("alice") == "alice_"
        assert b.quit("alice_") == "alice"
        assert b.nick_of("alice") is None
    with Store(db) as st:  # a QUIT ends the proof for good
        b = book(st, ["alice"])
        assert b.restore("alice_", whois("alice_", 1000)) is None
        assert b.saved() == []


def test_one_player_per_connection_and_accounts(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as st:
        b = book(st, ["Bob"])
        b.prove("carol", "x", whois("x", 5))
        b.prove("dave", "x", whois("x", 5))  # the same connection proves another name
        assert b.of_nick("x") == ("dave", "secret") and b.nick_of("carol") is None
        b.set_account("bobby", "bob")
        assert b.of_nick("bobby") == ("Bob", "account") and b.nick_of("bob") == "bobby"
        assert b.renamed("bobby", "bob_") == "Bob" and b.nick_of("Bob") == "bob_"
        b.set_account("bob_", "*")  # logged out
        assert b.of_nick("bob_") is None and b.nick_of("bob") is None
        b.set_account("b", "bob")
        b.lost()  # the bot's connection ended: nothing proven until re-checked
        assert b.of_nick("b") is None and b.nick_of("dave") is None
        assert [s.display for s in b.saved()] == ["dave"]
        assert b.held_by_other("zz", "dave") is False


def test_a_connection_without_sign_on_time_is_not_persisted(tmp_path: Path) -> None:
    with Store(tmp_path / "d.db") as st:
        b = book(st)
        b.prove("eve", "eve", Whois(nick="eve"))
        assert b.nick_of("eve") == "eve"  # proven for this run ...
        assert b.saved() == []  # ... but nothing a later connection could match


def test_secret_slips_are_secrets() -> None:
    """What people type when they meant ``/msg referee !pass X`` shows X all the same: read as
    the secret it carries, and redacted before anything is stored."""
    for text, args in [("/msg referee !pass X1y2", ["X1y2"]), ("msg referee !pass X1y2", ["X1y2"]),
                       ("referee: !pass X1y2", ["X1y2"]), ("referee, !pass @bob X1y2",
                                                          ["@bob", "X1y2"]),
                       ("!!pass X1y2", ["X1y2"]), ("!passX1y2", ["X1y2"]),
                       ("／ｑｕｅｒｙ referee ！！ｐａｓｓ X1y2", ["X1y2"])]:
        assert pass_args(text) == args, text
        assert is_secret(text) and "X1y2" not in redacted(text), text
    for text in ("referee: !help", "alice: コール", "!pa", "msg me later", "!help pass"):
        assert pass_args(text) is None and not is_secret(text) and redacted(text) == text, text


def test_guess_limits_a_daily_bound_and_never_the_proven_owner(tmp_path: Path) -> None:
    """A stranger behind the owner's user@host (no ident) counts on their own connection, so
    the owner's is never locked; every connection but the one proven as the name counts toward
    the name's daily bound, which then refuses even a fresh connection from the owner's host."""
    from referee.adapters.irc_identity import Guesses

    with Store(tmp_path / "g.db") as st:
        ids = Identities(st.conn)
        ids.trust("bob", "~gw@127.0.0.1")  # bob proved from there before
        now = 1_000_000.0
        for signon in range(Guesses.DAILY):  # reconnecting for a fresh source each time
            g = Guesses(ids, "bob", "mal", "~gw@127.0.0.1", owner=True, signon=signon + 1)
            assert g.wait(now) == 0, signon
            g.wrong(now)
            stranger_again = Guesses(ids, "bob", "mal", "~gw@127.0.0.1", owner=True,
                                     signon=signon + 1)
            owners = Guesses(ids, "bob", "bob", "~gw@127.0.0.1", owner=True, signon=999)
            if signon + 1 < Guesses.DAILY:
                assert owners.wait(now) == 0  # the owner's own connection is not locked
            assert stranger_again.wait(now) == 0 or signon + 1 >= Guesses.FREE
        fresh = Guesses(ids, "bob", "mal", "~gw@127.0.0.1", owner=True, signon=5000)
        assert fresh.wait(now) > 3600  # the daily bound: 30 a day at bob, whatever the source
        assert fresh.wait(now, source=False) > 3600  # known before any lookup
        proven = Guesses(ids, "bob", "bob", "~gw@127.0.0.1", owner=True, signon=999, proven=True)
        assert proven.wait(now) == 0  # the connection proven as bob now is never locked
        assert fresh.wait(now + 86400 + 1) == 0  # a day later


def test_presence_is_known_as_the_line_arrives_not_in_the_workers_turn(tmp_path: Path) -> None:
    """The bot's worker may be busy (a WHOIS, a flood) when a player gives up a nick: private
    lines queued before must follow the player, not the nick. The lines reach the bot's link as
    the IRC library hands them over; the worker never runs here, yet the outbox already sends
    alice's cards to her new nick, holds them once she quits, and a PART ends bob's proof and
    is queued, in order, for the worker's _on_departure."""
    import asyncio

    from irc.client import Event, NickMask  # type: ignore[import-untyped]

    from referee.adapters.irc import Departure, IrcBot, IrcConfig

    async def go() -> None:
        config = IrcConfig(server="127.0.0.1", port=6667, channels=["#t"],
                           database=tmp_path / "b.db", nick="referee")
        bot = IrcBot(config)
        try:
            bot.session.registered = True
            bot.session.joined.add("#t")

            def line(kind: str, source: str, target: str | None, *args: str) -> None:
                bot.link._on_event(None, Event(kind, NickMask(source), target, list(args)))

            for n in ("alice", "bob"):
                line("join", f"{n}!{n}@127.0.0.1", "#t")
                bot.book.prove(n, n, Whois(n, user=n, host="127.0.0.1", signon=5, exists=True))
            bot.outbox.say_private("alice", "あなたの手札: A♠ K♠")
            assert (pick := bot.outbox._pick()) is not None and pick[1] == "alice"
            line("nick", "alice!alice@127.0.0.1", "alice_")
            assert (pick := bot.outbox._pick()) is not None and pick[1] == "alice_"
            line("quit", "alice_!alice@127.0.0.1", None, "bye")
            assert bot.outbox._pick() is None and bot.outbox.held["alice"]
            line("join", "alice!mallory@127.0.0.1", "#t")  # a stranger takes the old nick
            assert bot.book.nick_of("alice") is None and bot.proofs.identity("alice") is None
            line("part", "bob!bob@127.0.0.1", "#t")
            assert bot.book.nick_of("bob") is None
            queued = bot.link.inbox.get_nowait()
            assert queued == Departure("#t", "bob", "part", "bob")
        finally:
            bot.close()

    asyncio.run(go())


def test_one_players_requests_never_hold_up_the_table(tmp_path: Path) -> None:
    """A flood of !status in the channel: its answers are that player's replies -- at most a few
    queued, the rest summarised -- and the table's prompt queued after them goes first."""
    import asyncio

    from referee.adapters.irc import IrcBot, IrcConfig
    from referee.adapters.irc_delivery import REPLY_QUEUE
    from referee.events import Say

    async def go() -> None:
        config = IrcConfig(server="127.0.0.1", port=6667, channels=["#t"],
                           database=tmp_path / "b.db", nick="referee")
        bot = IrcBot(config)
        try:
            bot.session.registered = True
            bot.session.joined.add("#t")
            room = bot.session.room("#t")
            for _ in range(30):
                bot.outbox.deliver([Say(to="room", text="状況")], room, "mallory", "mallory",
                                   answer=True)
            answers = [x for x in bot.outbox.lines if x.asker == "mallory"]
            assert len(answers) == REPLY_QUEUE
            bot.outbox.deliver([Say(to="room", text="aliceさんの番です")], room, "bob", "bob")
            pick = bot.outbox._pick()
            assert pick is not None and pick[0].text == "aliceさんの番です"
        finally:
            bot.close()

    asyncio.run(go())
