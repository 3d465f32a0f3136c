//! Dead positions and "can this side ever checkmate?" (FIDE 5.2.2, 6.9, 7.5.5, 5.1.2).
//!
//! The Laws ask whether a side can checkmate "by any possible series of legal
//! moves": whether a *helpmate* exists, with both sides cooperating. That is
//! not a material count (K+N mates K+R, but never K+Q), so [`can_mate`]
//! answers with a proof either way, or admits it does not know:
//!
//! * [`Mateability::CanMate`] carries a *witness*: legal moves from the given
//!   position ending with the other side checkmated. [`is_witness`] checks one.
//! * [`Mateability::CannotMate`] is only ever returned with a proof, and the
//!   analysis is built so that it is never wrong (soundness first).
//! * [`Mateability::Unknown`] means the node budget ran out first.
//!
//! # Method
//!
//! The approach follows the published "Chess Unwinnability Analyzer" of
//! M. Ambrona (D3-Chess / chasolver); the code here is written from scratch.
//! [`can_mate`] answers within a few milliseconds, since a flag ruling
//! waits for it; [`can_mate_with_budget`] with [`THOROUGH_BUDGET`] is the
//! slower analysis an arbiter's review of an unknown answer can use.
//!
//! 1. **Forced moves.** While the side to move has exactly one legal move it
//!    is played; a forced line that repeats a position can never mate, and one
//!    that ends in mate or stalemate decides the question (Laws 6.9 example:
//!    a flagged player's only move stalemates the opponent).
//! 2. **Material** ([`has_insufficient_material`]): exact rules for piece-only
//!    endings (bare king; K+N against queens only; same-coloured bishops with
//!    no pawn, knight or other-coloured bishop on the board).
//! 3. **Lean depth-shaped search** (the search of step 7 without the
//!    semi-static analysis, made lean: no position at the depth limit is
//!    expanded; a node one ply above it with no progress just made (most
//!    nodes) generates only the moves it can use (in the ordinary case the
//!    loser's king and knights, the winner's moves that may check or cost
//!    nothing), and a loser's such node whose king and knights cannot head
//!    for their targets ends there; such a node of the loser is not even
//!    entered when its parent can tell (the loser's knights have no square
//!    nearer their target, and the winner's move leaves every square its
//!    king could head for attacked), and a winner's node all of whose
//!    moves would lead there generates only its progress moves and checks;
//!    its moves are ordered on one stack shared by all nodes (in its first
//!    two runs the winner's pawn moves make progress from its 4th rank
//!    when it has a rook but no queen, from any rank when it has neither,
//!    since its mate then mostly needs a promoted pawn), and its
//!    transposition table is one per thread,
//!    kept from call to call and cleared by epochs), for at most `FAST_FIRST_NODES` nodes; when the
//!    winner has a queen or a rook, its mating corner is the corner nearest
//!    the loser's king (on any rank), otherwise, when it has no bishop, the
//!    one of the loser's back rank nearer the loser's king (the colour of
//!    the corner only matters to bishops). Then the same towards the next
//!    nearest corner (the other corner of that rank without a queen or a
//!    rook), for at most `FAST_OTHER_CORNER_NODES` nodes. 98 queries in a
//!    hundred of the lichess sample get their witness here. Then
//!    the exhaustive search of step 8, for at most `EXHAUSTIVE_FIRST_NODES`
//!    nodes (a node's other moves sorted only when its best one failed):
//!    with no depth limit and never going back over a position, it
//!    finds most of the helpmates the first lines missed (long ones, through
//!    promotions and king walks), where the steps below would spend some
//!    thousand nodes before it; its witnesses are longer.
//! 4. **A plan** (module `plan`): the textbook helpmates of the endings
//!    where searches grow long, played greedily move by move with a
//!    mate-in-one test before every move of the winner: without a queen or
//!    rook, the winner's pawn with the shortest way promotes (its king first
//!    takes the loser's pawns on that way); then the loser's king walks to an
//!    edge square, the winner's king to the square two steps in front of it,
//!    and a queen or rook checks along the edge.
//! 5. **Narrow witness search**: the best 4 or 3 moves by heuristics (the
//!    winner's pieces approach the loser's king and attack its
//!    neighbourhood, the loser's pieces stay next to their king and avoid
//!    captures, the loser's king walks towards the edge), up to three winner
//!    moves deep by iterative deepening, 160 nodes. (The quick mode, a budget
//!    of 0, only runs its greedy line: the best move of each side at every
//!    node, up to 8 winner moves deep, 16 nodes if the winner has a queen, 8
//!    with rooks, none with minor pieces only.)
//! 6. **Semi-static analysis** of blocked pawn structures: which pawns can
//!    never move, and which squares every other piece can ever reach; if no
//!    winner piece can ever attack a square the loser's king can reach (or only
//!    same-coloured bishops can, and the flight squares of the other colour
//!    can never all be blocked; or only pawns that never capture, whose
//!    checks the king can always answer by taking the undefended pawn), no
//!    mate exists. Kings that can never move act as walls and guards; a
//!    pawn that only a king can take stays locked when that capture always
//!    stalemates (the "stalemate motif"); when only the loser's king can
//!    move, a mate needing the winner's king in place before the loser's
//!    last move, next to the square it came from, is impossible (the
//!    "tempo" rule); castling rights are harmless when a frozen piece stands
//!    between king and rook. Outside the quick mode it is also tried one
//!    ply deeper: if after every legal move (and the forced replies) the
//!    position is proved dead, so is this one. Then the lean search of
//!    step 3 runs again, on twice the budget (its nodes are the cheapest
//!    of all: many end on the transposition table or the analysis), pruned
//!    by this analysis after every pawn move and capture.
//! 7. **Depth-shaped search** with iterative deepening and a transposition
//!    table, on a tenth of the budget (half of it when only a promotion of
//!    the loser can give the winner a mate). The depth cost of a move follows
//!    D3-Chess: a mating corner is chosen on the loser's back rank (its
//!    colour from the bishops; for a lone knight that needs a promoted
//!    blocker, on the loser's promotion rank beside its leading pawn); the
//!    winner's captures and pawn moves to its
//!    6th rank, kings and knights heading for their target squares (the
//!    winner's king two squares in front of the corner, the loser's king the
//!    corner, the loser's other pieces the square beside it), the loser's pawn
//!    moves when only a loser's promotion can give the winner a mate, and any
//!    move answering such a progress move are free; the loser's captures cost
//!    3 plies, every other move 1 (with special rules for locked structures
//!    of pawns and bishops). These costs only decide *where* the search looks
//!    first. A search that ends without any branch cut by depth or budget has
//!    seen every reachable position, so "no mate found" is then a proof;
//!    inside the search, the material rules and the semi-static analysis
//!    close branches that provably cannot mate.
//! 8. **Exhaustive search** on the whole budget: every reachable position is
//!    expanded once (a set of the positions seen, no depth limit, an explicit
//!    stack), pruned by the material rules and the semi-static analysis. It
//!    settles most positions whose reachable set is small (locked pawn
//!    structures, few pieces) either way: a mate is found, or it has walked
//!    the whole set and no mate exists. Its witnesses can be long.
//!
//! Steps 3 to 5 only ever return witnesses (legal moves ending in mate); a
//! "cannot mate" comes from steps 1, 2, 6, 8 or a search of step 3 or 7 that
//! was cut nowhere (or saw every reachable position).
//!
//! # Cost
//!
//! `cargo bench -p arbiter-chess --bench can_mate` measures [`can_mate`]
//! over the final positions of 30,000 lichess games (both sides of each) and
//! the D3-Chess test vectors; the README lists its figures. Most queries
//! end in step 3; the slowest run through every step on the whole
//! [`DEFAULT_BUDGET`].
//!
//! Where the time goes (profile of the former default, 178 µs per query on
//! average): half of the queries reached the depth-shaped search of step 7,
//! at 260 µs each, mostly spent on the semi-static analysis after every
//! pawn move and capture, one allocation and sort per node and a move list
//! generated for every position at the depth limit; 58 queries reached the
//! exhaustive search (49 ms each on average, 0.3 s at most) and 8 spent the
//! whole budget.
//!
//! Before the last changes of issue 18, point 4 (fastest of 3 runs, 11.8
//! to 11.9 µs per query on average) nine queries in ten ended in the first
//! lean search, at 6.8 µs each: a witness cost its search's nodes (35 on
//! average: about as many as its plies, some 20, and the lines tried
//! before) at about 0.2 µs a node. Nearly every node had one ply of depth
//! left: 42% were the loser's with no progress just made (0.2 moves
//! searched each, most ending at once), 29% the winner's likewise (its
//! mate-in-one test, then 1.7 of some 19 moves), 21% the loser's after
//! progress (10 moves), 9% the winner's after progress (20 moves, each
//! scored). Generating only the moves the first two kinds use had brought
//! the average from 14.4 to 11.9 µs (the same search, node for node).
//!
//! Now (fastest of 3 runs, 7.5 to 7.7 µs per query on average, 1.5 times
//! less than before in the same session) most of the loser's nodes that
//! would end at once are not entered (their parent sees that the loser's
//! king has nowhere to head for), the first lean searches count the
//! winner's pawn moves as progress from a lower rank without a queen, and a
//! winner with a queen or a rook heads for the nearest corner on any rank:
//! 97% of the queries end in the first lean search, at 6.1 µs each (25
//! nodes a witness of some 20 plies, at about 0.24 µs a node: the nodes
//! left are the dearer ones). Of its nodes, 11% are the loser's with no
//! progress just made, 41% the winner's likewise, 37% the loser's after
//! progress, 11% the winner's after progress. One query in a hundred ends
//! in the second lean search (the next corner), at 45 µs each, and one in
//! 150 in the brief walk, at 110 µs each (the failed lean searches
//! included): together they take a sixth of the time. Some 30 queries go
//! further; the slowest (2.4 to 2.5 ms) spend the whole budget. The first
//! run of a query costs some 2.2 times its fastest run on the loaded
//! development machine, mostly in mispredicted branches it seems (as
//! measured before these changes: run again at once a query cost 1.5 times
//! less, once more after another query 1.8 times less, as if the predictors
//! learnt that position's lines, its data staying in the caches after one
//! run; and a branch simulation (cachegrind) counted some 1,500
//! mispredicted branches a query, one in seven of them an indirect jump:
//! the dispatch by piece of the move order, the kinds of move in
//! `Position::after`).
//!
//! A second pass (fastest of 3 runs on a quieter machine, three rounds
//! interleaved with the build before it: 5.96 to 6.23 µs per query on
//! average before, 4.92 to 5.07 µs after, 0.82 to 0.84 times; the median
//! query 4.1 to 4.3 µs before, 3.4 to 3.5 µs after; p99 38 to 40 µs
//! before, 31 µs after; the slowest query 1.9 to 2.0 ms before, 1.6 to 1.7
//! ms after; a first run 11.7 to 12.4 µs before, 10.2 to 10.9 µs after; the
//! same answers) took constant work out of every node, the same search node
//! for node but for one budget:
//!
//! * The population count was dear: the crate is built for the baseline
//!   x86-64, which has no instruction for it (`count_ones` is a dozen
//!   instructions), and the material rules and `need_loser_promotion` (at
//!   every node), the zone hits of the winner's move order (at every move
//!   of the winner) and the forced-moves step counted squares. They now
//!   test for exactly one or two squares with bit tricks, count the 3×3
//!   block around the loser's king by a 512-entry table, and count legal
//!   moves only up to two (some 9%; a build with `popcnt` enabled is no
//!   faster than this one).
//! * So was arithmetic on squares: king distances and edge distances of the
//!   move order come from tables, the squares nearer a king's target from a
//!   table of boxes (no distance per square), the targets are worked out
//!   when the corner is chosen rather than two to six times a node, the
//!   winner's ranks of pawn progress are one shift, and
//!   `Role::from_index` is a match rather than a table (some 10% together).
//! * The generator finds the king's squares attacked by sliders set-wise,
//!   one lookup per slider that could reach them rather than two per square
//!   (some 2%).
//! * The search towards the next corner got 200 nodes instead of 100 (some
//!   1%): of the 1,039 queries whose first lean search fails it settles
//!   more before the walk (a larger budget only adds answers).
//!
//! Where the time goes now (profile, and runs with a part done twice): the
//! move order a quarter, the move generation (full lists and the winner's
//! candidates) a sixth, the mate-in-one tests a seventh (`Position::after`
//! and the flight squares' attackers most of it), the children's
//! `Position::after` a twentieth, the transposition table's probes (cache
//! misses) 4%; by step, the first lean search 80% of the time (queens 26%,
//! rooks 34%, minor pieces 10%, pawns only 10%), the second one 6%, the
//! walk 9% and the later steps 5%, and the 1,039 queries whose first lean
//! search fails spend 0.43 µs of the average in it. A query's time follows
//! its witness's length, about 0.27 µs a ply before the pass.
//!
//! Tried without gain in that pass: the lookups by occupancy of sliders
//! replaced or skipped when none is aligned with the square in the attack
//! tests (the flight squares of the mate-in-one test, the loser-cut test:
//! by the squares between an aligned slider and the square, 1.5% slower;
//! set-wise; with a test of the rays first); rook attacks by rank and file
//! tables ("kindergarten", 4.5 KiB instead of the magic table's 800 KiB:
//! 6% slower); the loser's moves ordered as the generator lists them (no
//! move list), and the groups of a piece's moves recorded by the generator
//! (no search for a piece's last move nor lookup of its role: 5% slower);
//! a piece's targets appended four at a time without a branch per move; the
//! role bitboards of `Position::after` updated without a branch on the role
//! (two ways), and the moving piece's role handed to it by the move order
//! (1% slower); the moves cut by depth scored and counted without a branch
//! (5% slower); the best move tracked by the order's loop instead of a scan
//! after it (4% slower), or found by a branch-free scan; the mate-in-one
//! filter working out the piece's role once (4% slower); the transposition
//! table's entries packed into 8 bytes (2% slower); `cost_with` kept out of
//! the order's loops; `File::new` and `Rank::new` by a match (1% slower);
//! the empty-board rays of `blockers_for` from a table, and the lookups
//! for checks and pins in the generator skipped when no enemy slider is on
//! the king's lines; the distance in `nearer` from a table; at least four
//! blocked pawns told without a count; other orders of the steps after the
//! first lean search (at best 1% on the step costs), other first budgets
//! (the same), 1,500 nodes for the brief walk (slower built with the 200
//! nodes of the second corner, the median query included); the loser's
//! progress moves first at its nodes after progress (3 answers lost).
//! Builds differ by up to 5% from code layout alone (two constants changed
//! made the median query, which they do not touch, 7% slower), so that
//! gains below some 2% cannot be told apart; and the branch simulation of
//! cachegrind overstates the mispredicted loop exits (removing most of them
//! gained nothing).
//!
//! The target, 5 µs on average, is about reached on a quiet
//! machine (4.9 to 5.1 µs) but not on the loaded one where it was measured
//! before (7.5 to 7.7 µs then, some 6.3 µs expected now): it would need
//! both fewer nodes and cheaper ones. The first lean search alone takes
//! some 4 µs of the average, the queries it leaves to the next steps 1 µs
//! more. The helpmates these searches find
//! follow D3-Chess's mating corner (kings walking, pawns promoting), some
//! 20 plies long where shorter tactical ones exist; searches steered
//! towards the short ones (the narrow search or a greedy line first, even
//! only for a queen, checks counted as progress) were slower, and so were
//! smaller or larger first budgets, a width limit, deeper first iterations,
//! a third corner, a mate-in-one test in the walk, the walk before the
//! second corner or instead of it for minor pieces, a shorter longest line,
//! the winner's progress moves first after the loser's progress, the
//! winner's king moves not counted as progress (with a queen, or with
//! neither a queen nor a rook), its bishops' moves towards the corner
//! counted as progress, and other ranks of progress for its pawns (a
//! loser's move that offers the winner a capture tried first paid before
//! the pawns' ranks changed, not after). The nearest corner on any rank was
//! slower for every winner before the loser's dead nodes were left out; now
//! it is faster with a queen or a rook (and no better for minor pieces). A
//! finder of short helpmates cannot reach the target alone either: in a
//! sample of 2,000 of the queries (searched exhaustively), 39% have a
//! helpmate within 4 plies, 14% more within 6, and the 27% that need longer
//! ones (endings where kings walk and pawns promote) took 5.5 µs of the
//! average by themselves; only 7% of the queries have one within 2 plies.
//! Nor can a cheaper node alone: the full legal move list of a position
//! costs some 75 ns (20 moves, caches warm), so 25 nodes a witness cost
//! some 2 µs before any ordering or mate test; of the rest, the move order
//! takes a quarter of the time and the mate-in-one tests a seventh. A test
//! without playing the move that a check leaves a flight square (before the
//! mate-in-one test plays it), a smaller or larger transposition table and
//! a prefetch of its entries gave nothing measurable. The 4.5 µs of the
//! D3-Chess quick mode only prove that no mate exists; they find no
//! witness.
//!
//! A third pass aimed at the first run of each query (what a flag ruling
//! pays; the passes before measured the fastest of three runs, where the
//! branch predictors have learnt the query's lines and its data is in the
//! caches), the same search node for node. A branch simulation
//! (cachegrind) counted some 950 mispredicted branches a query, a third
//! of them in the move order (its grouping of the list by piece, the jump
//! by role to each piece's loop, the branches of the costs), an eighth in
//! the mate-in-one test's filter over the whole list (a role lookup and a
//! jump by role a move); the first-level data cache misses mattered little
//! (rook attacks from 4.5 KiB tables instead of the magic table's 800
//! KiB: 37% fewer misses, 8% slower). Now:
//!
//! * the fast search orders a node's moves as the generator finds them
//!   (`NodeSink`: no move list, no grouping, no lookup of the role, the
//!   generator telling the kind of piece), the winner's moves that may give
//!   check going to their own list, the only moves the mate-in-one test
//!   looks at (the brief walk's moves too);
//! * the move costs and scores, the scan for the best move and
//!   `need_loser_promotion` are worked out with arithmetic rather than
//!   branches, and `Position::after` toggles the role bitboards without a
//!   jump by role;
//! * a node's expansion is kept out of the recursive frame (half the stack
//!   a ply: a line of twenty plies had taken more than the first-level
//!   cache beside the rest).
//!
//! Together (cachegrind, 10,000 lichess positions): 35% fewer mispredicted
//! conditional branches, 94% fewer indirect ones, 7% fewer instructions,
//! 10% fewer first-level cache misses on reads and 56% on writes. The
//! first runs (lichess sample, eight rounds interleaved with the build
//! before the pass, on the 2-core machine while other builds ran, load
//! average 1.5 to 3): the average query 13.1 to 17.1 µs before (median of
//! the rounds 13.9), 10.2 to 12.2 µs after (11.3); the median query 9.4 to
//! 11.0 µs before, 7.6 to 8.3 µs after; p99 68 to 93 µs before, 55 to 72
//! µs after; the same answers. The D3-Chess test vectors' average is
//! unchanged (paired runs: 0.97 to 1.02 times). A first run still costs
//! well over the 5 µs: it would need fewer nodes (some 30 a
//! query, a third of them on lines that fail; the largest share of those,
//! 3 a query, nodes of the winner with no move of cost 0, where only the
//! mate-in-one test runs).
//!
//! Tried in that pass without gain: a necessary condition for the
//! mate-in-one test worked out once a node (the loser's king's flight
//! squares the winner does not attack, and what a move can add: the
//! piece's attacks where it lands, the lines through the square it
//! leaves); the flight squares' test set-wise (the enemy's pawns, king and
//! knights first, then its sliders); the rest of a node's moves taken by a
//! scan each instead of a sort (2% more instructions); the moves cut by
//! depth pushed and taken off again without a branch (7% more
//! instructions); a transposition table of 2,048 entries (as many cache
//! misses); the semi-static analysis before the moves are ordered (more
//! instructions on the D3-Chess vectors).
//!
//! Side by side with D3-Chess itself (`benches/cha-compare.sh`, CHA built
//! outside the repository; the same 60,000 queries, rounds alternated on
//! one idle VM): a first run of [`can_mate`] took 3 to 4.4 times as long as
//! CHA's quick mode (3.7 to 4.3 µs there, 13.0 to 16.1 µs here, medians of
//! two runs), which only proves unwinnability and left 59,136 queries
//! undetermined, and a 22nd to a 25th of the time of its full mode (328 to
//! 357 µs), which decides all 60,000. The answers agree wherever both are
//! definite; one query that CHA decides stays unknown here even on
//! [`THOROUGH_BUDGET`] (a lone knight mating behind the loser's bishop in
//! the corner after a promoted queen is taken, 39 plies).
//!
//! # Unknown answers (DEC-4)
//!
//! The crate only reports. When the budget runs out the answer is
//! [`Mateability::Unknown`]; the caller applies the event's default (the
//! project's decision DEC-4: treat a flag fall as a loss, since the draw is the
//! exception, and flag the game for human review). Callers that need more
//! certainty can retry with a larger budget via [`can_mate_with_budget`].

