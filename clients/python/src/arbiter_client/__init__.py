"""The Python client of Arbiter, the chess-arbiter gRPC service under the
FIDE Laws of Chess.

```python
from arbiter_client import ArbiterError, Client
arb = Client("http://127.0.0.1:50051", token="...")
game = arb.create_game(white="A", black="B", time_control="5+3", start=True).game
arb.make_move(game, "e4", color="white")
```

The generated stubs are the package `arbiter.v1` (`arbiter.v1.game_pb2`,
`arbiter.v1.arbiter_service_pb2`, `arbiter.v1.arbiter_service_pb2_grpc`),
built from the API's protos when this package is built; `arbiter_client.pb`
gathers their messages and enums in one namespace.
"""

from ._client import Client, GameRef, __version__, new_request_id
from ._errors import DOMAIN, ArbiterError, FieldViolation, is_transient
from ._names import Color, ColorLike, article_of, article_text, game_name
from ._retry import NO_RETRY, WATCH_RECONNECT, RetryPolicy
from ._watch import GameWatch, WatchItem

__all__ = [
    "DOMAIN",
    "NO_RETRY",
    "WATCH_RECONNECT",
    "ArbiterError",
    "Client",
    "Color",
    "ColorLike",
    "FieldViolation",
    "GameRef",
    "GameWatch",
    "RetryPolicy",
    "WatchItem",
    "__version__",
    "article_of",
    "article_text",
    "game_name",
    "is_transient",
    "new_request_id",
]
