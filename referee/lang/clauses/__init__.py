"""The clause reader: the one action a player commits to inside a longer message.

The whole-message grammar (:mod:`referee.parse`) reads 「メイク2000」; people write
「お待たせしました、メイク2000でお願いします。GL」, 「コール…いや、やっぱ降ります」 or
「フォールドはしません、コールです」. This module reads such a message the way a dealer does:

1. **Repair** what a hurried thumb or a voice-input engine did to the *action words* only
   (〼, 折ります for 降ります, ちぇつく, ー typed as 一) and write kanji and kana numerals as
   digits (千八百, にせん ごひゃく); the vocabulary is ``grammar/clauses.toml``.
2. **Split** the message into clauses at punctuation, at conjunctions (けど, が) and at
   corrections (いや, じゃなくて, 間違えた), with the morphological analysis of
   :mod:`referee.lang.words`.
3. **Read** each clause: first with the game's grammar (the caller's reader), else as a *frame*:
   the action words, cards and amounts found in it, and every other word one that carries no
   content -- particles, auxiliaries, the verbs of doing and humble giving (いたす, 参る,
   させて頂く), the words of manners (お願い, 失礼) -- by part of speech and lemma, not by lists
   of endings. A word that negates, wishes, asks, supposes, advises or requests (ない, たい, か,
   たら, べき, くれ, an imperative) makes the clause no action.
4. **Resolve**: what came before the last correction or concession is taken back; a negated
   action (フォールドはしません) is declined. The message is an action when exactly one action
   remains (repeats agree) and no other clause has action vocabulary or advice in it; anything
   else stays chat, so a message that only *talks* about actions never becomes one.

The steps live in this package: :mod:`.repair`, :mod:`.split`, :mod:`.frame` (with
:mod:`.cards` and :mod:`.build`) and :mod:`.resolve`; the vocabulary in :mod:`.vocabulary`.
"""

from referee.lang.clauses import cards as _cards
from referee.lang.clauses.frame import Frame, clear_frames, frame
from referee.lang.clauses.guess import guess
from referee.lang.clauses.head import read_head
from referee.lang.clauses.repair import clear_cache as clear_repairs
from referee.lang.clauses.repair import numerals, repair
from referee.lang.clauses.resolve import Reading, gate, read
from referee.lang.clauses.split import Clause, split
from referee.lang.clauses.vocabulary import GrammarReader, chips_said, mentions

__all__ = ["Clause", "Frame", "GrammarReader", "Reading", "chips_said", "clear_caches", "frame",
           "gate", "guess", "mentions", "numerals", "read", "read_head", "repair", "split"]


def clear_caches() -> None:
    """Forget the repairs, frames and cards kept by text (for measurements)."""
    clear_repairs()
    clear_frames()
    _cards.clear_cache()