mod blocked;
mod material;
mod plan;
mod search;

pub use material::has_insufficient_material;

use crate::position::Position;
use crate::types::{Color, Move};
use search::{Corners, FastTable, Outcome, Searcher};

/// The node budget of [`can_mate`], the analysis a flag ruling (6.9), a
/// resignation or any other end with the draw exception waits for: chosen so
/// that no position of the lichess sample takes more than a few
/// milliseconds (2.4 to 2.5 ms at most on the 2-core development machine,
/// fastest of 3 runs; the queries that spend the whole budget are the
/// slowest). It decides every query of that sample that the former default of
/// [`THOROUGH_BUDGET`] decided, and 7 more; on the D3-Chess test vectors,
/// positions built to be hard, about one query in thirteen comes back
/// unknown (for the arbiter to review, DEC-4), and the slowest (locked pawn
/// walls, where the pruned lean search analyses after every pawn move) take
/// up to 6 ms on a quiet machine (10 to 12 ms, fastest of 3 runs, while
/// other builds run). The rules engine calls it only when a game is lost by a flag,
/// a resignation, a second illegal move or a missed reconnection (the draw
/// exception), never per move (that is [`is_dead_quick`]).
pub const DEFAULT_BUDGET: u64 = 2_500;

/// The budget for a thorough analysis, where waiting is acceptable (an
/// arbiter reviewing an unknown answer, the test vectors): a definite
/// answer for every query of the D3-Chess test vectors that D3-Chess itself
/// decides (2 of its 3,606 queries stay unknown, both on D3-Chess's own
/// undetermined list). It was the default before issue 18: 5.5 ms per query
/// on average over those vectors and 0.41 s in the worst case (a position
/// that spends the whole budget), using up to some tens of megabytes while
/// it runs.
pub const THOROUGH_BUDGET: u64 = 400_000;

