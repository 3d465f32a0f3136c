"""The suite's server: `ARBITER_TEST_URL` (an arbiterd to create games on,
never a production one) with an arbiter token in `ARBITER_TEST_TOKEN`;
optionally `ARBITER_TEST_VIEWER_TOKEN`, and `ARBITER_TEST_TLS_URL` with
`ARBITER_TEST_CA` for a server that serves TLS. The end-to-end test
`tests/tests/e2e/python_client.rs` starts arbiterd and sets them. Without
`ARBITER_TEST_URL` the live tests skip."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from arbiter_client import Client


def _env(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        pytest.skip(f"{name} is not set (the live tests need a running arbiterd)")
    return value


@pytest.fixture(scope="session")
def url() -> str:
    return _env("ARBITER_TEST_URL")


@pytest.fixture(scope="session")
def token() -> str:
    return _env("ARBITER_TEST_TOKEN")


@pytest.fixture
def arb(url: str, token: str) -> Iterator[Client]:
    with Client(url, token=token) as client:
        yield client
