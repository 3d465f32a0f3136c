"""Names the calls take: games (`abc` or `games/abc`), colours and the
API's enums by their short names, and Articles as a reader looks them up."""

from __future__ import annotations

import enum
from typing import Any, Mapping, Optional, Union


class Color(enum.IntEnum):
    """A side of the board (the values of `arbiter.v1.Color`)."""

    WHITE = 1
    BLACK = 2


#: A colour: `Color.WHITE`, `"white"`, `"w"`, the proto value, or None
#: (with a player token: the token's colour).
ColorLike = Union[Color, str, int, None]

_COLORS = {"white": 1, "w": 1, "color_white": 1, "black": 2, "b": 2, "color_black": 2}


def color_value(color: ColorLike) -> int:
    """The `arbiter.v1.Color` value of `color` (0 for None)."""
    if color is None:
        return 0
    if isinstance(color, str):
        try:
            return _COLORS[color.strip().lower()]
        except KeyError:
            raise ValueError(f"{color!r} is not a colour (white, black, w or b)") from None
    value = int(color)
    if value not in (0, 1, 2):
        raise ValueError(f"{color!r} is not a colour")
    return value


def game_name(game: Any) -> str:
    """`games/abc` for `abc`, `games/abc`, or a `Game` message (its `name`).
    The service validates the id."""
    name = getattr(game, "name", game)
    if not isinstance(name, str):
        raise TypeError(f"a game is an id (`abc`), a name (`games/abc`) or a Game message, not {game!r}")
    name = name.strip()
    if not name or name == "games/":
        raise ValueError("the game id is empty")
    return name if name.startswith("games/") else f"games/{name}"


def enum_value(
    value: Union[str, int, None], enum_type: Any, prefix: str, aliases: Optional[Mapping[str, str]] = None
) -> int:
    """The value of a proto enum given by its number, its full name
    (`MODE_ONLINE`), its short name in any case (`online`, `over-the-board`)
    or an alias; 0 for None."""
    if value is None:
        return 0
    if not isinstance(value, str):
        return int(value)
    text = value.strip()
    if aliases and text.lower() in aliases:
        text = aliases[text.lower()]
    name = text.upper().replace("-", "_").replace(" ", "_")
    if not name.startswith(prefix):
        name = prefix + name
    try:
        return int(enum_type.Value(name))
    except ValueError:
        known = ", ".join(
            n[len(prefix) :].lower() for n in enum_type.keys() if not n.endswith("_UNSPECIFIED")
        )
        raise ValueError(f"{value!r} is not one of: {known}") from None


_RULEBOOKS = {
    1: "RULEBOOK_LAWS_OF_CHESS",
    2: "RULEBOOK_ONLINE_CHESS_REGULATIONS",
    3: "RULEBOOK_CHINESE_RULES",
}


def article_text(number: str, rulebook: Union[str, int, None] = None) -> str:
    """An Article as its rulebook names it: `Article 9.5.3`, `Article A.5.2`,
    `Guidelines III.4`, `OCR 5.4.1`, `Chinese rules, ...` (as the Rust
    client's `article_text`). `rulebook` is the enum's name or value."""
    if isinstance(rulebook, int):
        rulebook = _RULEBOOKS.get(rulebook)
    if rulebook == "RULEBOOK_LAWS_OF_CHESS" and number.startswith("II"):
        return f"Guidelines {number}"
    if rulebook == "RULEBOOK_ONLINE_CHESS_REGULATIONS":
        return f"OCR {number}"
    if rulebook == "RULEBOOK_CHINESE_RULES":
        return f"Chinese rules, {number}"
    return f"Article {number}"


def article_of(article: Any) -> Optional[str]:
    """`article_text` of an `arbiter.v1.Article` message (of a ruling, an
    obligation or a game's end); None when it names no Article."""
    if article is None or not getattr(article, "number", ""):
        return None
    return article_text(article.number, int(getattr(article, "rulebook", 0)))
