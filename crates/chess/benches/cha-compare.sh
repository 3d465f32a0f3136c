#!/usr/bin/env bash
# "Can this side still mate?" side by side with the Chess Unwinnability
# Analyzer (CHA, https://github.com/miguel-ambrona/D3-Chess), the analyser
# issue 18 (point 4) names as the speed to reach: the same 60,000 queries
# (both sides of the 30,000 final positions of deadpos/lichess-30K-games.txt),
# in rounds that alternate CHA's quick mode, CHA's full mode and
# `dead::can_mate` (the can_mate bench, first run of every query), on the
# same machine in one run. Then CHA's full answers are handed to the can_mate
# bench as its reference, so that the two analysers' answers are compared
# query by query.
#
#   CHA=/path/to/cha crates/chess/benches/cha-compare.sh [ROUNDS]   (default 3)
#
# CHA is GPL and no part of it is in this repository: build it outside, from
# its own repository, with the Stockfish commit its lib/stockfish/Makefile
# names (51deae8), as its README says (`make get-stockfish`, `make`,
# `make install` in lib/stockfish, then `make` in src). Without network,
# Stockfish's `make build` stops at the download of its evaluation network,
# which CHA never uses: `make ARCH=x86-64 all` with any file under the
# network's name in Stockfish/src builds it. Both sides are built for the
# baseline x86-64 (Stockfish's ARCH=x86-64, this crate's default target).
#
# Both time one query the same way: a clock read before and after the call,
# the FEN parsed before. CHA's full mode answers every query with a helpmate
# or a proof (what `can_mate` does, within its budget); its quick mode only
# proves that no mate exists and leaves every other query undetermined.
#
# Environment: CHA (the cha binary, required), ARBITER_SHARED (the shared/
# folder), CARGO_TARGET_DIR.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
shared="${ARBITER_SHARED:-$(cd "$root/.." && pwd)/shared}"
rounds="${1:-3}"
games="$shared/data/deadpos/lichess-30K-games.txt"

if [ -z "${CHA:-}" ] || [ ! -x "$CHA" ]; then
    echo "cha-compare: set CHA to a built cha binary (see the comment at the top of $0)" >&2
    exit 2
fi
if [ ! -f "$games" ]; then
    echo "skipped: data set $games not found; set ARBITER_SHARED to the folder that holds data/"
    exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/arbiter-cha-compare.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One query a line, "FEN white" then "FEN black", in the order of the bench.
awk '{ fen = $1 " " $2 " " $3 " " $4 " " $5 " " $6; print fen " white"; print fen " black" }' \
    "$games" > "$work/queries"

(cd "$root" && cargo bench -q -p arbiter-chess --bench can_mate --no-run 2> /dev/null) ||
    (cd "$root" && cargo bench -p arbiter-chess --bench can_mate --no-run)
ours() { (cd "$root" && cargo bench -q -p arbiter-chess --bench can_mate -- "$@" 2> /dev/null); }

# "average µs" from CHA's closing line "Analyzed N positions in T ms (avg: A us; ...; max: M us)".
cha_avg() { sed -n 's/^Analyzed .*(avg: \([0-9.]*\) us;.*max: \([0-9]*\) us).*/\1 \2/p' "$1"; }

printf '%-6s %-28s %-44s %-40s\n' round "CHA quick: avg µs / max µs" \
    "CHA full: avg / p50 / p99 / max µs" "can_mate first run: avg / p50 / p99 / max µs"
declare -a quick full mine
for r in $(seq 1 "$rounds"); do
    "$CHA" -quick < "$work/queries" > "$work/quick"
    "$CHA" < "$work/queries" > "$work/full"
    ours --no-reference --runs 1 > "$work/ours"
    read -r q_avg q_max < <(cha_avg "$work/quick")
    read -r f_avg f_max < <(cha_avg "$work/full")
    # Per-query times of the full mode ("... time T (FEN side)", whole µs).
    read -r f_p50 f_p99 < <(sed -n 's/.* time \([0-9]*\) (.*/\1/p' "$work/full" | sort -n |
        awk '{ t[NR] = $1 } END { print t[int((NR - 1) * 0.5 + 1.5)], t[int((NR - 1) * 0.99 + 1.5)] }')
    line="$(grep -m1 'first run: average' "$work/ours")"
    read -r o_avg o_p50 o_p99 o_max < <(echo "$line" |
        sed 's/.*average \([0-9.]*\) us, p50 \([0-9.]*\) us, p99 \([0-9.]*\) us, .*max \([0-9.]*\) us.*/\1 \2 \3 \4/')
    quick+=("$q_avg")
    full+=("$f_avg")
    mine+=("$o_avg")
    printf '%-6s %-28s %-44s %-40s\n' "$r" "$q_avg / $q_max" "$f_avg / $f_p50 / $f_p99 / $f_max" \
        "$o_avg / $o_p50 / $o_p99 / $o_max"
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m_quick="$(median "${quick[@]}")"
m_full="$(median "${full[@]}")"
m_mine="$(median "${mine[@]}")"
echo "medians of the rounds: CHA quick $m_quick µs, CHA full $m_full µs, can_mate first run $m_mine µs"
awk -v q="$m_quick" -v f="$m_full" -v m="$m_mine" 'BEGIN {
    printf "can_mate takes x%.2f the time of CHA'"'"'s quick mode and x%.3f that of its full mode (%.0f times faster)\n", m / q, m / f, f / m }'

# Answers: CHA's quick mode decides only "unwinnable"; its full mode, every query.
unw_quick="$(grep -c '^unwinnable' "$work/quick" || true)"
total="$(wc -l < "$work/queries")"
echo "CHA quick: $unw_quick of $total queries decided (unwinnable), the rest undetermined"
echo "CHA full: winnable $(grep -c '^winnable' "$work/full" || true)," \
    "unwinnable $(grep -c '^unwinnable' "$work/full" || true)," \
    "undetermined $(grep -c '^undetermined' "$work/full" || true)"
grep -m1 'answers:' "$work/ours" | sed 's/^ */can_mate: /'

# CHA's full answers as the bench's reference ("white:W black:W" a position).
grep -E '^(winnable|unwinnable|undetermined)' "$work/full" |
    awk '{ w = ($1 == "winnable") ? "can-mate" : ($1 == "unwinnable") ? "cannot-mate" : "unknown" }
         NR % 2 == 1 { white = w } NR % 2 == 0 { print "white:" white " black:" w }' > "$work/reference"
ours --reference "$work/reference" --runs 1 | grep -E 'reference|CONTRADICTION|lost:|BAD WITNESS|WRONG'
