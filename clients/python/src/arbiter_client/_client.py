"""`Client`: the connection, its token, request ids and retries."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any, List, Optional, Sequence, Tuple, Union, cast
from urllib.parse import urlsplit

import grpc
from arbiter.v1 import arbiter_service_pb2 as svc
from arbiter.v1 import arbiter_service_pb2_grpc as svc_grpc
from arbiter.v1 import game_pb2

from ._errors import ArbiterError
from ._names import ColorLike, color_value, enum_value, game_name
from ._retry import WATCH_RECONNECT, RetryPolicy
from ._watch import GameWatch, WatchItem

__all__ = ["Client", "GameRef", "new_request_id"]

#: A game: its id (`abc`), its name (`games/abc`) or a `Game` message.
GameRef = Union[str, game_pb2.Game]

_SERVICE = svc.DESCRIPTOR.services_by_name["ArbiterService"]

_MODES = {"otb": "OVER_THE_BOARD", "over-the-board": "OVER_THE_BOARD"}
_CLAIMS = {
    "threefold": "THREEFOLD_REPETITION",
    "repetition": "THREEFOLD_REPETITION",
    "fifty": "FIFTY_MOVES",
    "50": "FIFTY_MOVES",
}
_RESULTS = {
    "1-0": "WHITE_WINS",
    "0-1": "BLACK_WINS",
    "1/2-1/2": "DRAW",
    "½-½": "DRAW",
    "0-0": "BOTH_LOSE",
    "white": "WHITE_WINS",
    "black": "BLACK_WINS",
}
_STATUSES = {"in-progress": "IN_PROGRESS", "playing": "IN_PROGRESS"}

try:  # the distribution's version, for the user agent
    from importlib.metadata import version as _dist_version

    __version__ = _dist_version("arbiter-client")
except Exception:  # pragma: no cover - not installed as a distribution
    __version__ = "0"


def _color(color: ColorLike) -> Any:
    # The generated stubs type enum fields as their wrapper class (or its
    # names); the value is an int.
    return color_value(color)


def _enum(value: Union[str, int, None], enum_type: Any, prefix: str, aliases: Any = None) -> Any:
    return enum_value(value, enum_type, prefix, aliases)


def new_request_id() -> str:
    """A new idempotency key: a random UUID (v4), as the Rust client makes."""
    return str(uuid.uuid4())


def _target(url: str) -> Tuple[str, bool]:
    """`host:port` and whether it is TLS, for `http://host:port`,
    `https://host:port` or a bare `host:port` (taken as `http://`)."""
    text = url.strip()
    if "://" not in text:
        text = f"http://{text}"
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{url!r}: the scheme is http:// or https://")
    if not parts.hostname:
        raise ValueError(f"{url!r} is not a server address (http://host:port)")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"{url!r}: a server address has no path, query or user (http://host:port)")
    tls = parts.scheme == "https"
    host = parts.hostname
    if ":" in host:  # IPv6
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r}: the port is not a number") from None
    return f"{host}:{port or (443 if tls else 80)}", tls


def _bearer(token: Optional[str]) -> Tuple[Tuple[str, str], ...]:
    """The `authorization: Bearer <token>` metadata (none without a token),
    as the Rust client sends it."""
    if token is None or not token.strip():
        return ()
    token = token.strip()
    if any(not ("!" <= c <= "~") for c in token):
        raise ValueError("a token is printable ASCII without spaces")
    return (("authorization", f"Bearer {token}"),)


def _read_ca(ca: Union[str, "os.PathLike[str]", bytes]) -> bytes:
    if isinstance(ca, bytes):
        return ca
    with open(ca, "rb") as f:
        return f.read()


class Client:
    """A connection to the Arbiter service with one token.

    ```python
    arb = Client("http://127.0.0.1:50051", token="...")
    game = arb.create_game(white="A", black="B", time_control="5+3", start=True).game
    arb.make_move(game, "e4", color="white")
    ```

    - `url`: `http://host:port` (plain text), `https://host:port` (TLS, the
      system's roots unless `ca` is given) or a bare `host:port`.
    - `token`: an arbiter, service, viewer or player token, sent as
      `authorization: Bearer <token>` on every call.
    - `ca`: with `https://`, the PEM file (or its bytes) of the CA to trust
      (or the server's own self-signed certificate); `tls_server_name`, the
      name to check the certificate against when it is not the URL's host.
    - `retry`: how transient failures are resent (`RetryPolicy()`: 4
      attempts with exponential backoff and jitter; `NO_RETRY`).
    - `timeout`: the deadline of each unary call, in seconds (None: none).
    - `interceptors`: gRPC client interceptors, outermost first.

    Every mutation carries a request id (AIP-155): a fresh UUID unless the
    call is given one, and the same id on every resend, so the service
    applies it once and answers a resend with the original answer. A
    mutation on a game also takes `expected_seq` (AIP-154): the call fails
    with ABORTED unless it is the game's `last_seq`.

    Errors are raised as `ArbiterError`. The client is thread-safe; close it
    (or use it as a context manager) to close the connection.
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        ca: Union[str, "os.PathLike[str]", bytes, None] = None,
        tls_server_name: Optional[str] = None,
        retry: RetryPolicy = RetryPolicy(),
        timeout: Optional[float] = 30.0,
        interceptors: Sequence[Any] = (),
        options: Sequence[Tuple[str, Any]] = (),
    ) -> None:
        target, tls = _target(url)
        self._metadata = _bearer(token)
        if not tls and (ca is not None or tls_server_name is not None):
            raise ValueError(f"{url!r}: a CA or TLS server name needs an https:// address")
        channel_options: List[Tuple[str, Any]] = [
            ("grpc.primary_user_agent", f"arbiter-client-python/{__version__}"),
            # Find a dead connection under a long watch (the Rust client's
            # HTTP/2 keepalive: a ping every 20 s, 10 s to answer).
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.max_pings_without_data", 0),
        ]
        if tls_server_name is not None:
            channel_options.append(("grpc.ssl_target_name_override", tls_server_name))
        channel_options.extend(options)
        if tls:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read_ca(ca) if ca is not None else None
            )
            channel = grpc.secure_channel(target, credentials, options=channel_options)
        else:
            channel = grpc.insecure_channel(target, options=channel_options)
        self._channel = channel
        self._owns_channel = True
        self._intercepted = grpc.intercept_channel(channel, *interceptors) if interceptors else channel
        # The generated stub is untyped (grpcio-tools writes no .pyi for it).
        self._stub: Any = cast(Any, svc_grpc.ArbiterServiceStub)(self._intercepted)
        self._url = url.strip() if "://" in url else f"http://{url.strip()}"
        self.retry = retry
        self.timeout = timeout

    @classmethod
    def from_env(cls, **kwargs: Any) -> "Client":
        """A client from the CLI's environment: `ARBITER_URL` (default
        `http://127.0.0.1:50051`), `ARBITER_TOKEN`, and `ARBITER_CA` (a PEM
        file, with `https://`)."""
        url = os.environ.get("ARBITER_URL") or "http://127.0.0.1:50051"
        kwargs.setdefault("token", os.environ.get("ARBITER_TOKEN"))
        if os.environ.get("ARBITER_CA"):
            kwargs.setdefault("ca", os.environ["ARBITER_CA"])
        return cls(url, **kwargs)

    # -- The connection ---------------------------------------------------

    @property
    def url(self) -> str:
        """The server address."""
        return self._url

    @property
    def stub(self) -> Any:
        """The generated stub, for what this client does not cover (pass
        `metadata=client.metadata` for the token)."""
        return self._stub

    @property
    def metadata(self) -> Tuple[Tuple[str, str], ...]:
        """The metadata every call carries (the `authorization` header)."""
        return self._metadata

    def with_token(self, token: Optional[str]) -> "Client":
        """The same connection with another token (a player's, from
        CreateGame). Closing the original closes both."""
        other = object.__new__(Client)
        other.__dict__.update(self.__dict__)
        other._metadata = _bearer(token)
        other._owns_channel = False
        return other

    def close(self) -> None:
        """Closes the connection (a client from `with_token` leaves it to
        the client it came from)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        token = "<token>" if self._metadata else "none"
        return f"Client({self._url!r}, token={token})"

    # -- Any call ---------------------------------------------------------

    def call(
        self,
        method: str,
        request: Any,
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
        retry: Optional[RetryPolicy] = None,
    ) -> Any:
        """Sends any unary RPC of the API by name (`"PauseClocks"`) with its
        request message, as the typed methods do: a mutation gets a request
        id (`request_id`, the request's own, or a fresh UUID) that every
        resend repeats; `expected_seq` is set when given. Returns the
        response message."""
        spec = _SERVICE.methods_by_name.get(method)
        if spec is None or spec.client_streaming or spec.server_streaming:
            raise ValueError(f"{method!r} is not a unary RPC of arbiter.v1.ArbiterService")
        if request.DESCRIPTOR.full_name != spec.input_type.full_name:
            raise TypeError(
                f"{method} takes a {spec.input_type.full_name}, not a {request.DESCRIPTOR.full_name}"
            )
        fields = request.DESCRIPTOR.fields_by_name
        if "request_id" in fields:
            request.request_id = request_id or request.request_id or new_request_id()
        elif request_id is not None:
            raise ValueError(f"{method} takes no request id")
        if expected_seq is not None:
            if "expected_seq" not in fields:
                raise ValueError(f"{method} takes no expected_seq")
            request.expected_seq = expected_seq
        return self._unary(method, request, timeout, retry)

    def _unary(
        self, method: str, request: Any, timeout: Optional[float], retry: Optional[RetryPolicy]
    ) -> Any:
        """Sends `request`, resending the same request (the same request id)
        while the error is transient and the policy allows."""
        send = getattr(self._stub, method)
        policy = retry or self.retry
        deadline = timeout if timeout is not None else self.timeout
        attempts = 0
        while True:
            attempts += 1
            try:
                return send(request, timeout=deadline, metadata=self._metadata)
            except grpc.RpcError as e:
                error = ArbiterError.from_rpc_error(e)
                if attempts >= max(policy.attempts, 1) or not error.transient:
                    raise error from e
            time.sleep(policy.backoff(attempts))

    def _act(
        self,
        method: str,
        request: Any,
        request_id: Optional[str],
        expected_seq: Optional[int],
        timeout: Optional[float],
    ) -> Any:
        return self.call(method, request, request_id=request_id, expected_seq=expected_seq, timeout=timeout)

    # -- Reads ------------------------------------------------------------

    def get_game(self, game: GameRef, *, timeout: Optional[float] = None) -> game_pb2.Game:
        """GetGame: the game with its clocks read now."""
        response = cast(
            svc.GetGameResponse,
            self.call("GetGame", svc.GetGameRequest(name=game_name(game)), timeout=timeout),
        )
        return response.game

    def list_games(
        self,
        *,
        event: str = "",
        round: str = "",
        status: Union[str, int, None] = None,
        page_size: int = 0,
        timeout: Optional[float] = None,
    ) -> List[game_pb2.Game]:
        """ListGames, every page: the games of `event`, `round`, with
        `status` (`pending`, `in_progress`, `finished`...), ordered by id."""
        request = svc.ListGamesRequest(
            event=event,
            round=round,
            status=_enum(status, game_pb2.GameStatus, "GAME_STATUS_", _STATUSES),
            page_size=page_size,
        )
        games: List[game_pb2.Game] = []
        while True:
            page = self.call("ListGames", request, timeout=timeout)
            games.extend(page.games)
            if not page.next_page_token:
                return games
            request.page_token = page.next_page_token

    def list_game_events(self, game: GameRef, *, timeout: Optional[float] = None) -> List[Any]:
        """ListGameEvents, every page: the game's audit trail (`GameEvent`s
        with their rulings), in order."""
        request = svc.ListGameEventsRequest(parent=game_name(game), page_size=1000)
        events: List[Any] = []
        while True:
            page = self.call("ListGameEvents", request, timeout=timeout)
            events.extend(page.events)
            if not page.next_page_token:
                return events
            request.page_token = page.next_page_token

    def export_pgn(self, game: GameRef, *, timeout: Optional[float] = None) -> str:
        """ExportPgn: the game as PGN, with `[%clk]` and the rulings as
        comments."""
        return str(self.call("ExportPgn", svc.ExportPgnRequest(name=game_name(game)), timeout=timeout).pgn)

    def watch(
        self, game: GameRef, after_seq: int = 0, *, reconnect: RetryPolicy = WATCH_RECONNECT
    ) -> GameWatch[game_pb2.GameEvent]:
        """WatchGame as an iterator of the game's `GameEvent`s: every event
        after `after_seq`, in order, then live, until the game is over. A
        broken stream is reopened after the last event delivered (no gaps,
        no duplicates); a lasting or non-transient failure is raised as
        `ArbiterError`. Close it (`with`, `.close()`) to stop early."""
        return GameWatch(self, game_name(game), after_seq, reconnect, events_only=True)

    def watch_all(
        self, game: GameRef, after_seq: int = 0, *, reconnect: RetryPolicy = WATCH_RECONNECT
    ) -> GameWatch[WatchItem]:
        """As `watch`, with everything the stream sends: the `Game` as it
        stands when the stream opens (again after a reconnection), the
        `GameEvent`s, and the `ClockReading` heartbeats sent while nothing
        happens."""
        return GameWatch(self, game_name(game), after_seq, reconnect, events_only=False)

    # -- Creating and starting ---------------------------------------------

    def create_game(
        self,
        *,
        white: Union[str, game_pb2.Player] = "",
        black: Union[str, game_pb2.Player] = "",
        time_control: Optional[str] = None,
        mode: Union[str, int, None] = None,
        regulations: Optional[game_pb2.Regulations] = None,
        game_id: str = "",
        event: str = "",
        round: str = "",
        start: bool = False,
        request_id: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> svc.CreateGameResponse:
        """CreateGame (an arbiter or service token): returns the game and one
        token per player. `time_control` in the human form (`5+3`, `90+30`,
        `40/90+30, 30+30`) and `mode` (`over_the_board`/`otb`, `online`,
        `hybrid`) are set on `regulations`; `start` starts the clocks at once.
        A resend with the same `request_id` returns the original game and
        tokens."""
        regs = game_pb2.Regulations()
        if regulations is not None:
            regs.CopyFrom(regulations)
        if time_control is not None:
            regs.time_control = time_control
        if mode is not None:
            regs.mode = _enum(mode, game_pb2.Mode, "MODE_", _MODES)
        request = svc.CreateGameRequest(
            game_id=game_id,
            event=event,
            round=round,
            white=white if isinstance(white, game_pb2.Player) else game_pb2.Player(name=white),
            black=black if isinstance(black, game_pb2.Player) else game_pb2.Player(name=black),
            regulations=regs,
            start=start,
        )
        return cast(
            svc.CreateGameResponse, self.call("CreateGame", request, request_id=request_id, timeout=timeout)
        )

    def start_game(
        self,
        game: GameRef,
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.StartGameResponse:
        """StartGame (arbiter): White's clock starts (Law 6.6)."""
        return cast(
            svc.StartGameResponse,
            self._act(
                "StartGame", svc.StartGameRequest(name=game_name(game)), request_id, expected_seq, timeout
            ),
        )

    def cancel_game(
        self,
        game: GameRef,
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.CancelGameResponse:
        """CancelGame: withdraws a game that has not started."""
        return cast(
            svc.CancelGameResponse,
            self._act(
                "CancelGame", svc.CancelGameRequest(name=game_name(game)), request_id, expected_seq, timeout
            ),
        )

    # -- Players' acts ------------------------------------------------------

    def make_move(
        self,
        game: GameRef,
        move: str,
        *,
        color: ColorLike = None,
        premove: bool = False,
        castle: bool = False,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.MakeMoveResponse:
        """MakeMove: `move` as made or written, legal or not (SAN `Nf3`, long
        algebraic `Ng1-f3`, UCI `g1f3`). Over the board the press of the clock
        completes it. What became of it is the response's `outcome`
        (`MOVE_OUTCOME_ACCEPTED`, `..._REFUSED_TOUCH_MOVE`...); an act the
        Laws do not allow now raises `ArbiterError` (FAILED_PRECONDITION)."""
        request = svc.MakeMoveRequest(
            name=game_name(game), color=_color(color), move=move, premove=premove, castle=castle
        )
        return cast(svc.MakeMoveResponse, self._act("MakeMove", request, request_id, expected_seq, timeout))

    def press_clock(
        self,
        game: GameRef,
        *,
        color: ColorLike = None,
        other_hand: bool = False,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.PressClockResponse:
        """PressClock: completes the move (Law 6.2.1)."""
        request = svc.PressClockRequest(name=game_name(game), color=_color(color), other_hand=other_hand)
        return cast(
            svc.PressClockResponse, self._act("PressClock", request, request_id, expected_seq, timeout)
        )

    def touch_piece(
        self,
        game: GameRef,
        square: str,
        *,
        color: ColorLike = None,
        kind: Union[str, int, None] = None,
        simultaneous_square: str = "",
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.TouchPieceResponse:
        """TouchPiece: a piece touched (Law 4.2, 4.3); `kind` is `intent`
        (the default), `adjust` or `accidental`."""
        request = svc.TouchPieceRequest(
            name=game_name(game),
            color=_color(color),
            square=square,
            kind=_enum(kind, svc.TouchKind, "TOUCH_KIND_"),
            simultaneous_square=simultaneous_square,
        )
        return cast(
            svc.TouchPieceResponse, self._act("TouchPiece", request, request_id, expected_seq, timeout)
        )

    def offer_draw(
        self,
        game: GameRef,
        *,
        color: ColorLike = None,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.OfferDrawResponse:
        """OfferDraw (Law 9.1.2)."""
        request = svc.OfferDrawRequest(name=game_name(game), color=_color(color))
        return cast(svc.OfferDrawResponse, self._act("OfferDraw", request, request_id, expected_seq, timeout))

    def accept_draw(
        self,
        game: GameRef,
        *,
        color: ColorLike = None,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.AcceptDrawResponse:
        """AcceptDraw: accepts the pending offer."""
        request = svc.AcceptDrawRequest(name=game_name(game), color=_color(color))
        return cast(
            svc.AcceptDrawResponse, self._act("AcceptDraw", request, request_id, expected_seq, timeout)
        )

    def decline_draw(
        self,
        game: GameRef,
        *,
        color: ColorLike = None,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.DeclineDrawResponse:
        """DeclineDraw: declines the pending offer."""
        request = svc.DeclineDrawRequest(name=game_name(game), color=_color(color))
        return cast(
            svc.DeclineDrawResponse, self._act("DeclineDraw", request, request_id, expected_seq, timeout)
        )

    def claim_draw(
        self,
        game: GameRef,
        kind: Union[str, int],
        *,
        intended_move: str = "",
        color: ColorLike = None,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.ClaimDrawResponse:
        """ClaimDraw under Law 9.2 (`threefold`) or 9.3 (`fifty`), with the
        intended move written first (9.2.1, 9.3.1) or without. An incorrect
        claim is ruled (9.5.3), not raised."""
        request = svc.ClaimDrawRequest(
            name=game_name(game),
            color=_color(color),
            kind=_enum(kind, svc.ClaimKind, "CLAIM_KIND_", _CLAIMS),
            intended_move=intended_move,
        )
        return cast(svc.ClaimDrawResponse, self._act("ClaimDraw", request, request_id, expected_seq, timeout))

    def resign_game(
        self,
        game: GameRef,
        *,
        color: ColorLike = None,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.ResignGameResponse:
        """ResignGame (Law 5.1.2)."""
        request = svc.ResignGameRequest(name=game_name(game), color=_color(color))
        return cast(
            svc.ResignGameResponse, self._act("ResignGame", request, request_id, expected_seq, timeout)
        )

    # -- Arbiter's actions --------------------------------------------------

    def pause_clocks(
        self,
        game: GameRef,
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.PauseClocksResponse:
        """PauseClocks (arbiter, Law 6.11)."""
        return cast(
            svc.PauseClocksResponse,
            self._act(
                "PauseClocks", svc.PauseClocksRequest(name=game_name(game)), request_id, expected_seq, timeout
            ),
        )

    def resume_clocks(
        self,
        game: GameRef,
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.ResumeClocksResponse:
        """ResumeClocks (arbiter): the clock that was running runs again."""
        return cast(
            svc.ResumeClocksResponse,
            self._act(
                "ResumeClocks",
                svc.ResumeClocksRequest(name=game_name(game)),
                request_id,
                expected_seq,
                timeout,
            ),
        )

    def declare_result(
        self,
        game: GameRef,
        result: Union[str, int],
        *,
        request_id: Optional[str] = None,
        expected_seq: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> svc.DeclareResultResponse:
        """DeclareResult (arbiter, Law 8.7, 11.7, 11.8): `1-0`, `0-1`,
        `1/2-1/2`, `0-0`, or the enum's name (`white_wins`...)."""
        request = svc.DeclareResultRequest(
            name=game_name(game), result=_enum(result, svc.DeclaredResult, "DECLARED_RESULT_", _RESULTS)
        )
        return cast(
            svc.DeclareResultResponse, self._act("DeclareResult", request, request_id, expected_seq, timeout)
        )
