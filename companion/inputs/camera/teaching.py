"""Teaching the camera a deck from a phone, one card at a time (the ``/camera`` page).

:class:`DeckTeacher` runs an :class:`~vision.enroll.Enroller` on the frames
while a deck is taught (the camera enters nothing meanwhile), publishes the
progress for the phones to poll, and saves the deck when its last card is
captured. A deck taught while the service runs is used at once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.inputs.camera.errors import CameraFeedError, CameraNotFound, CameraRequestError
from vision.decks import deck_ids
from vision.enroll import Enroller, card_name
from vision.enrolled import BACK, EnrollmentError, Gallery
from vision.taught_store import load_faces

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from vision.detect import Quad

    Image = NDArray[np.uint8]

TEACHABLE: Mapping[str, str] = {
    "star-catcher": "Star Catcher",
    "star-plus": "Star Plus",
    "cant-catch-harry": "Can't Catch Harry",
}
"""The decks a phone can teach the camera (the standard deck needs no teaching)."""
THUMB_SIZE = (100, 140)
"""The captured cards' pictures sent to the phone, in pixels."""

HINTS = {
    "only one card at a time, please": "Only one card at a time, please",
    "hold still": "Hold still…",
    "show one card": "",
}
"""The enroller's hints as the phone shows them."""


def _idle() -> dict[str, Any]:
    return {"active": False, "finished": False, "deck": None, "back": False, "card": None,
            "prompt": "", "hint": "", "message": "", "done": 0, "total": 0, "captured": [],
            "version": 0}


