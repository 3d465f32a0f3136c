"""What the client does on its own, without a server: names, Articles,
the retry rule and its backoff, decoding an error status, and the stubs
beside python-chess."""

from __future__ import annotations

import random

import grpc
import pytest
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from arbiter_client import (
    NO_RETRY,
    ArbiterError,
    Client,
    Color,
    RetryPolicy,
    article_of,
    article_text,
    game_name,
    is_transient,
    pb,
)


def test_the_stubs_import_beside_python_chess() -> None:
    chess = pytest.importorskip("chess")
    import arbiter.v1.arbiter_service_pb2 as service_pb2
    import arbiter.v1.arbiter_service_pb2_grpc as service_grpc

    board = chess.Board()
    board.push_san("e4")
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert getattr(chess, "__file__", None), "chess is python-chess, not a namespace package"
    service = service_pb2.DESCRIPTOR.services_by_name["ArbiterService"]
    assert service.full_name == "arbiter.v1.ArbiterService"
    assert hasattr(service_grpc, "ArbiterServiceStub")
    assert pb.MakeMoveRequest.DESCRIPTOR.full_name == "arbiter.v1.MakeMoveRequest"


def test_game_names_and_colours() -> None:
    assert game_name("abc") == "games/abc"
    assert game_name(" games/abc ") == "games/abc"
    assert game_name(pb.Game(name="games/x")) == "games/x"
    with pytest.raises(ValueError):
        game_name("  ")
    assert Color.WHITE == pb.COLOR_WHITE and Color.BLACK == pb.COLOR_BLACK


def test_articles_read_as_their_rulebooks_print_them() -> None:
    assert article_text("9.5.3", "RULEBOOK_LAWS_OF_CHESS") == "Article 9.5.3"
    assert article_text("III.4", "RULEBOOK_LAWS_OF_CHESS") == "Guidelines III.4"
    assert article_text("5.4.1", "RULEBOOK_ONLINE_CHESS_REGULATIONS") == "OCR 5.4.1"
    assert article_text("A.5.2", pb.RULEBOOK_LAWS_OF_CHESS) == "Article A.5.2"
    assert article_of(pb.Article(number="4.3.1", rulebook=pb.RULEBOOK_LAWS_OF_CHESS)) == "Article 4.3.1"
    assert article_of(pb.Article()) is None


def test_the_retry_rule_is_the_rust_clients() -> None:
    assert is_transient(grpc.StatusCode.UNAVAILABLE, from_service=True)
    assert is_transient(grpc.StatusCode.INTERNAL, from_service=False)
    assert not is_transient(grpc.StatusCode.INTERNAL, from_service=True)
    assert not is_transient(grpc.StatusCode.DEADLINE_EXCEEDED, from_service=False)
    assert not is_transient(grpc.StatusCode.FAILED_PRECONDITION, from_service=True)


def test_backoff_doubles_to_its_ceiling_with_jitter() -> None:
    policy = RetryPolicy(attempts=6, initial_backoff=0.2, max_backoff=2.0)
    rng = random.Random(7)
    for attempts_made, ceiling in [(1, 0.2), (2, 0.4), (3, 0.8), (4, 1.6), (5, 2.0), (9, 2.0)]:
        waits = [policy.backoff(attempts_made, rng) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits), (attempts_made, min(waits), max(waits))
        assert max(waits) - min(waits) > ceiling / 4, "the waits are drawn at random"
    assert RetryPolicy(jitter=0).backoff(2) == 0.4
    assert NO_RETRY.attempts == 1


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def test_an_error_status_is_decoded() -> None:
    info = error_details_pb2.ErrorInfo(
        reason="NO_DRAW_OFFER",
        domain="arbiter.chess",
        metadata={"rule_id": "FIDE-9.1b", "article": "9.1.2", "rulebook": "RULEBOOK_LAWS_OF_CHESS"},
    )
    bad = error_details_pb2.BadRequest(
        field_violations=[error_details_pb2.BadRequest.FieldViolation(field="name", description="empty")]
    )
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1, nanos=500_000_000))
    status = status_pb2.Status(
        code=code_pb2.FAILED_PRECONDITION,
        message="there is no draw offer (FIDE-9.1b, Article 9.1.2)",
        details=[_pack(info), _pack(bad), _pack(retry)],
    )
    e = ArbiterError.from_status(status)
    assert e.code == grpc.StatusCode.FAILED_PRECONDITION
    assert (e.reason, e.rule_id, e.article, e.article_number) == (
        "NO_DRAW_OFFER",
        "FIDE-9.1b",
        "Article 9.1.2",
        "9.1.2",
    )
    assert e.message == "there is no draw offer"
    assert e.from_service and not e.transient
    assert [(v.field, v.description) for v in e.field_violations] == [("name", "empty")]
    assert e.retry_delay == 1.5
    assert str(e) == (
        "FAILED_PRECONDITION NO_DRAW_OFFER (FIDE-9.1b, Article 9.1.2): there is no draw offer [name: empty]"
    )


def test_addresses_tokens_and_tls_options_are_checked() -> None:
    with pytest.raises(ValueError, match="scheme"):
        Client("ftp://127.0.0.1:1")
    with pytest.raises(ValueError, match="path"):
        Client("http://127.0.0.1:1/api")
    with pytest.raises(ValueError, match="printable ASCII"):
        Client("127.0.0.1:1", token="two words")
    with pytest.raises(ValueError, match="https://"):
        Client("http://127.0.0.1:1", ca=b"-----BEGIN CERTIFICATE-----")
    with Client("127.0.0.1:1", token=" t0ken ") as client:
        assert client.url == "http://127.0.0.1:1"
        assert client.metadata == (("authorization", "Bearer t0ken"),)
        assert client.with_token(None).metadata == ()


def test_an_unreachable_server_is_retried_then_unavailable() -> None:
    # Nothing listens on port 1: every attempt fails at once.
    with Client("http://127.0.0.1:1", retry=RetryPolicy(attempts=3, initial_backoff=0.01)) as client:
        with pytest.raises(ArbiterError) as raised:
            client.get_game("abc")
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
    assert raised.value.transient and not raised.value.from_service
