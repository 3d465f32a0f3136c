"""`ArbiterError`: a gRPC status with its `google.rpc` details decoded."""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Mapping, Optional, Tuple

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from ._names import article_text

#: The ErrorInfo domain of the errors the service returns.
DOMAIN = "arbiter.chess"

_CODES_BY_VALUE = {code.value[0]: code for code in grpc.StatusCode}


@dataclasses.dataclass(frozen=True)
class FieldViolation:
    """One `google.rpc.BadRequest` field violation: which field of the
    request was wrong (`regulations.time_control`), and why."""

    field: str
    description: str


def is_transient(code: grpc.StatusCode, from_service: bool) -> bool:
    """The retry rule of the Rust client (`arbiter_client::Error::is_transient`):
    UNAVAILABLE always; UNKNOWN, INTERNAL and CANCELLED only when the service
    did not say so itself (a status without its ErrorInfo comes from the
    transport: a reset, a refused connection, a protocol error).
    DEADLINE_EXCEEDED is not transient: the deadline is the caller's."""
    if code == grpc.StatusCode.UNAVAILABLE:
        return True
    if code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED):
        return not from_service
    return False


class ArbiterError(Exception):
    """An error answer of the service (or of the transport below it).

    Every error of the service carries a `google.rpc.ErrorInfo` of domain
    `arbiter.chess` with an UPPER_SNAKE_CASE `reason` (`NOT_YOUR_TURN`,
    `TOUCH_MOVE`, `UNAUTHENTICATED`...); a refusal by the Laws adds the rule
    id and its Article to the ErrorInfo metadata; malformed input adds
    `google.rpc.BadRequest` field violations; a limit adds a RetryInfo.
    """

    code: grpc.StatusCode
    """The gRPC status code."""
    details: str
    """The status message as sent (for a refusal by the Laws, the sentence
    for the players followed by ` (RULE, ARTICLE)`; see `message`)."""
    reason: Optional[str]
    """The ErrorInfo reason, if any."""
    domain: Optional[str]
    """The ErrorInfo domain (`arbiter.chess` for the service's own errors)."""
    metadata: Mapping[str, str]
    """The ErrorInfo metadata (`rule_id`, `article`, `rulebook`)."""
    field_violations: Tuple[FieldViolation, ...]
    """The BadRequest field violations."""
    retry_delay: Optional[float]
    """The RetryInfo delay in seconds: how long to wait before sending the
    same request again, when the service said."""

    def __init__(
        self,
        code: grpc.StatusCode,
        details: str = "",
        *,
        reason: Optional[str] = None,
        domain: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        field_violations: Tuple[FieldViolation, ...] = (),
        retry_delay: Optional[float] = None,
    ) -> None:
        self.code = code
        self.details = details
        self.reason = reason or None
        self.domain = domain or None
        self.metadata = dict(metadata or {})
        self.field_violations = tuple(field_violations)
        self.retry_delay = retry_delay
        super().__init__(str(self))

    # -- Decoding ---------------------------------------------------------

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> "ArbiterError":
        """Decodes a `google.rpc.Status` (code, message and details)."""
        code = _CODES_BY_VALUE.get(status.code, grpc.StatusCode.UNKNOWN)
        reason: Optional[str] = None
        domain: Optional[str] = None
        metadata: Dict[str, str] = {}
        violations: List[FieldViolation] = []
        retry_delay: Optional[float] = None
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations.extend(FieldViolation(v.field, v.description) for v in bad.field_violations)
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
        return cls(
            code,
            status.message,
            reason=reason,
            domain=domain,
            metadata=metadata,
            field_violations=tuple(violations),
            retry_delay=retry_delay,
        )

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "ArbiterError":
        """Decodes the error a gRPC call raised (with `rpc_status.from_call`:
        the `grpc-status-details-bin` trailer)."""
        code_of = getattr(error, "code", None)
        details_of = getattr(error, "details", None)
        code = code_of() if callable(code_of) else grpc.StatusCode.UNKNOWN
        details = (details_of() if callable(details_of) else None) or ""
        status = None
        try:
            status = rpc_status.from_call(error)
        except (AttributeError, ValueError):
            # Not a call (a test double), or a message that disagrees with
            # the details: keep what the status line says.
            status = None
        if status is None:
            return cls(code or grpc.StatusCode.UNKNOWN, details)
        decoded = cls.from_status(status)
        if decoded.code != code and code is not None:
            decoded.code = code
        return decoded

    # -- What it says -----------------------------------------------------

    @property
    def rule_id(self) -> Optional[str]:
        """The rule id a refusal by the Laws rests on (`FIDE-4.3a`)."""
        return self.metadata.get("rule_id") or None

    @property
    def article_number(self) -> Optional[str]:
        """The Article as printed in its rulebook (`4.3.1`, `A.5.2`, `5.3`)."""
        return self.metadata.get("article") or None

    @property
    def rulebook(self) -> Optional[str]:
        """The rulebook of `article_number`, by its enum name
        (`RULEBOOK_LAWS_OF_CHESS`, `RULEBOOK_ONLINE_CHESS_REGULATIONS`)."""
        return self.metadata.get("rulebook") or None

    @property
    def article(self) -> Optional[str]:
        """The Article a reader looks up: `Article 4.3.1`, `Guidelines III.4`,
        `OCR 5.3`; None when the error names none."""
        number = self.article_number
        if number is None:
            return None
        return article_text(number, self.rulebook)

    @property
    def from_service(self) -> bool:
        """True when the status came from the service itself (its ErrorInfo
        domain is `arbiter.chess`), not from the transport."""
        return self.domain == DOMAIN

    @property
    def transient(self) -> bool:
        """True when sending the same request again may succeed (see
        `is_transient`). The client resends such calls by itself, with the
        same request id."""
        return is_transient(self.code, self.from_service)

    @property
    def message(self) -> str:
        """The status message without the ` (RULE)` or ` (RULE, ARTICLE)`
        the service appends when the rule id is known."""
        rule = self.rule_id
        if rule:
            for suffix in (f" ({rule})", f" ({rule}, {self.article})"):
                if self.details.endswith(suffix):
                    return self.details[: -len(suffix)]
        return self.details

    def __str__(self) -> str:
        """`FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a, Article 4.3.1): ...`,
        with the field violations the message does not list already."""
        name = self.code.name if isinstance(self.code, grpc.StatusCode) else str(self.code)
        text = name
        if self.reason and self.reason != name:
            text += f" {self.reason}"
        rule, article = self.rule_id, self.article
        if rule and article:
            text += f" ({rule}, {article})"
        elif rule:
            text += f" ({rule})"
        message = self.message
        if message:
            text += f": {message}"
        fields = [f"{v.field}: {v.description}" for v in self.field_violations]
        if fields and not all(f in message for f in fields):
            text += f" [{'; '.join(fields)}]"
        return text

    def __repr__(self) -> str:
        return f"ArbiterError({self.code!r}, {self.details!r}, reason={self.reason!r}, metadata={self.metadata!r})"
