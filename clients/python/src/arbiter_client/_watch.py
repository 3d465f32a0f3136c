"""WatchGame as an iterator, resumed across broken connections."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Generic, Iterator, Optional, TypeVar, Union

import grpc
from arbiter.v1 import arbiter_service_pb2 as svc
from arbiter.v1 import game_pb2

from ._errors import ArbiterError
from ._retry import RetryPolicy

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["GameWatch", "WatchItem"]

#: What `Client.watch_all` yields: the game as the stream opens, its events,
#: the heartbeat clocks.
WatchItem = Union[game_pb2.Game, game_pb2.GameEvent, game_pb2.ClockReading]

T = TypeVar("T")

# A game in these states records nothing more: its stream ends.
_OVER = (game_pb2.GAME_STATUS_FINISHED, game_pb2.GAME_STATUS_CANCELLED, game_pb2.GAME_STATUS_EXPIRED)


class GameWatch(Generic[T]):
    """The iterator of `Client.watch` (events) and `Client.watch_all`.

    When the stream breaks (UNAVAILABLE, a transport error, an end while
    the game is not over, a gap in the sequence numbers) it is reopened
    after the last event delivered, so events come in order of `seq`, each
    exactly once. It ends after the last event of a game that is over. A
    non-transient error (NOT_FOUND, PERMISSION_DENIED...), or `reconnect`'s
    attempts failing in a row, is raised as `ArbiterError`.
    """

    def __init__(
        self, client: "Client", name: str, after_seq: int, reconnect: RetryPolicy, events_only: bool
    ) -> None:
        self._client = client
        self.name = name
        """The game, `games/{game}`."""
        self.last_seq = after_seq
        """The `seq` of the last event delivered (a new watch after it
        continues where this one stopped)."""
        self.reconnects = 0
        """How many times the stream was reopened."""
        self._reconnect = reconnect
        self._events_only = events_only
        self._call: Optional[Any] = None
        self._closed = False
        self._lock = threading.Lock()
        self._items = self._run()

    def __iter__(self) -> "GameWatch[T]":
        return self

    def __next__(self) -> T:
        return next(self._items)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Stops the watch and closes its stream (from any thread)."""
        with self._lock:
            self._closed = True
            call = self._call
        if call is not None:
            call.cancel()

    def __enter__(self) -> "GameWatch[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _open(self) -> Any:
        request = svc.WatchGameRequest(name=self.name, after_seq=self.last_seq)
        with self._lock:
            if self._closed:
                return None
            self._call = self._client.stub.WatchGame(request, metadata=self._client.metadata)
            return self._call

    def _run(self) -> Iterator[Any]:
        failures = 0
        while True:
            call = self._open()
            if call is None:
                return
            finished_at: Optional[int] = None
            error: ArbiterError
            try:
                for message in call:
                    which = message.WhichOneof("item")
                    if which == "game":
                        game = message.game
                        finished_at = game.last_seq if game.status in _OVER else None
                        if not self._events_only:
                            yield game
                    elif which == "event":
                        event = message.event
                        if event.seq <= self.last_seq:
                            continue
                        if event.seq != self.last_seq + 1:
                            raise _Gap(self.last_seq, event.seq)
                        self.last_seq = event.seq
                        failures = 0
                        yield event
                    elif which == "heartbeat":
                        failures = 0
                        if not self._events_only:
                            yield message.heartbeat
                if self._over(finished_at):
                    return
                error = ArbiterError(grpc.StatusCode.UNAVAILABLE, "the stream ended before the game was over")
            except grpc.RpcError as e:
                if self._closed:
                    return
                error = ArbiterError.from_rpc_error(e)
            except _Gap as gap:
                error = ArbiterError(grpc.StatusCode.UNAVAILABLE, str(gap))
            finally:
                call.cancel()
            failures += 1
            if not error.transient or failures >= max(self._reconnect.attempts, 1):
                raise error
            time.sleep(self._reconnect.backoff(failures))
            self.reconnects += 1

    def _over(self, finished_at: Optional[int]) -> bool:
        """Whether the game is over and every event up to `last_seq` was
        delivered."""
        if finished_at is not None and self.last_seq >= finished_at:
            return True
        try:
            game = self._client.get_game(self.name, timeout=10.0)
        except ArbiterError:
            return False
        return game.status in _OVER and self.last_seq >= game.last_seq


class _Gap(Exception):
    def __init__(self, last: int, got: int) -> None:
        super().__init__(f"the stream skipped from seq {last} to {got}; resuming")
