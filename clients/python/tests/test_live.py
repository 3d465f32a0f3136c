"""The client against a real arbiterd (see conftest.py): games, acts,
refusals with their reason, rule id and Article, request ids and retries,
watch streams, PGN, and authentication."""

from __future__ import annotations

import io
import os
import threading
from typing import Any, Callable, List

import grpc
import pytest

from arbiter_client import NO_RETRY, ArbiterError, Client, Color, RetryPolicy, new_request_id, pb


def new_game(arb: Client, *, start: bool = True, mode: str = "otb", time_control: str = "90+30") -> Any:
    return arb.create_game(
        white="White, Python",
        black="Black, Python",
        event="Python client suite",
        round="1",
        time_control=time_control,
        mode=mode,
        start=start,
    )


def play(arb: Client, game: Any, *moves: str) -> None:
    """Over the board: each move made, then the clock pressed."""
    for i, move in enumerate(moves):
        color = Color.WHITE if (len(game_moves(arb, game)) % 2 == 0) else Color.BLACK
        made = arb.make_move(game, move, color=color)
        assert made.outcome == pb.MOVE_OUTCOME_ACCEPTED, (i, move, made)
        arb.press_clock(game, color=color)


def game_moves(arb: Client, game: Any) -> List[str]:
    return list(arb.get_game(game).moves_san)


def test_create_start_move_and_press(arb: Client) -> None:
    created = new_game(arb, start=False)
    game = created.game
    assert game.name.startswith("games/")
    assert game.status == pb.GAME_STATUS_PENDING
    assert created.white_token and created.black_token

    started = arb.start_game(game)
    assert started.game.status == pb.GAME_STATUS_IN_PROGRESS
    assert started.event.request_id, "a mutation carries a request id"

    made = arb.make_move(game, "e4", color="white")
    assert made.outcome == pb.MOVE_OUTCOME_ACCEPTED
    pressed = arb.press_clock(game, color=Color.WHITE)
    assert pressed.outcome == pb.MOVE_OUTCOME_ACCEPTED
    assert pressed.event.seq == made.event.seq + 1

    # A player's token acts for its own colour: no colour given.
    black = arb.with_token(created.black_token)
    assert black.make_move(game.name, "e7e5").outcome == pb.MOVE_OUTCOME_ACCEPTED
    black.press_clock(game.name)

    now = arb.get_game(game.name.split("/")[1])
    assert list(now.moves_san) == ["e4", "e5"]
    assert list(now.moves_uci) == ["e2e4", "e7e5"]
    assert now.side_to_move == pb.COLOR_WHITE
    assert (now.clocks.white_moves, now.clocks.black_moves) == (1, 1)
    assert now.last_seq == pressed.event.seq + 2
    listed = arb.list_games(event="Python client suite")
    assert game.name in [g.name for g in listed]


def test_a_move_out_of_turn_raises_with_reason_rule_and_article(arb: Client) -> None:
    game = new_game(arb).game
    with pytest.raises(ArbiterError) as raised:
        arb.make_move(game, "e5", color="black")
    e = raised.value
    assert e.code == grpc.StatusCode.FAILED_PRECONDITION, e
    assert e.reason == "NOT_YOUR_TURN", e
    assert e.domain == "arbiter.chess" and e.from_service and not e.transient
    assert (e.rule_id, e.article_number, e.rulebook) == ("FIDE-1.3", "1.3", "RULEBOOK_LAWS_OF_CHESS"), e
    assert e.article == "Article 1.3"
    assert e.message == "black does not have the move", e.details
    assert str(e) == "FAILED_PRECONDITION NOT_YOUR_TURN (FIDE-1.3, Article 1.3): black does not have the move"
    assert arb.get_game(game).last_seq == 1, "nothing was recorded"


def test_an_illegal_move_online_is_refused_under_the_ocr(arb: Client) -> None:
    game = new_game(arb, mode="online", time_control="15+10").game
    with pytest.raises(ArbiterError) as raised:
        arb.make_move(game, "e5", color="white")
    e = raised.value
    assert e.code == grpc.StatusCode.FAILED_PRECONDITION, e
    assert e.reason == "ILLEGAL_MOVE", e
    assert (e.rule_id, e.article) == ("OCR-3.1.2", "OCR 3.1.2"), e
    assert e.rulebook == "RULEBOOK_ONLINE_CHESS_REGULATIONS", e
    assert list(arb.get_game(game).moves_san) == []