/// The first steps (see the module docs): the lean depth-shaped search first
/// gets `FAST_FIRST_NODES` nodes (or the budget, if smaller), a plan at most
/// `PLAN_PLIES` plies, and after the narrow search and the semi-static
/// analysis the lean search gets `FAST_MORE_FACTOR` times the budget.
const FAST_FIRST_NODES: u64 = 200;

/// The lean search's second try, towards the other corner of the loser's
/// back rank, gets `FAST_OTHER_CORNER_NODES` nodes.
const FAST_OTHER_CORNER_NODES: u64 = 200;

/// The exhaustive walk of step 3 gets `EXHAUSTIVE_FIRST_NODES` nodes (or the
/// budget, if smaller).
const EXHAUSTIVE_FIRST_NODES: u64 = 1_000;
const PLAN_PLIES: usize = 60;
const FAST_MORE_FACTOR: u64 = 2;

/// The narrow witness search: first a greedy line (the best move of each
/// side at every node) up to `GREEDY_MOVES` winner moves deep within
/// [`greedy_nodes`] nodes (all the quick mode does), then, outside the quick
/// mode, a wider search by iterative deepening up to three winner moves
/// within `QUICK_NODES` nodes.
const QUICK_NODES: u64 = 160;
const GREEDY_MOVES: u32 = 8;

