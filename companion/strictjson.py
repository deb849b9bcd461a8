"""The one JSON reader for everything that reaches the table: strict and bounded.

``companion replay``, the service's request bodies and a table-log import all read
JSON through :func:`loads`, so they accept and refuse exactly the same texts:

* no ``NaN``, ``Infinity`` or numbers too large for a float (``1e999``): browsers'
  JSON parsers refuse them, so one such value would stop every phone's live view;
* at most :data:`MAX_DEPTH` nested lists/objects (a deep value cannot be serialised
  back, and would break every later answer that contains it);
* at most a given size in bytes, checked before parsing;
* no lone UTF-16 surrogates (``"\\ud800"``): they are not text and cannot be stored.

>>> loads('{"type": "roll", "value": 4}')
{'type': 'roll', 'value': 4}
>>> loads('{"note": NaN}')
Traceback (most recent call last):
...
companion.strictjson.StrictJSONError: NaN is not a number in JSON; expected a finite number
>>> loads("[" * 40 + "]" * 40)
Traceback (most recent call last):
...
companion.strictjson.StrictJSONError: the JSON is nested more than 20 levels deep
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 20
"""Lists and objects inside each other; the deepest table event needs 4."""

MAX_BYTES = 2_000_000
"""The default size bound: a table log of a long match is well under 200 kB."""


class StrictJSONError(ValueError):
    """The text is not strict JSON; the message says what was wrong and what was expected."""


def _reject_constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a number in JSON; expected a finite number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"{text[:20]} is too large for a number; expected a finite number")
    return value


def _check(value: Any) -> None:
    """Depth and text checks, without recursion (a hostile value cannot overflow the stack)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise StrictJSONError(f"the JSON is nested more than {MAX_DEPTH} levels deep")
            if isinstance(item, dict):
                for key, inner in item.items():
                    _check_text(key)
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise StrictJSONError(
            "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff); expected text"
        ) from None


def loads(data: str | bytes, *, max_bytes: int = MAX_BYTES) -> Any:
    """Parse strict JSON of at most ``max_bytes`` bytes; :class:`StrictJSONError` otherwise."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > max_bytes:
        raise StrictJSONError(f"the JSON is {size} bytes; at most {max_bytes} are accepted")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise StrictJSONError("the JSON is not UTF-8 text") from None
    try:
        value = json.loads(data, parse_constant=_reject_constant, parse_float=_finite_float)
    except StrictJSONError:
        raise
    except RecursionError:
        raise StrictJSONError(f"the JSON is nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as exc:
        raise StrictJSONError(
            f"not valid JSON ({exc.msg} at character {exc.pos})"
        ) from None
    except ValueError as exc:  # a whole number of more than 4,300 digits
        raise StrictJSONError(f"not valid JSON ({exc})") from None
    _check(value)
    return value


def dumps(value: Any) -> str:
    """Compact JSON that every browser can read (``NaN`` and the like refused)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
