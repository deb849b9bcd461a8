"""What an input (the camera, the board) says when it cannot do what was asked.

Each kind of refusal is a class with a plain message and no protocol in it:
the web edge maps every kind to a status code in one table
(``PLAIN_ERRORS`` in :mod:`companion.service.app`), so an input never knows
about HTTP and the service never imports an input. An input's own errors
subclass these (``class CameraNotFound(CameraFeedError, InputNotFound)``).

>>> isinstance(InputNotReady("the camera has no picture yet"), ValueError)
True
"""

from __future__ import annotations


class InputRefused(ValueError):
    """The input cannot do that now (it is busy with something else, or not running)."""


class InputRequestError(InputRefused):
    """The request itself is wrong (an unknown deck, corners that outline no table)."""


class InputNotFound(InputRefused):
    """The thing asked for is not there (a card not captured yet)."""


class InputNotReady(InputRefused):
    """The input cannot answer yet: ask again in :attr:`retry_after` seconds."""

    retry_after = 1.0


__all__ = ["InputNotFound", "InputNotReady", "InputRefused", "InputRequestError"]
