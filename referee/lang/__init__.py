"""Everything about language in one package: the one normaliser, word analysis and the message
catalogue (what the bot says). Vocabulary tables are data under ``grammar/`` and
``referee/lang/messages/``; code here only reads them."""
