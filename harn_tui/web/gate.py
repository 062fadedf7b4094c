"""Who may open a console page: the token every page and session websocket must carry, and the page's actor."""

from __future__ import annotations

import hmac
import secrets

from harn_tui.core.errors import UsageError
from harn_tui.core.ids import check_id

TOKEN_BYTES = 32
SHOWN_TOKEN_CHARS = 4


def new_token() -> str:
    """32 random bytes, URL-safe base64 (43 characters): it goes into a URL as it is."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison, so the response time does not tell how much of a guess was right."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("ascii"))


def redacted(token: str) -> str:
    """What a log line may show of the token: enough to tell two servers apart, never enough to use."""
    return token[:SHOWN_TOKEN_CHARS] + "…"


def page_actor(given: str | None, default: str, *, shared: bool = False) -> str:
    """The page's `actor=` (ID syntax, UsageError naming the rule when malformed), else the server's actor. In a
    shared tree everyone acts as their login name, so a page may not name anyone but `harn web`'s own."""
    if given is None:
        return default
    actor = check_id(given, "actor")
    if shared and actor != default:
        raise UsageError(f"in a shared tree you act as {default} (actor={actor} is refused)")
    return actor
