"""The Matrix formatting of cards reads on Element's light and dark themes: a hand
message as the bot formats it (:func:`referee.adapters.matrix_render.render`) is rendered by
headless Chromium (Debian's, as the console's browser tests) on each theme's background and text
colour, screenshotted, and every card glyph's pixels are measured: the glyph's strongest colour
must stand out from the background by WCAG's 3:1 (bold text), spades included -- the case a
hard-coded black broke on the dark theme."""

from __future__ import annotations

import html
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chromium as browser

from referee.adapters.matrix_render import render

ROOT = Path(__file__).resolve().parents[1]
# Element's themes: (background, text colour).
THEMES = {"light": ("#ffffff", "#17191c"), "dark": ("#15191e", "#ebeef2")}
HAND = "aliceさんの手札: A♠ K♥ 10♦ 7♣ / ボード: Q♠ J♥ 2♣ 9♦ 3♠"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = sorted([_luminance(a), _luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser("--force-device-scale-factor=1", window="1200,400") as drv:
        yield drv


def measure(chromium: Any, tmp_path: Path, theme: str) -> dict[str, float]:
    """Each card of :data:`HAND` as Chromium draws the bot's formatted body on ``theme``: the
    contrast of the glyph's strongest pixel against the background."""
    from PIL import Image

    background, foreground = THEMES[theme]
    body = render(HAND, "example.org")["formatted_body"]
    page = tmp_path / f"{theme}.html"
    page.write_text(
        "<!doctype html><meta charset='utf-8'>"
        f"<body style='margin:0;background:{background};color:{foreground};"
        "font:32px sans-serif'><div id='m' style='padding:20px'>"
        f"{body}</div></body>", encoding="utf-8")
    chromium.get(page.as_uri())
    boxes = chromium.execute_script(
        "return [...document.querySelectorAll('#m b')].map(b => {"
        " const r = b.getBoundingClientRect();"
        " return [b.textContent, r.left, r.top, r.right, r.bottom]; });")
    shot = Image.open(io.BytesIO(chromium.get_screenshot_as_png())).convert("RGB")
    bg = _rgb(background)
    out: dict[str, float] = {}
    for card, left, top, right, bottom in boxes:
        crop = shot.crop((int(left), int(top), int(right) + 1, int(bottom) + 1))
        pixels = [crop.getpixel((x, y)) for x in range(crop.width) for y in range(crop.height)]
        assert sum(1 for p in pixels if p != bg) > 20, f"{card}: nothing drawn"
        out[str(card)] = max(contrast(p, bg) for p in pixels)  # type: ignore[arg-type]
    assert list(out) == ["A♠", "K♥", "10♦", "7♣", "Q♠", "J♥", "2♣", "9♦", "3♠"], html.escape(body)
    return out


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_suit_reads_on_the_theme(chromium: Any, tmp_path: Path, theme: str) -> None:
    assert "#000000" not in render(HAND, "example.org")["formatted_body"].lower()
    for card, ratio in measure(chromium, tmp_path, theme).items():
        assert ratio >= 3.0, (theme, card, round(ratio, 2))


def test_the_measure_sees_black_spades_vanish(chromium: Any, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: with spades hard-coded black (the old formatting) the dark theme
    fails it, the light one does not."""
    from referee.adapters import matrix_render

    monkeypatch.setitem(matrix_render.SUIT_COLOURS, "♠", "#000000")
    assert measure(chromium, tmp_path, "dark")["A♠"] < 1.5
    assert measure(chromium, tmp_path, "light")["A♠"] > 10
