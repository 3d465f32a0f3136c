#!/usr/bin/env bash
# PGN validation throughput: arbiter-chess (the pgn-check example, bench profile
# build) against python-chess, in mainline plies per second, on every file.
#
#   crates/chess/benches/pgn-throughput.sh [FILE...]
#
# Without arguments it runs on the four collections in shared/data/pgn/.
# Both sides do the same work: read every game, parse and check every
# mainline SAN, play the moves. python-chess follows the method of
# shared/data/pgn/README.md (chess.pgn.read_game until EOF, then replay
# game.mainline_moves() with Board.push); its read_game also parses the
# (absent) variations. Wall-clock time of the whole read+replay loop, best of
# RUST_RUNS (default 5) and PY_RUNS (default 1) runs; timings on a shared
# machine vary by ±20 %.
#
# Environment: CARGO_TARGET_DIR (default: the workspace's target/),
# ARBITER_SHARED (the shared/ folder), PYTHON (default python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
shared="${ARBITER_SHARED:-$(cd "$root/.." && pwd)/shared}"
python="${PYTHON:-python3}"
rust_runs="${RUST_RUNS:-5}"
py_runs="${PY_RUNS:-1}"

if [ "$#" -gt 0 ]; then
    files=("$@")
else
    files=(
        "$shared/data/pgn/lichess_db_standard_rated_2013-01_truncated_5000.pgn"
        "$shared/data/pgn/lichess_db_1000k.pgn"
        "$shared/data/pgn/Alekhine.pgn"
        "$shared/data/pgn/twic0920.pgn"
    )
fi

(cd "$root" && cargo build --profile bench -q -p arbiter-chess --example pgn-check)
target="${CARGO_TARGET_DIR:-$root/target}"
check="$target/bench/examples/pgn-check"

"$python" -c 'import chess; assert chess.__version__ == "1.11.2", chess.__version__' ||
    echo "warning: python-chess is not version 1.11.2" >&2

# Prints "games plies seconds" for one python-chess run.
py_run() {
    "$python" - "$1" <<'PY'
import sys, time
import chess.pgn

path = sys.argv[1]
start = time.perf_counter()
games = plies = errors = 0
with open(path, encoding="utf-8") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        games += 1
        if game.errors:
            errors += 1
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
seconds = time.perf_counter() - start
print(games, plies, f"{seconds:.6f}")
PY
}

# Prints "games plies seconds" for one arbiter-chess run (its own timer
# covers opening the file, reading and validating; not process start-up).
rust_run() {
    local summary
    summary="$("$check" "$1" | tail -n 1)" || {
        echo "pgn-check reported errors in $1" >&2
        return 1
    }
    # games G, plies P, errors E, seconds S
    echo "$summary" | sed -E 's/^games ([0-9]+), plies ([0-9]+), errors ([0-9]+), seconds ([0-9.]+)$/\1 \2 \4/'
}

best_of() {
    local runs="$1" fn="$2" file="$3" best="" line secs
    for _ in $(seq "$runs"); do
        line="$("$fn" "$file")"
        secs="${line##* }"
        if [ -z "$best" ] || awk -v a="$secs" -v b="${best##* }" 'BEGIN { exit !(a < b) }'; then
            best="$line"
        fi
    done
    echo "$best"
}

printf '%-54s %7s %9s %12s %12s %8s\n' file games plies "rust plies/s" "py plies/s" ratio
tot_plies=0
tot_rust=0
tot_py=0
for f in "${files[@]}"; do
    read -r rg rp rs <<<"$(best_of "$rust_runs" rust_run "$f")"
    read -r pg pp ps <<<"$(best_of "$py_runs" py_run "$f")"
    if [ "$rg" != "$pg" ] || [ "$rp" != "$pp" ]; then
        echo "mismatch on $f: arbiter $rg games $rp plies, python-chess $pg games $pp plies" >&2
        exit 1
    fi
    awk -v f="$(basename "$f")" -v g="$rg" -v p="$rp" -v rs="$rs" -v ps="$ps" 'BEGIN {
        printf "%-54s %7d %9d %12.0f %12.0f %7.0fx\n", f, g, p, p / rs, p / ps, ps / rs }'
    tot_plies=$((tot_plies + rp))
    tot_rust="$(awk -v a="$tot_rust" -v b="$rs" 'BEGIN { print a + b }')"
    tot_py="$(awk -v a="$tot_py" -v b="$ps" 'BEGIN { print a + b }')"
done
awk -v p="$tot_plies" -v rs="$tot_rust" -v ps="$tot_py" 'BEGIN {
    printf "%-54s %7s %9d %12.0f %12.0f %7.0fx\n", "total", "", p, p / rs, p / ps, ps / rs }'
