"""How a message shows a value the user gave: short, on one line, never whole.

Error messages name the key and the place of a mistake and quote the value
only through :func:`shown`, so that a 3,000-character strategy reference or a
huge number does not flood the terminal; a value read from a file that may
hold secrets (a `params_file`) is not quoted at all.
"""

from __future__ import annotations

from typing import Any

MAX_SHOWN = 80
"""Characters of a quoted value at most."""


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """repr() of a value for a message, cut to `limit` characters ("..." marks the
    cut); containers are named by their type and huge integers by their size."""
    if isinstance(value, (list, dict, tuple, set)):
        return f"a {type(value).__name__}"
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def clipped(text: object, limit: int = 2 * MAX_SHOWN) -> str:
    """A message from elsewhere (an exception's text, which may quote user input
    whole) on one line and cut to `limit` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def key_label(key: Any) -> str:
    """A mapping key as it may appear in a one-line message: plain text as is,
    anything else (numbers, empty text, control characters, line breaks) quoted."""
    if isinstance(key, str) and key and key.isprintable() and key.strip() == key:
        return key
    return repr(key)
