"""How calls are resent: exponential backoff with jitter."""

from __future__ import annotations

import dataclasses
import random


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How a call is resent when the error is transient
    (`ArbiterError.transient`: UNAVAILABLE, or a transport failure). A
    mutation is resent with the same request id, so the service applies it
    at most once (AIP-155) and answers every resend with the original answer.

    The defaults are the Rust client's: 4 attempts, waiting about 200 ms,
    400 ms, 800 ms between them (at most 2 s), each wait drawn at random
    between half and all of it, so that clients cut off together do not
    come back together.
    """

    attempts: int = 4
    """Attempts in all, the first included (1: no retry)."""
    initial_backoff: float = 0.2
    """The wait before the first resend, in seconds; doubled after each."""
    max_backoff: float = 2.0
    """The longest wait between two attempts, in seconds."""
    jitter: float = 0.5
    """The part of each wait drawn at random (0: none; 0.5: between half
    and all of it)."""

    def backoff(self, attempts_made: int, rng: "random.Random | None" = None) -> float:
        """The wait in seconds before the next attempt after `attempts_made`
        attempts (1 or more)."""
        exponent = min(max(attempts_made, 1) - 1, 16)
        ceiling = min(self.initial_backoff * float(1 << exponent), self.max_backoff)
        jitter = min(max(self.jitter, 0.0), 1.0)
        draw = float((rng or random).random())
        return ceiling * (1.0 - jitter * draw)


#: One attempt, no resend.
NO_RETRY = RetryPolicy(attempts=1, initial_backoff=0.0, max_backoff=0.0)

#: How a watch reconnects (the Rust client's `WatchOptions`): 10 failures in
#: a row, waiting 250 ms doubling to 5 s.
WATCH_RECONNECT = RetryPolicy(attempts=10, initial_backoff=0.25, max_backoff=5.0)
