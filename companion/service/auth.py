"""The table PIN, the tokens phones get for it, and the brake on guessing.

Anyone on the LAN may watch; entering, undoing or correcting needs a token,
which a phone gets once by sending the table PIN and then keeps. Tokens are
stored as SHA-256 digests, so the database never holds one in clear.

>>> limiter = PinRateLimiter(attempts=2, lockout_seconds=10, clock=lambda: 0.0)
>>> limiter.failure("10.0.0.7"); limiter.wait("10.0.0.7")
0.0
>>> limiter.failure("10.0.0.7"); limiter.wait("10.0.0.7")
10.0
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from companion.service.settings import check_pin
from companion.service.store import EventStore


class AuthError(ValueError):
    """A PIN or token was refused."""


class WrongPin(AuthError):
    pass


class TooManyAttempts(AuthError):
    def __init__(self, wait: float) -> None:
        self.wait = wait
        super().__init__(
            f"too many wrong PINs from this device; try again in {max(1, round(wait))} seconds"
        )


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class PinRateLimiter:
    """Counts wrong PINs per client address; after ``attempts`` the address waits.

    The wait doubles with every further wrong PIN. At most ``capacity``
    addresses are remembered (oldest forgotten first), so memory stays bounded.
    """

    def __init__(
        self,
        attempts: int,
        lockout_seconds: float,
        clock: Callable[[], float],
        capacity: int = 1024,
    ) -> None:
        self.attempts = attempts
        self.lockout_seconds = lockout_seconds
        self.clock = clock
        self.capacity = capacity
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next try (0 when it may try now)."""
        count, until = self._failures.get(client, (0, 0.0))
        return max(0.0, until - self.clock()) if count >= self.attempts else 0.0

    def failure(self, client: str) -> None:
        count, _ = self._failures.pop(client, (0, 0.0))
        count += 1
        until = 0.0
        if count >= self.attempts:
            until = self.clock() + self.lockout_seconds * 2 ** (count - self.attempts)
        self._failures[client] = (count, until)
        while len(self._failures) > self.capacity:
            self._failures.popitem(last=False)

    def success(self, client: str) -> None:
        self._failures.pop(client, None)


@dataclass(frozen=True)
class Grant:
    """What a phone gets for the right PIN."""

    token: str
    label: str


class TableAuth:
    """The PIN and the tokens of one table, kept in its store."""

    def __init__(self, store: EventStore, limiter: PinRateLimiter, pin: str | None) -> None:
        self.store = store
        self.limiter = limiter
        stored = store.get_meta("pin")
        if pin is not None:
            check_pin(pin)
            if pin != stored:
                store.set_meta("pin", pin)
        elif stored is None:
            store.set_meta("pin", f"{secrets.randbelow(10_000):04d}")
        self._tokens = store.tokens()

    @property
    def pin(self) -> str:
        pin = self.store.get_meta("pin")
        assert pin is not None
        return pin

    def exchange(self, pin: object, client: str, label: str, at: str) -> Grant:
        """A new token for the right PIN; wrong PINs count toward a wait."""
        wait = self.limiter.wait(client)
        if wait > 0:
            raise TooManyAttempts(wait)
        if not isinstance(pin, str) or not hmac.compare_digest(
            pin.encode("utf-8", "replace"), self.pin.encode()
        ):
            self.limiter.failure(client)
            wait = self.limiter.wait(client)
            if wait > 0:
                raise TooManyAttempts(wait)
            raise WrongPin("wrong PIN; the PIN is shown on the host screen")
        self.limiter.success(client)
        token = secrets.token_urlsafe(24)
        digest = token_digest(token)
        self.store.add_token(digest, label, at)
        self._tokens[digest] = label
        return Grant(token, label)

    def holder(self, token: str | None) -> str | None:
        """The label of a valid token, or ``None``."""
        if not token:
            return None
        return self._tokens.get(token_digest(token))

    def change_pin(self, new_pin: object, keep_token: str) -> None:
        """Set a new PIN; every other phone's token stops working."""
        pin = check_pin(new_pin)
        self.store.set_meta("pin", pin)
        keep = token_digest(keep_token)
        self.store.revoke_tokens(keep=keep)
        self._tokens = {d: label for d, label in self._tokens.items() if d == keep}
