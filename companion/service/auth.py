"""The table PIN, the tokens phones get for it, and the brakes on guessing.

Anyone on the LAN may watch; entering, undoing or correcting needs a token,
which a phone gets once by sending the table PIN and then keeps. The PIN is
stored only as a salted scrypt hash, tokens only as SHA-256 digests, so the
database never holds either in clear. Tokens belong to the PIN they were
given for: a new PIN (by the API, or a restart with another ``--pin``) ends
every other one; a token unused for ``token_idle_days`` ends by itself.

Two brakes on guessing (docs/security.md has the arithmetic): each address
waits after a few wrong PINs, and the whole table takes only so many wrong
PINs an hour from every address together. Phones already signed in never
need the PIN again, so neither brake ever locks them out.

>>> limiter = PinRateLimiter(attempts=2, lockout_seconds=10, clock=lambda: 0.0)
>>> limiter.failure("10.0.0.7"); limiter.wait("10.0.0.7")
0.0
>>> limiter.failure("10.0.0.7"); limiter.wait("10.0.0.7")
10.0
>>> table = TableWideLimiter(attempts=2, refill_seconds=360, clock=lambda: 0.0)
>>> table.failure(); table.failure(); table.wait()
360.0
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from companion.service.settings import check_pin
from companion.service.store import EventStore

PIN_DIGITS = 6

JOIN_CODE_SECONDS = 600.0
"""How long a join code works in place of the PIN."""

MOST_JOIN_CODES = 4
"""Join codes that work at once (a new one ends the oldest): each is one more code a
guesser might hit, for ten minutes."""
"""A made-up PIN's length: a million PINs, years of guessing at the limits."""

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt's cost (16 MiB, about 0.1 s per PIN tried), the usual interactive setting."""


class AuthError(ValueError):
    """A PIN or token was refused."""


class WrongPin(AuthError):
    pass


class TooManyAttempts(AuthError):
    def __init__(self, wait: float, message: str | None = None) -> None:
        self.wait = wait
        super().__init__(message or (
            f"too many wrong PINs from this device; try again in {max(1, round(wait))} seconds"
        ))


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash`` for a PIN (a fresh random salt unless given).

    >>> verify_pin("482193", hash_pin("482193")), verify_pin("482194", hash_pin("482193"))
    (True, False)
    """
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                            dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    try:
        _, n, r, p, salt, digest = stored.split("$")
        tried = hashlib.scrypt(pin.encode("utf-8", "replace"), salt=bytes.fromhex(salt),
                               n=int(n), r=int(r), p=int(p), dklen=32)
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(tried.hex(), digest)


class PinRateLimiter:
    """Counts wrong PINs per client address; after ``attempts`` the address waits.

    The wait doubles with every further wrong PIN. At most ``capacity``
    addresses are remembered (oldest forgotten first), so memory stays bounded;
    the table-wide limit does not depend on it.
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
            # Capped so the arithmetic never overflows; a day is wait enough.
            until = self.clock() + min(86_400.0, self.lockout_seconds
                                       * 2 ** min(count - self.attempts, 32))
        self._failures[client] = (count, until)
        while len(self._failures) > self.capacity:
            self._failures.popitem(last=False)

    def success(self, client: str) -> None:
        self._failures.pop(client, None)


class TableWideLimiter:
    """Wrong PINs from every address together: ``attempts`` at once, then one more each
    ``refill_seconds`` (a token bucket). While it is empty no PIN is even checked, so
    rotating addresses gains an attacker nothing."""

    def __init__(self, attempts: int, refill_seconds: float, clock: Callable[[], float]) -> None:
        self.attempts = attempts
        self.refill_seconds = refill_seconds
        self.clock = clock
        self._level = float(attempts)
        self._at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self._level = min(float(self.attempts),
                          self._level + (now - self._at) / self.refill_seconds)
        self._at = now

    def wait(self) -> float:
        self._refill()
        return 0.0 if self._level >= 1 else (1 - self._level) * self.refill_seconds

    def failure(self) -> None:
        self._refill()
        self._level = max(0.0, self._level - 1)

    @property
    def per_hour(self) -> float:
        """Wrong PINs the table takes in an hour, after the first ``attempts``."""
        return 3600 / self.refill_seconds


@dataclass(frozen=True)
class Grant:
    """What a phone gets for the right PIN."""

    token: str
    label: str


