"""Every message and enum of the API (`arbiter.v1`) in one namespace:
`pb.Regulations`, `pb.MakeMoveRequest`, `pb.MOVE_OUTCOME_ACCEPTED`...
(the generated modules themselves are `arbiter.v1.*_pb2`)."""

from arbiter.v1.arbiter_service_pb2 import *  # noqa: F403
from arbiter.v1.board_pb2 import *  # noqa: F403
from arbiter.v1.event_pb2 import *  # noqa: F403
from arbiter.v1.game_pb2 import *  # noqa: F403
