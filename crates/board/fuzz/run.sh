#!/usr/bin/env bash
# Runs the fuzz targets of arbiter-board for a fixed time each.
#
#   crates/laws/fuzz/run.sh [SECONDS] [TARGET...]
#
# SECONDS defaults to 300 per target; TARGETs default to all of them
# (`observations`). The committed seeds in seeds/<target>/ are read; new corpus
# entries go to corpus/<target>/ and crashes to artifacts/<target>/ (both
# git-ignored). Logs are written to artifacts/logs/<target>.log.
#
# Environment:
#   SANITIZER        none (default; the crates are safe Rust apart from the
#                    chess move list) or address, memory, thread, leak.
#   CARGO_TARGET_DIR where to build (cargo-fuzz default: fuzz/target).
#   FUZZ_JOBS        parallel fuzzing jobs per target (default 1).
#
# cargo-fuzz needs a nightly compiler. With a nightly toolchain installed it
# is used; otherwise the stable one is unlocked with RUSTC_BOOTSTRAP=1.
# Install cargo-fuzz with `cargo install cargo-fuzz`.
#
# Reproduce a crash: RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a observations <file>
set -euo pipefail

cd "$(dirname "$0")"

seconds=${1:-300}
if [ $# -gt 0 ]; then shift; fi
if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=(observations)
fi

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    cargo=(cargo +nightly)
else
    export RUSTC_BOOTSTRAP=1
    cargo=(cargo)
fi

sanitizer=${SANITIZER:-none}
jobs=${FUZZ_JOBS:-1}
# -a: debug assertions (and so integer overflow checks) in the fuzzed code.
build_flags=(--sanitizer "$sanitizer" --debug-assertions)

# An input is at most a few hundred events; let libFuzzer use the full
# length from the start so games get deep quickly (-len_control=0).
max_len() {
    case "$1" in
        observations) echo 4096 ;;
        *) echo 256 ;;
    esac
}

parallel=()
if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi

mkdir -p artifacts/logs
failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "seeds/$t" "artifacts/$t"
    echo "=== $t: ${seconds}s (sanitizer $sanitizer, jobs $jobs) ==="
    if "${cargo[@]}" fuzz run "${build_flags[@]}" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=30 \
        -print_final_stats=1 -len_control=0 \
        "${parallel[@]}" 2>&1 | tee "artifacts/logs/$t.log"; then
        echo "=== $t: no crash ==="
    else
        echo "=== $t: FAILED, see artifacts/$t/ and artifacts/logs/$t.log ==="
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "crashes in: ${failed[*]}"
    exit 1
fi
echo "all targets ran ${seconds}s without a crash"