class TableAuth:
    """The PIN and the tokens of one table, kept in its store.

    ``new_pin`` is the PIN in clear when this start set it (made up on the first
    start, or given with ``--pin``), so it can be shown once; else ``None``.
    """

    def __init__(
        self,
        store: EventStore,
        limiter: PinRateLimiter,
        pin: str | None,
        *,
        table_limiter: TableWideLimiter | None = None,
        idle_seconds: float = 30 * 86_400,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.store = store
        self.limiter = limiter
        self.clock = clock or limiter.clock
        self.table_limiter = table_limiter or TableWideLimiter(10, 360, self.clock)
        self.idle_seconds = idle_seconds
        self.new_pin: str | None = None
        legacy = store.get_meta("pin")  # a PIN kept in clear by an older version
        if legacy is not None and store.get_meta("pin_hash") is None:
            store.set_meta("pin_hash", hash_pin(legacy))
        if legacy is not None:
            store.delete_meta("pin")
        stored = store.get_meta("pin_hash")
        if pin is not None:
            check_pin(pin)
            if stored is None or not verify_pin(pin, stored):
                self._set_pin(pin, keep=None)
                self.new_pin = pin
        elif stored is None:
            made_up = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
            self._set_pin(made_up, keep=None)
            self.new_pin = made_up
        # Tokens belong to the PIN they were given under: a PIN changed by any means
        # while the table was stopped (another tool writing the hash) ends them too.
        current, tokens_for = store.get_meta("pin_hash"), store.get_meta("tokens_for")
        if current is not None and tokens_for != current:
            if tokens_for is not None:  # (None: tokens from before this was recorded)
                store.revoke_tokens()
            store.set_meta("tokens_for", current)
        self._tokens = store.tokens()
        self._lock = asyncio.Lock()

    def _set_pin(self, pin: str, keep: str | None) -> None:
        """Store a new PIN's hash; every token but ``keep`` (a digest) ends."""
        self._store_pin_hash(hash_pin(pin), keep)

    def _store_pin_hash(self, stored: str, keep: str | None) -> None:
        """A new PIN's hash in place: every token but ``keep`` (a digest) and every join
        code end."""
        self.store.set_meta("pin_hash", stored)
        self.store.set_meta("tokens_for", stored)
        self.store.set_meta("pin_set", f"{self.clock():.0f}")
        self.store.delete_meta("join_codes")
        self.store.revoke_tokens(keep=keep)
        self._tokens = {d: v for d, v in getattr(self, "_tokens", {}).items() if d == keep}

    def check(self, pin: object) -> bool:
        """Whether ``pin`` is the table PIN or a join code still working (slow: one
        scrypt for each)."""
        if not isinstance(pin, str):
            return False
        stored = self.store.get_meta("pin_hash")
        if stored is not None and verify_pin(pin, stored):
            return True
        return any(verify_pin(pin, stored_code) for stored_code, _ in self._join_codes())

    def join_code(self) -> str:
        """A new join code: six digits that work like the PIN for ten minutes.

        The PIN is kept only as a hash, so nobody can be shown it again; a phone that is
        in, or ``companion pin`` on the table's computer, gives a friend a join code
        instead, and nobody's PIN changes.
        """
        code = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
        codes = self._join_codes()[-(MOST_JOIN_CODES - 1):]
        codes.append((hash_pin(code), self.clock() + JOIN_CODE_SECONDS))
        self.store.set_meta("join_codes", json.dumps(codes))
        return code

    def _join_codes(self) -> list[tuple[str, float]]:
        """The join codes still working: their hashes and when they stop."""
        try:
            codes = json.loads(self.store.get_meta("join_codes") or "[]")
        except ValueError:
            return []
        now = self.clock()
        return [(c[0], float(c[1])) for c in codes if isinstance(c, list) and len(c) == 2
                and isinstance(c[0], str) and isinstance(c[1], (int, float)) and c[1] > now]

    def _refusal(self, client: str, signed_in: bool) -> TooManyAttempts | None:
        wait = self.limiter.wait(client)
        if wait > 0:
            return TooManyAttempts(wait)
        table_wait = 0.0 if signed_in else self.table_limiter.wait()
        if table_wait > 0:
            return TooManyAttempts(table_wait, (
                "too many wrong PINs have been tried at this table; new phones can sign in "
                f"again in {max(1, round(table_wait / 60))} minutes (phones already signed "
                "in keep working)"))
        return None

    async def exchange(self, pin: object, client: str, label: str, at: str,
                       signed_in: bool = False) -> Grant:
        """A new token for the right PIN; wrong PINs count toward both waits.

        The limits are looked at before the PIN: a refused try costs no scrypt. Tries
        are checked one at a time, off the event loop.
        """
        async with self._lock:
            refusal = self._refusal(client, signed_in)
            if refusal is not None:
                raise refusal
            right = await asyncio.to_thread(self.check, pin)
            if not right:
                self.limiter.failure(client)
                if not signed_in:
                    self.table_limiter.failure()
                raise self._refusal(client, signed_in) or WrongPin(
                    "wrong PIN; a phone that is in can show a join code (History), or "
                    "run companion pin on the table's computer")
            self.limiter.success(client)
            token = secrets.token_urlsafe(24)
            digest = token_digest(token)
            now = self.clock()
            self.store.add_token(digest, label, at, now)
            self._tokens[digest] = (label, now)
            return Grant(token, label)

    def holder(self, token: str | None) -> str | None:
        """The label of a valid token, or ``None`` (unknown, or unused for too long)."""
        if not token:
            return None
        digest = token_digest(token)
        found = self._tokens.get(digest)
        if found is None:
            return None
        label, used = found
        now = self.clock()
        if now - used > self.idle_seconds:
            del self._tokens[digest]
            with contextlib.suppress(sqlite3.Error):
                self.store.revoke_one(digest)
            return None
        if now - used > 60:  # kept on disk at most once a minute per phone
            self._tokens[digest] = (label, now)
            with contextlib.suppress(sqlite3.Error):  # a full disk must not sign anyone out
                self.store.touch_token(digest, now)
        return label

    async def change_pin(self, new_pin: object, keep_token: str) -> None:
        """Set a new PIN; every other phone's token stops working."""
        pin = check_pin(new_pin)
        stored = await asyncio.to_thread(hash_pin, pin)  # one scrypt: off the event loop
        self._store_pin_hash(stored, token_digest(keep_token))