class DeckTeacher:
    """A deck being taught, and the decks taught since the service started.

    Everything runs on the camera's worker thread except :meth:`status` and
    :meth:`thumbnail`, which read the published progress under a lock.
    """

    def __init__(self, store: Path) -> None:
        self.store = store
        self.enroller: Enroller | None = None
        self.taught: dict[str, Gallery] = {}
        """Decks taught from a phone while running: used at once, before any stored one."""
        self._lock = threading.Lock()
        self._published: dict[str, Any] = _idle()
        self._faces: dict[str, Image] = {}

    @property
    def active(self) -> bool:
        return self.enroller is not None

    def enrolled(self, deck: str) -> bool:
        """Whether ``deck`` was taught (now, or kept in the store)."""
        return self._taught_cards(deck) is not None

    def _taught_cards(self, deck: str) -> tuple[str, ...] | None:
        """The ids ``deck`` was taught with, its back's among them if it was taught (now,
        or kept in the store: its ``deck.json`` alone, read as the phones poll), or
        ``None`` where it was not taught (``()`` where its ``deck.json`` cannot be read)."""
        if deck in self.taught:
            return self.taught[deck].cards
        try:
            kept = json.loads((self.store / deck / "deck.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return ()
        cards = kept.get("cards") if isinstance(kept, dict) else None
        return tuple(c for c in cards if isinstance(c, str)) if isinstance(cards, list) else ()

    def _taught_faces(self, deck: str) -> dict[str, Image] | None:
        """``deck``'s faces, and its back if taught, by id (now, or kept in the store), or
        ``None`` where it was not taught."""
        if deck in self.taught:
            cards, faces = self.taught[deck].cards, self.taught[deck].faces
        else:
            try:
                cards, faces = load_faces(self.store, deck)
            except EnrollmentError:
                return None
        return None if faces is None else dict(zip(cards, faces, strict=True))

    # -- what a phone asks -----------------------------------------------------------------

    def start(self, deck: str, restart: bool, back: bool = False) -> dict[str, Any]:
        """Start teaching ``deck``; join in if it is being taught already (or start
        again from its first card with ``restart``). ``back``: teach only the back of a
        deck taught already (a card laid face down), so that the camera says a card face
        down is one, whatever its back shows."""
        if deck not in TEACHABLE:
            raise CameraRequestError(f"the camera cannot be taught deck {deck!r}; expected one "
                                     f"of {', '.join(TEACHABLE)}")
        current = self.enroller
        if current is not None and not restart:
            # a second phone joining in must not throw away what the first one taught
            if current.deck == deck:
                return self.status()
            raise CameraFeedError(
                f"the camera is being taught {TEACHABLE[current.deck]} "
                f"({len(current.faces)} of {len(current.cards)} cards): carry on with it, "
                "or cancel it first")
        self.enroller = self._back_of(deck) if back else Enroller(deck, deck_ids(deck))
        self._publish(hint="", message="")
        return self.status()

    def _back_of(self, deck: str) -> Enroller:
        """An enroller that asks for ``deck``'s back alone, its faces as they were taught
        (given it already: the teaching ends when the back is captured, so no redo can
        forget one)."""
        taught = self._taught_faces(deck)
        if taught is None:
            raise CameraFeedError(f"teach the {TEACHABLE[deck]} cards first: the camera "
                                  "learns their back after them")
        # in the deck's order, as the thumbnails are numbered
        faces = {c: taught[c] for c in (*deck_ids(deck), *taught) if c in taught and c != BACK}
        return Enroller(deck, (*faces, BACK), faces=faces)

    def redo(self) -> dict[str, Any]:
        """Forget the card captured last, to show it again."""
        enroller = self._active()
        if BACK in enroller.cards:  # (its faces were given, not captured)
            raise CameraFeedError("no card has been captured yet: there is nothing to redo")
        card = enroller.undo()
        if card is None:
            raise CameraFeedError("no card has been captured yet: there is nothing to redo")
        self._publish(hint="", message=f"{card_name(enroller.deck, card)} forgotten: "
                                       "show it again")
        return self.status()

    def cancel(self) -> dict[str, Any]:
        """Stop teaching; the deck as it was before stays."""
        enroller = self._active()
        self.enroller = None
        self._publish(message=f"Cancelled: the camera's {TEACHABLE[enroller.deck]} cards are "
                              "as they were", deck=enroller.deck)
        return self.status()

    def _active(self) -> Enroller:
        if self.enroller is None:
            raise CameraFeedError("no deck is being taught: start one first")
        return self.enroller

    def status(self) -> dict[str, Any]:
        """The teaching's progress and what to tell the user now (cheap: for polling)."""
        with self._lock:
            status = dict(self._published)
        taught = {deck: self._taught_cards(deck) for deck in TEACHABLE}
        status["decks"] = [{"deck": deck, "name": name, "cards": len(deck_ids(deck)),
                            "enrolled": taught[deck] is not None,
                            "back": BACK in (taught[deck] or ())}
                           for deck, name in TEACHABLE.items()]
        return status

    def thumbnail(self, index: int) -> bytes:
        """The captured picture of the deck's card number ``index`` (0-based), as JPEG."""
        with self._lock:
            faces = self._faces
            deck = self._published.get("deck")
        cards = (*deck_ids(deck), BACK) if isinstance(deck, str) else ()
        if not 0 <= index < len(cards) or cards[index] not in faces:
            raise CameraNotFound(f"card number {index} has not been captured")
        import cv2

        small = cv2.resize(faces[cards[index]], THUMB_SIZE, interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            raise CameraNotFound(f"card number {index} could not be encoded")
        return bytes(data)

    # -- the frames ------------------------------------------------------------------------

    def offer(self, frame: Image, counts: Callable[[Quad], bool] | None
              ) -> tuple[list[Quad], Gallery | None]:
        """Show ``frame`` to the deck being taught (``counts``: whether a card's outline
        lies on the play area). The card outlines seen, and the deck when it was finished
        and saved with this frame."""
        enroller = self.enroller
        assert enroller is not None
        said = enroller.offer(frame, counts)
        quads = list(enroller.last_quads)
        if said.startswith("that looks like "):
            known = said.removeprefix("that looks like ").split(",")[0]
            said = (f"That is {card_name(enroller.deck, known)} face up: lay a card face down"
                    if enroller.next_card == BACK else
                    f"That is {card_name(enroller.deck, known)}, shown already: take it away")
        said = HINTS.get(said, said)
        if not said.startswith("captured "):
            if said != self._published["hint"]:
                self._publish(hint=said)
            return quads, None
        if enroller.next_card is not None:
            self._publish(hint="", message="")
            return quads, None
        # a deck taught again from its first card keeps the back it was taught (the store
        # holds the deck as it was until this save)
        kept = None if BACK in enroller.cards else (
            self._taught_faces(enroller.deck) or {}).get(BACK)
        try:
            gallery = (enroller.gallery() if kept is None else Gallery.from_faces(
                enroller.deck, {**enroller.faces, BACK: kept}))
            gallery.save(self.store)
        except (EnrollmentError, OSError) as exc:
            enroller.undo()  # the last card again, once the problem is solved
            self._publish(hint="", message=f"The deck could not be saved ({exc}); show the "
                                           "last card again to retry")
            return quads, None
        self.enroller = None
        self.taught[gallery.deck] = gallery
        name = TEACHABLE[enroller.deck]
        self._publish(finished=True, deck=enroller.deck, faces=dict(enroller.faces),
                      message=f"Saved: the camera knows the {name} cards' back"
                      if BACK in enroller.cards
                      else f"Saved: the camera knows the {len(enroller.cards)} {name} cards"
                      + (" and their back" if gallery.has_back else ""))
        return quads, gallery

    def _publish(self, hint: str | None = None, message: str | None = None,
                 finished: bool = False, deck: str | None = None,
                 faces: dict[str, Image] | None = None) -> None:
        enroller = self.enroller
        status = dict(self._published)
        if enroller is not None:
            card = enroller.next_card
            cards = enroller.cards
            status.update(active=True, finished=False, deck=enroller.deck, back=BACK in cards,
                          card=card, done=len(enroller.faces), total=len(cards),
                          prompt=("Lay one card face down, alone in view" if card == BACK
                                  else f"Lay {card_name(enroller.deck, card)} alone in view"
                                  if card is not None else "Saving…"))
            faces = dict(enroller.faces)
        else:
            cards = (*deck_ids(deck), *((BACK,) if BACK in (faces or {}) else ())) \
                if deck is not None else ()
            status.update(active=False, finished=finished, deck=deck, card=None, hint="",
                          prompt="", done=len(faces or {}), total=len(cards))
        faces = faces or {}
        deck_name = status["deck"]
        status["captured"] = [{"index": i, "card": c, "name": card_name(deck_name, c)}
                              for i, c in enumerate(cards) if c in faces]
        if hint is not None:
            status["hint"] = hint
        if message is not None:
            status["message"] = message
        status["version"] = int(status["version"]) + 1
        with self._lock:
            self._published = status
            self._faces = faces