/// Whether a side can still checkmate, with the evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mateability {
    /// A helpmate exists: these legal moves, played from the position, end
    /// with the other side checkmated (empty if it already is).
    CanMate(Vec<Move>),
    /// No series of legal moves ends with the other side checkmated.
    CannotMate,
    /// The budget ran out before either answer was proved.
    Unknown,
}

impl Mateability {
    /// `true` for [`Mateability::CanMate`].
    pub fn can_mate(&self) -> bool {
        matches!(self, Mateability::CanMate(_))
    }

    /// `true` for [`Mateability::CannotMate`].
    pub fn cannot_mate(&self) -> bool {
        matches!(self, Mateability::CannotMate)
    }

    /// The word used by the command-line tools: `can-mate`, `cannot-mate` or
    /// `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            Mateability::CanMate(_) => "can-mate",
            Mateability::CannotMate => "cannot-mate",
            Mateability::Unknown => "unknown",
        }
    }
}

/// The answer for both sides (FIDE 5.2.2: dead when neither can mate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BothSides {
    pub white: Mateability,
    pub black: Mateability,
}

impl BothSides {
    /// The answer for `side`.
    pub fn side(&self, side: Color) -> &Mateability {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// `Some(true)` if the position is dead, `Some(false)` if some side can
    /// still mate, `None` if that is not known.
    pub fn is_dead(&self) -> Option<bool> {
        if self.white.can_mate() || self.black.can_mate() {
            Some(false)
        } else if self.white.cannot_mate() && self.black.cannot_mate() {
            Some(true)
        } else {
            None
        }
    }
}

/// Can `side` ever checkmate its opponent, with both sides cooperating?
/// Uses [`DEFAULT_BUDGET`]; see the module docs for the method.
///
/// Never returns [`Mateability::CannotMate`] when a helpmate exists.
pub fn can_mate(pos: &Position, side: Color) -> Mateability {
    can_mate_with_budget(pos, side, DEFAULT_BUDGET)
}

/// As [`can_mate`] with an explicit budget of search nodes (positions whose
/// moves are all generated): after the first steps (a few hundred nodes at
/// most), the lean search may expand twice as many nodes, the depth-shaped
/// search a tenth of it, then the exhaustive search the whole of it, so the worst
/// case grows with the budget (see [`DEFAULT_BUDGET`] and
/// [`THOROUGH_BUDGET`]). A larger budget turns more
/// [`Mateability::Unknown`] answers into definite ones; a definite answer is
/// right whatever the budget. Memory grows with the budget (the exhaustive
/// search keeps a set of the positions it has seen, and its current line of
/// at most 100,000 positions at some 200 bytes each).
///
/// A budget of `0` is the *quick mode*: forced moves, the material rules, the
/// greedy witness line (16 nodes at most) and the semi-static analysis at the root
/// only; everything else is [`Mateability::Unknown`]. It costs about 5 µs
/// per query on ordinary game positions.
pub fn can_mate_with_budget(pos: &Position, side: Color, budget: u64) -> Mateability {
    let mut pos = *pos;
    let mut prefix = Vec::new();
    let mut seen: Vec<u64> = Vec::new();
    // 1. Forced moves.
    loop {
        // Counting is cheaper than listing (and counting up to two is
        // enough), and most positions have choices.
        let n = pos.legal_moves_up_to_two();
        if n == 0 {
            return if pos.is_check() && pos.turn() != side {
                Mateability::CanMate(prefix)
            } else {
                Mateability::CannotMate
            };
        }
        if n != 1 || prefix.len() >= 64 {
            break;
        }
        let key = pos.zobrist();
        if seen.contains(&key) {
            // The game can only go round this cycle of forced moves.
            return Mateability::CannotMate;
        }
        seen.push(key);
        let only = pos.legal_moves()[0];
        prefix.push(only);
        pos.play_unchecked(only);
    }
    // 2. Material.
    if has_insufficient_material(&pos, side) {
        return Mateability::CannotMate;
    }
    if budget == 0 {
        return quick_mode(&pos, side, prefix);
    }
    // 3. The lean depth-shaped search.
    let fast =
        |searcher: &mut Searcher, limit: u64| with_fast_table(|tt| searcher.fast_search(&pos, limit, tt));
    let mut searcher = Searcher::new(side, 0);
    // Room for a witness of ordinary length: one allocation per query.
    searcher.line = Vec::with_capacity(prefix.len() + 64);
    searcher.line.extend_from_slice(&prefix);
    searcher.corners = Corners::Nearer;
    searcher.first_tries = true;
    match fast(&mut searcher, FAST_FIRST_NODES.min(budget)) {
        Outcome::Mate => return Mateability::CanMate(searcher.line),
        Outcome::NoMate => return Mateability::CannotMate,
        Outcome::OutOfBudget => {}
    }
    // The same towards the next nearest corner.
    let first_corner = searcher.corner();
    // (A search that fails leaves its line as it found it.)
    let line = std::mem::take(&mut searcher.line);
    let mut searcher = Searcher::new(side, 0);
    searcher.line = line;
    searcher.corners = Corners::Farther;
    searcher.first_tries = true;
    searcher.choose_corner(&pos);
    if searcher.corner() != first_corner {
        match fast(&mut searcher, FAST_OTHER_CORNER_NODES.min(budget)) {
            Outcome::Mate => return Mateability::CanMate(searcher.line),
            Outcome::NoMate => return Mateability::CannotMate,
            Outcome::OutOfBudget => {}
        }
    }
    // The exhaustive walk, briefly: where the depth-shaped search's first
    // lines fail, a walk that never goes back over a position and has no
    // depth limit mostly finds a (long) helpmate soon.
    let mut searcher = Searcher::new(side, 0);
    searcher.line = prefix.clone();
    match walk(&mut searcher, &pos, EXHAUSTIVE_FIRST_NODES.min(budget), true) {
        Outcome::Mate => return Mateability::CanMate(searcher.line),
        Outcome::NoMate => return Mateability::CannotMate,
        Outcome::OutOfBudget => {}
    }
    // 4. A plan.
    let mut plan_nodes = 0;
    if let Some(line) = plan::plan_witness(&pos, side, PLAN_PLIES, &mut plan_nodes) {
        let mut witness = prefix;
        witness.extend(line);
        return Mateability::CanMate(witness);
    }
    // 5. The narrow search.
    let mut searcher = Searcher::new(side, 0);
    searcher.line = prefix.clone();
    if searcher.quick_witness(&pos, 3, QUICK_NODES, (4, 3), true) {
        return Mateability::CanMate(searcher.line);
    }
    // 6. Blocked structures, here or after every move; then the lean
    // search again, pruned by the same analysis.
    if blocked::blocked_cannot_mate(&pos, side) {
        return Mateability::CannotMate;
    }
    match blocked_after_every_move(&pos, side) {
        Some(Ok(())) => return Mateability::CannotMate,
        Some(Err(line)) => {
            let mut witness = prefix;
            witness.extend(line);
            return Mateability::CanMate(witness);
        }
        None => {}
    }
    let mut searcher = Searcher::new(side, 0);
    searcher.line = prefix.clone();
    searcher.statics = true;
    match fast(&mut searcher, budget.saturating_mul(FAST_MORE_FACTOR)) {
        Outcome::Mate => return Mateability::CanMate(searcher.line),
        Outcome::NoMate => return Mateability::CannotMate,
        Outcome::OutOfBudget => {}
    }
    // 7. The full search: a tenth of the budget (half of it when only a
    // promotion of the loser can give the winner a mate, where the
    // reachable set is too large to walk but the depth-shaped search knows
    // what to look for).
    let mut searcher = Searcher::new(side, budget / 10);
    if searcher.need_loser_promotion(&pos) {
        searcher = Searcher::new(side, budget / 2);
    }
    searcher.line = prefix;
    match searcher.full_search(&pos, 1) {
        Outcome::Mate => return Mateability::CanMate(searcher.line),
        Outcome::NoMate => return Mateability::CannotMate,
        Outcome::OutOfBudget => {}
    }
    // 8. Small reachable sets: the exhaustive search.
    match walk(&mut searcher, &pos, budget, false) {
        Outcome::Mate => Mateability::CanMate(searcher.line),
        Outcome::NoMate => Mateability::CannotMate,
        Outcome::OutOfBudget => Mateability::Unknown,
    }
}

/// The quick mode (a budget of 0) after the forced moves and the material
/// rules: the greedy witness line and the semi-static analysis at the root.
fn quick_mode(pos: &Position, side: Color, prefix: Vec<Move>) -> Mateability {
    let mut searcher = Searcher::new(side, 0);
    searcher.line = prefix;
    let greedy_nodes = greedy_nodes(pos, side);
    if greedy_nodes > 0 && searcher.quick_witness(pos, GREEDY_MOVES, greedy_nodes, (1, 1), false) {
        return Mateability::CanMate(searcher.line);
    }
    if blocked::blocked_cannot_mate(pos, side) {
        return Mateability::CannotMate;
    }
    Mateability::Unknown
}

/// Runs `f` with this thread's table of the fast search (256 KiB, made on
/// first use and kept, so that a query neither allocates nor clears one);
/// with a new table if the thread's is not available (in use, or the thread
/// ending).
fn with_fast_table<T>(mut f: impl FnMut(&mut FastTable) -> T) -> T {
    thread_local! {
        static TABLE: std::cell::RefCell<FastTable> = std::cell::RefCell::new(FastTable::new());
    }
    TABLE
        .try_with(|cell| cell.try_borrow_mut().ok().map(|mut table| f(&mut table)))
        .ok()
        .flatten()
        .unwrap_or_else(|| f(&mut FastTable::new()))
}

/// The exhaustive walk of `searcher` from `pos` for at most `limit` nodes,
/// in this thread's scratch space (see [`with_fast_table`]).
fn walk(searcher: &mut Searcher, pos: &Position, limit: u64, lazy: bool) -> Outcome {
    with_fast_table(|tt| {
        let outcome = searcher.exhaustive_with(pos, limit, &mut tt.walk, lazy);
        tt.walk.trim();
        outcome
    })
}

/// Nodes of the greedy witness line, by the winner's material: on the
/// lichess sample a queen finds a helpmate this way four times in ten, rooks
/// one time in seven, minor pieces and pawns alone hardly ever (the quick
/// mode leaves them out; the other modes give them `GREEDY_MIN_NODES`).
fn greedy_nodes(pos: &Position, side: Color) -> u64 {
    let b = pos.board();
    let ours = b.by_color(side);
    if (ours & b.queens()).any() {
        16
    } else if (ours & b.rooks()).any() {
        8
    } else {
        0
    }
}

/// The semi-static analysis one ply deeper: `Some(Ok(()))` if after every
/// legal move (and the forced moves that follow it) the position is stalemate,
/// mate of `side`, or proved blocked for `side`; `Some(Err(line))` if such a
/// line mates `side`'s opponent (a witness); `None` otherwise.
fn blocked_after_every_move(pos: &Position, side: Color) -> Option<Result<(), Vec<Move>>> {
    let b = pos.board();
    // Only worth it when the pawns are mostly locked (as the analysis needs).
    let wp = b.pawns() & b.by_color(Color::White);
    let bp = b.pawns() & b.by_color(Color::Black);
    if (wp.forward(Color::White) & bp).count() < 1 {
        return None;
    }
    let moves = pos.legal_moves();
    for &m in moves.iter() {
        let mut p = pos.after(m);
        let mut line = vec![m];
        loop {
            let n = p.legal_moves_up_to_two();
            if n == 0 {
                if p.is_check() && p.turn() != side {
                    return Some(Err(line));
                }
                break;
            }
            if n == 1 && line.len() < 16 {
                let only = p.legal_moves()[0];
                line.push(only);
                p.play_unchecked(only);
                continue;
            }
            if has_insufficient_material(&p, side) || blocked::blocked_cannot_mate(&p, side) {
                break;
            }
            return None;
        }
    }
    Some(Ok(()))
}

/// Both sides' answers with [`DEFAULT_BUDGET`] each (FIDE 5.2.2 dead position:
/// see [`BothSides::is_dead`]).
pub fn is_dead(pos: &Position) -> BothSides {
    BothSides { white: can_mate(pos, Color::White), black: can_mate(pos, Color::Black) }
}

/// Budget of the per-move test [`is_dead_quick`] once the pawns are locked.
const QUICK_DEAD_BUDGET: u64 = 2_000;

/// A cheap test for the dead positions that arise in play, meant to run after
/// every move (5.2.2 ends the game at once): `true` only with a proof that
/// neither side can checkmate; `false` means "not shown dead".
///
/// It proves the piece-only endings by the material rules, and runs the
/// analysis (with a small budget) only when no pawn of either side can move
/// or capture, which is when blocked structures arise. Other dead positions
/// (rare in play) are left to [`is_dead`], for example when a flag falls.
pub fn is_dead_quick(pos: &Position) -> bool {
    if Color::ALL.into_iter().all(|c| has_insufficient_material(pos, c)) {
        return true;
    }
    if pawns_can_move(pos) {
        return false;
    }
    Color::ALL.into_iter().all(|c| can_mate_with_budget(pos, c, QUICK_DEAD_BUDGET).cannot_mate())
}

/// `true` if some pawn has a push or a capture available (pins ignored).
fn pawns_can_move(pos: &Position) -> bool {
    let b = pos.board();
    let empty = !b.occupied();
    Color::ALL.into_iter().any(|c| {
        let pawns = b.pawns() & b.by_color(c);
        let enemies = b.by_color(c.other());
        let ep = pos.pseudo_ep_square().map_or(crate::Bitboard::EMPTY, crate::Bitboard::from_square);
        (pawns.forward(c) & empty).any()
            || (crate::movegen::pawn_attacks_set(c, pawns) & (enemies | ep)).any()
    })
}

/// `true` if `line` is a helpmate witness for `side` from `pos`: every move is
/// legal in turn and the final position has `side`'s opponent checkmated.
pub fn is_witness(pos: &Position, side: Color, line: &[Move]) -> bool {
    let mut p = *pos;
    for &m in line {
        if !p.is_legal(m) {
            return false;
        }
        p.play_unchecked(m);
    }
    p.turn() != side && p.is_checkmate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::{FenOptions, Strictness};

    fn pos(fen: &str) -> Position {
        Position::from_fen_with(fen, FenOptions { chess960: false, strictness: Strictness::Lenient }).unwrap()
    }

    #[test]
    fn blocked_one_ply_deeper_proves_what_the_root_cannot() {
        // White's king can capture on c5 or e5 right now, so the structure is
        // not locked here, but after every move it is (or the king is lost
        // in a region Black's pieces never reach).
        let p = pos("5k2/4p3/3pPp2/2pP1Pp1/1pPK2Pp/pP5P/P7/8 w - -");
        assert!(!blocked::blocked_cannot_mate(&p, Color::Black));
        assert_eq!(blocked_after_every_move(&p, Color::Black), Some(Ok(())));
        assert_eq!(can_mate_with_budget(&p, Color::Black, 1), Mateability::CannotMate);
    }

    #[test]
    fn blocked_one_ply_deeper_does_not_fire_when_a_move_unlocks() {
        // As the locked chain of AS-37, but White's e-pawn can still advance
        // and capture: both sides can then mate.
        let fen = "4k3/8/8/1p1p1p1p/pPpP1PpP/P1P1P1P1/8/4K3 w - - 0 60";
        let p = pos(fen);
        for side in Color::ALL {
            assert_ne!(blocked_after_every_move(&p, side), Some(Ok(())), "{side}");
            match can_mate_with_budget(&p, side, 100_000) {
                Mateability::CanMate(line) => assert!(is_witness(&p, side, &line)),
                other => panic!("{side}: {other:?}"),
            }
        }
    }

    #[test]
    fn exhaustive_search_proves_only_when_it_saw_everything() {
        // A locked position (from the D3-Chess test vectors, dead) that only a
        // full walk of its reachable positions settles.
        let p = pos("Bb1k1b2/bKp1p1p1/1pP1P1P1/1P6/p5P1/P7/8/8 w - -");
        let mut s = search::Searcher::new(Color::White, 0);
        assert!(matches!(s.exhaustive(&p, 10), Outcome::OutOfBudget));
        let mut s = search::Searcher::new(Color::White, 0);
        assert!(matches!(s.exhaustive(&p, 100_000), Outcome::NoMate));
        // Where a helpmate exists it is found (with a witness), never denied.
        let p = pos("7K/5k2/8/4n3/8/8/8/R7 w - - 0 60");
        let mut s = search::Searcher::new(Color::Black, 0);
        assert!(matches!(s.exhaustive(&p, 10), Outcome::OutOfBudget | Outcome::Mate));
        let mut s = search::Searcher::new(Color::Black, 0);
        assert!(matches!(s.exhaustive(&p, 1_000_000), Outcome::Mate));
        assert!(is_witness(&p, Color::Black, &s.line));
    }
}
