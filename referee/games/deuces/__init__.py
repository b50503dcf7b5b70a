"""The deuces game's folder: see spec.py (its registration) and docs/adding-a-game.md."""