def test_accepting_no_offer_is_refused_with_its_article(arb: Client) -> None:
    game = new_game(arb).game
    play(arb, game, "e4")
    with pytest.raises(ArbiterError) as raised:
        arb.accept_draw(game, color="black")
    e = raised.value
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_DRAW_OFFER"), e
    assert (e.rule_id, e.article) == ("FIDE-9.1.2b", "Article 9.1.2.1"), e
    assert e.details.endswith(f"({e.rule_id}, {e.article})")


def test_touch_move_is_an_outcome_with_its_obligation(arb: Client) -> None:
    game = new_game(arb).game
    arb.touch_piece(game, "g1", color="white")
    refused = arb.make_move(game, "d4", color="white")
    assert refused.outcome == pb.MOVE_OUTCOME_REFUSED_TOUCH_MOVE
    assert refused.obligation.rule_id == "FIDE-4.3a"
    assert refused.obligation.article.number == "4.3.1"
    assert sorted(refused.obligation.allowed_moves) == ["g1f3", "g1h3"]


def test_malformed_input_names_the_field(arb: Client) -> None:
    with pytest.raises(ArbiterError) as raised:
        arb.create_game(white="A", black="B", time_control="soon")
    e = raised.value
    assert e.code == grpc.StatusCode.INVALID_ARGUMENT
    assert e.reason == "INVALID_ARGUMENT"
    assert [v.field for v in e.field_violations] == ["regulations.time_control"], e.field_violations
    assert e.field_violations[0].description


def test_the_same_request_id_is_applied_once(arb: Client) -> None:
    game = new_game(arb).game
    request_id = new_request_id()
    first = arb.make_move(game, "d4", color="white", request_id=request_id)
    again = arb.make_move(game, "d4", color="white", request_id=request_id)
    assert again.event.seq == first.event.seq
    assert again.event.request_id == first.event.request_id == request_id
    assert arb.get_game(game).last_seq == first.event.seq
    recorded = [e for e in arb.list_game_events(game) if e.request_id == request_id]
    assert len(recorded) == 1

    # The same id for another request is refused, and changes nothing.
    with pytest.raises(ArbiterError) as raised:
        arb.make_move(game, "c4", color="white", request_id=request_id)
    assert raised.value.code == grpc.StatusCode.ALREADY_EXISTS
    assert raised.value.reason == "REQUEST_ID_REUSED"
    assert arb.get_game(game).last_seq == first.event.seq

    # A creation too: the retry returns the original game and tokens.
    creation = new_request_id()
    created = arb.create_game(white="A", black="B", time_control="5+3", request_id=creation)
    recreated = arb.create_game(white="A", black="B", time_control="5+3", request_id=creation)
    assert recreated.game.name == created.game.name
    assert recreated.white_token == created.white_token


class LoseFirstAnswer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Sends each call of `method`, but reports the first one's answer as
    lost (UNAVAILABLE), as a connection cut after the service committed."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.request_ids: List[str] = []

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        if details.method.endswith("/" + self.method):
            self.request_ids.append(request.request_id)
            if len(self.request_ids) == 1:
                outcome.result()  # the service has recorded it
                raise LostAnswer()
        return outcome


