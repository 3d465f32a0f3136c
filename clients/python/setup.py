"""The build step of arbiter-client: generates the gRPC stubs.

`build_py` runs grpcio-tools on the API's protos (`proto/arbiter/v1/*.proto`
of the repository, or the copy an sdist carries) and writes the stubs as
the package `arbiter.v1` (the proto package: the generated modules import
each other as `arbiter.v1.*`) beside `arbiter_client`: into the build
directory for a wheel, into `src/` for an editable install. Nothing
generated is committed (see the repository's .gitignore).

The protos are looked up in `$ARBITER_PROTO_DIR`, then `./proto` (an
sdist), then `../../proto` (the repository).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent


def proto_root() -> Path:
    """The folder that holds `arbiter/v1/*.proto`."""
    env = os.environ.get("ARBITER_PROTO_DIR")
    candidates = [Path(env)] if env else [HERE / "proto", HERE.parent.parent / "proto"]
    for candidate in candidates:
        if sorted((candidate / "arbiter" / "v1").glob("*.proto")):
            return candidate.resolve()
    tried = ", ".join(str(c) for c in candidates)
    raise SystemExit(
        f"arbiter-client: no arbiter/v1/*.proto in {tried}; build from the repository's clients/python "
        "or set ARBITER_PROTO_DIR to the repository's proto/ folder"
    )


def generate_stubs(out: Path) -> list[str]:
    """Runs grpcio-tools on every proto of `arbiter/v1` into `out`; returns
    the files written."""
    import grpc_tools
    from grpc_tools import protoc

    root = proto_root()
    protos = sorted((root / "arbiter" / "v1").glob("*.proto"))
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    package = out / "arbiter" / "v1"
    # A stale stub of a proto that no longer exists must not survive.
    for old in package.glob("*_pb2*.py*"):
        old.unlink()
    package.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"--proto_path={root}",
        f"--proto_path={well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *(str(p) for p in protos),
    ]
    if protoc.main(args) != 0:
        raise SystemExit(f"arbiter-client: grpc_tools.protoc failed on {root}")
    # PEP 561: the message stubs (.pyi) are typed. `arbiter` and
    # `arbiter.v1` stay namespace packages (no __init__.py), as protoc
    # writes them, so they never shadow another distribution's `arbiter.*`.
    (package / "py.typed").write_text("")
    return sorted(str(p) for p in package.iterdir() if p.is_file())


class BuildPyWithStubs(build_py):
    """`build_py` that also writes the generated `arbiter.v1` stubs."""

    def run(self) -> None:
        super().run()
        out = HERE / "src" if getattr(self, "editable_mode", False) else Path(self.build_lib)
        self._stubs = generate_stubs(out)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return list(super().get_outputs(include_bytecode)) + list(getattr(self, "_stubs", []))


class SdistWithProtos(sdist):
    """`sdist` that carries the protos (`proto/arbiter/v1/*.proto`), so the
    stubs are generated from the same API when the sdist is built."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        source = proto_root() / "arbiter" / "v1"
        target = Path(base_dir) / "proto" / "arbiter" / "v1"
        target.mkdir(parents=True, exist_ok=True)
        for proto in sorted(source.glob("*.proto")):
            shutil.copyfile(proto, target / proto.name)


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithProtos})
