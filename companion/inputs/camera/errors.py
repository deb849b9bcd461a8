"""The camera's refusals, each one of the kinds in :mod:`companion.refusals`.

>>> issubclass(CameraNotReady, CameraFeedError)
True
"""

from __future__ import annotations

from companion.refusals import InputNotFound, InputNotReady, InputRefused, InputRequestError


class CameraFeedError(InputRefused):
    """The camera feed cannot do what was asked (no camera, no round to read)."""


class CameraRequestError(CameraFeedError, InputRequestError):
    """The request itself is wrong (an unknown deck, corners that outline no table)."""


class CameraNotFound(CameraFeedError, InputNotFound):
    """The thing asked for is not there (a card not captured yet)."""


class CameraNotReady(CameraFeedError, InputNotReady):
    """The camera cannot answer yet (no frames now, the markers not looked for yet): ask
    again in ``retry_after`` seconds."""


__all__ = ["CameraFeedError", "CameraNotFound", "CameraNotReady", "CameraRequestError"]