class LostAnswer(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection reset (simulated)"

    def trailing_metadata(self) -> Any:
        return ()

    def initial_metadata(self) -> Any:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> Any:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


def test_a_lost_answer_is_resent_with_the_same_request_id(url: str, token: str) -> None:
    lose = LoseFirstAnswer("MakeMove")
    retry = RetryPolicy(attempts=3, initial_backoff=0.05)
    with Client(url, token=token, interceptors=[lose], retry=retry) as arb:
        game = new_game(arb).game
        made = arb.make_move(game, "Nf3", color="white")
        assert made.outcome == pb.MOVE_OUTCOME_ACCEPTED
        assert len(lose.request_ids) == 2 and lose.request_ids[0] == lose.request_ids[1]
        assert made.event.request_id == lose.request_ids[0]
        moves = [e for e in arb.list_game_events(game) if e.act == made.event.act]
        assert len(moves) == 1, "the move was recorded once"
        assert arb.get_game(game).last_seq == made.event.seq


def test_a_stale_expected_seq_is_aborted_and_not_retried(arb: Client) -> None:
    game = new_game(arb).game
    seq = arb.get_game(game).last_seq
    arb.make_move(game, "e4", color="white", expected_seq=seq)
    with pytest.raises(ArbiterError) as raised:
        arb.press_clock(game, color="white", expected_seq=seq)
    assert raised.value.code == grpc.StatusCode.ABORTED
    assert raised.value.reason == "STALE_SEQ"
    assert not raised.value.transient


def test_watch_streams_every_event_once_until_the_game_is_over(arb: Client) -> None:
    game = new_game(arb).game
    play(arb, game, "e4", "e5")
    before = arb.get_game(game).last_seq
    seen: List[Any] = []
    with arb.watch(game) as watch:
        # The recorded events first, then live ones.
        for event in watch:
            seen.append(event)
            if event.seq == before:
                break
        players = threading.Thread(
            target=lambda: (play(arb, game, "Nf3"), arb.resign_game(game, color="black"))
        )
        players.start()
        for event in watch:  # until the game is over: the stream ends
            seen.append(event)
        players.join()
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))
    acts = [e.act for e in seen]
    assert acts[-1] == "RESIGN", acts
    assert acts.count("PRESS_CLOCK") == 3, acts
    assert watch.last_seq == arb.get_game(game).last_seq
    end = arb.get_game(game).end
    assert (end.result, end.rule_id, end.article.number) == ("1-0", "FIDE-5.1.2", "5.1.2")

    # Resumed after a seq: the rest only; with everything the stream sends.
    items = list(arb.watch_all(game, after_seq=before))
    assert isinstance(items[0], pb.Game)
    assert [i.seq for i in items if isinstance(i, pb.GameEvent)] == list(range(before + 1, len(seen) + 1))


def test_export_pgn_reads_in_python_chess(arb: Client) -> None:
    chess_pgn = pytest.importorskip("chess.pgn")
    game = new_game(arb).game
    play(arb, game, "e4", "e5", "Nf3")
    arb.resign_game(game, color="black")
    text = arb.export_pgn(game)
    parsed = chess_pgn.read_game(io.StringIO(text))
    assert parsed is not None, text
    assert parsed.headers["White"] == "White, Python"
    assert parsed.headers["Result"] == "1-0"
    assert [m.uci() for m in parsed.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
    assert not parsed.errors, parsed.errors


def test_any_rpc_by_name(arb: Client) -> None:
    game = new_game(arb).game
    paused = arb.call("PauseClocks", pb.PauseClocksRequest(name=game.name))
    assert paused.game.clocks.paused and paused.event.request_id
    resumed = arb.resume_clocks(game)
    assert not resumed.game.clocks.paused
    with pytest.raises(ValueError):
        arb.call("WatchGame", pb.WatchGameRequest(name=game.name))
    with pytest.raises(TypeError):
        arb.call("GetGame", pb.ExportPgnRequest(name=game.name))


def test_a_call_without_a_valid_token_is_unauthenticated(url: str) -> None:
    for token in (None, "not-a-token-of-this-server"):
        with Client(url, token=token) as anonymous:
            with pytest.raises(ArbiterError) as raised:
                anonymous.list_games()
        e = raised.value
        assert e.code == grpc.StatusCode.UNAUTHENTICATED, e
        assert e.reason == "UNAUTHENTICATED" and e.from_service and not e.transient
        assert e.rule_id is None and e.article is None


def test_a_viewer_may_not_create_games(url: str) -> None:
    viewer = os.environ.get("ARBITER_TEST_VIEWER_TOKEN")
    if not viewer:
        pytest.skip("ARBITER_TEST_VIEWER_TOKEN is not set")
    with Client(url, token=viewer) as client:
        client.list_games()
        with pytest.raises(ArbiterError) as raised:
            new_game(client)
    assert raised.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert raised.value.reason == "PERMISSION_DENIED"


def test_tls_with_the_servers_ca(token: str) -> None:
    tls_url, ca = os.environ.get("ARBITER_TEST_TLS_URL"), os.environ.get("ARBITER_TEST_CA")
    if not tls_url or not ca:
        pytest.skip("ARBITER_TEST_TLS_URL and ARBITER_TEST_CA are not set")
    with Client(tls_url, token=token, ca=ca) as client:
        created = new_game(client)
        assert client.get_game(created.game).name == created.game.name
    # Without the CA the certificate is not trusted: no connection.
    with Client(tls_url, token=token, retry=NO_RETRY) as untrusted:
        with pytest.raises(ArbiterError) as raised:
            untrusted.list_games()
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
