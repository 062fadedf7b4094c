"""Literal rendering of untrusted text: markup stays characters, control characters become visible pictures.

Everything a planner, reviewer, template or operator wrote passes through here before it reaches a widget.
Markup is never parsed (Textual `Content` and Rich `Text` are built directly, not from markup; `escape()`
is not enough in Textual 8), and C0/C1 controls, DEL and bidirectional overrides are replaced by visible
stand-ins so nothing is ever sent to the terminal as a control sequence.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.content import Content
from textual.fuzzy import Matcher

_PICTURES: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}
_PICTURES[0x7F] = "\u2421"
_PICTURES.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
_PICTURES.update({code: f"<U+{code:04X}>" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})
_PICTURES.update({code: f"<U+{code:04X}>" for code in (0x200E, 0x200F, 0x061C)})
_MULTILINE = {k: v for k, v in _PICTURES.items() if k != 0x0A}


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 plan`, `2 plans`, `0 plans`; `plural` where adding `s` is wrong (`dispatches`)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def visible(text: str, *, multiline: bool = False) -> str:
    """`text` with every control character replaced by a visible picture (`\\x1b` -> `␛`).

    With `multiline`, newlines are kept as line breaks; otherwise they show as `␊`.
    """
    return text.translate(_MULTILINE if multiline else _PICTURES)


def literal(text: str, style: str = "", *, multiline: bool = False) -> Content:
    """Textual content that shows `text` exactly: no markup parsed, controls made visible."""
    return (
        Content.styled(visible(text, multiline=multiline), style)
        if style
        else Content(visible(text, multiline=multiline))
    )


def literal_text(text: str, style: str = "") -> Text:
    """A Rich `Text` for DataTable cells: one line, no markup, controls made visible."""
    return Text(visible(text), style=style, no_wrap=True, end="")


def clip(text: str, width: int) -> str:
    """At most `width` characters, with an ellipsis when shortened (summaries only, never rationale)."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def under_root(text: str, root: str | object) -> str:
    """`text` with the tree root's absolute path dropped from the paths it names (`.harnery/...` stays)."""
    prefix = str(root).rstrip("/") + "/"
    return text.replace(prefix, "")


def label(name: str, value: str | Content, style: str = "bold") -> Content:
    """`name: value` with the name styled and the value literal."""
    shown = value if isinstance(value, Content) else literal(value, multiline=True)
    return Content.assemble((f"{name}: ", style), shown)


def lines(parts: Iterable[Content | str]) -> Content:
    """Join content parts with newlines; plain `str` parts are treated as literal text too."""
    return Content("\n").join(part if isinstance(part, Content) else literal(part, multiline=True) for part in parts)


def indent(content: Content, prefix: str = "  ") -> Content:
    """Every line of `content` prefixed with `prefix` (spans kept)."""
    return Content("\n").join(Content(prefix) + line for line in content.split("\n"))


def safe_highlight(matcher: Matcher, candidate: str) -> Content:
    """Fuzzy-match highlighting for the command palette without parsing `candidate` as markup."""
    content = literal(candidate)
    score, offsets = matcher.fuzzy_search.match(matcher.query, content.plain)
    for offset in offsets if score else ():
        content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
