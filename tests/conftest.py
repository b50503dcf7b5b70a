"""Shared by every test directory: puts ``tests/`` on the import path, so that tests/irc and
tests/matrix import the helpers here (``needs``, ``browser_helpers``) by name."""
