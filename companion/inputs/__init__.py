"""What feeds the table besides the phones: the Catch Mag board, the camera, demo bots.

Each input is a *table attachment* (see :data:`companion.service.app.TableAttachment`):
called with the running :class:`~companion.service.table.TableService`, it returns a
context manager that runs while the service runs. Inputs turn what they see into
table events through the same checks as a phone's entry, and report their link
status for the dashboard's banner. Drivers are imported only when configured, so a
table with no camera never loads OpenCV. What inputs share (the one way onto the
table, notices, the worker thread) is :mod:`companion.inputs.feed`.

>>> board_override("/dev/catch-mag")
{'source': 'serial', 'device': '/dev/catch-mag'}
>>> camera_override("webcam:1")
{'source': 'webcam', 'index': 1}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.config import CompanionConfig

if TYPE_CHECKING:
    from companion.service.app import TableAttachment


def board_override(spec: str) -> dict[str, object]:
    """The ``[board]`` settings for a ``--board`` option: a source name or a serial device."""
    if spec in ("sim", "gpio", "none"):
        return {"source": spec}
    if spec == "auto":
        return {"source": "serial", "device": "auto"}
    return {"source": "serial", "device": spec}


def camera_override(spec: str) -> dict[str, object]:
    """The ``[camera]`` settings for a ``--camera`` option.

    ``sim``, ``none``, ``picamera2``, ``webcam`` or ``webcam:N``; anything else is
    a video file or a folder of images.
    """
    if spec in ("sim", "none", "picamera2", "webcam"):
        return {"source": spec}
    name, _, index = spec.partition(":")
    if name == "webcam" and index.isdigit():
        return {"source": "webcam", "index": int(index)}
    return {"source": "file", "path": spec}


def input_overrides(board: str | None, camera: str | None) -> dict[str, dict[str, object]]:
    """Configuration overrides for ``--board`` / ``--camera`` options (``None``: not given).

    >>> input_overrides("sim", None)
    {'board': {'source': 'sim'}}
    """
    overrides: dict[str, dict[str, object]] = {}
    if board is not None:
        overrides["board"] = board_override(board)
    if camera is not None:
        overrides["camera"] = camera_override(camera)
    return overrides


def build_attachments(
    config: CompanionConfig, *, demo: bool = False, speed: float = 1.0, game: str | None = None
) -> list[TableAttachment]:
    """The inputs the configuration asks for, in the order the table opens them."""
    attachments: list[TableAttachment] = []
    board = None
    if config.board.source != "none":
        from companion.inputs.board import BoardFeed

        board = BoardFeed(config.board)
        attachments.append(board)
    camera = None
    if config.camera.source != "none":
        from companion.inputs.camera import CameraFeed

        camera = CameraFeed(config.camera)
        attachments.append(camera)
    if demo:
        from companion.inputs.demo import CameraHands, DemoBots

        hands = CameraHands(camera) if camera is not None else None
        attachments.append(DemoBots(board=board, camera=hands, speed=speed, game=game))
    elif camera is not None and camera.sim is not None:
        from companion.inputs.demo import SimShowcase

        attachments.append(SimShowcase(camera))  # cards on the simulated table at rest
    return attachments
