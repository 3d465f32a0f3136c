//! Conversions between the API messages (`arbiter_proto::v1`) and the domain
//! types of the Laws (`arbiter_laws`) and the rules of chess
//! (`arbiter_chess`).
//!
//! Input conversions check everything a request can get wrong and report it
//! as [`Violation`]s (a field path and a sentence), which the service turns
//! into `google.rpc.BadRequest` field violations. They never judge an act
//! under the Laws: an illegal move that is well formed is passed on, because
//! over the board an illegal move is an event the Laws penalise, not a
//! malformed request.
//!
//! Output conversions describe rulings and events for people (a summary
//! sentence) and for programs (a flat map of facts built from the serde form
//! of the domain value, so that a new field shows up without code here).

use std::collections::HashMap;
use std::fmt;

use arbiter_chess::{Color, FenOptions, Position, Role, SanError, Square};
use arbiter_laws::event::{Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, TouchKind};
use arbiter_laws::regulations::{
    DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations, RegulationsError,
};
use arbiter_laws::ruling::{Decision, GameEnd, GameResult, Ruling};
use arbiter_laws::scoring::Score;
use arbiter_laws::time_control::{Category, TimeControl};
use arbiter_laws::touch::Obligation;
use arbiter_proto::v1 as pb;
use serde_json::Value;

/// Where the regulations sit in a request, for field paths.
const REGS: &str = "regulations";

/// The largest time penalty an arbiter may give in one act: one hour.
const MAX_TIME_PENALTY_MS: i64 = 3_600_000;

/// In the ambiguous all-digit form of a time control (`90+30` or `300+2`),
/// numbers up to this are read as minutes (the human form) and larger ones as
/// seconds (the PGN form): no game is played with more than two hours for
/// one period, and no FIDE-rated game with two minutes or less.
const AMBIGUOUS_HUMAN_MAX_BASE_MS: i64 = 120 * 60_000;

/// The status strings the store keeps for a game.
pub const STATUS_PENDING: &str = "PENDING";
/// See [`STATUS_PENDING`].
pub const STATUS_IN_PROGRESS: &str = "IN_PROGRESS";
/// See [`STATUS_PENDING`].
pub const STATUS_FINISHED: &str = "FINISHED";

// ---------------------------------------------------------------------------
// Violations
// ---------------------------------------------------------------------------

/// One thing wrong with a request: the path of the field (e.g.
/// `regulations.time_control`, `move`) and what is wrong with it, as a
/// lowercase sentence fragment for the client's developer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The field path, dotted for nested messages.
    pub field: String,
    /// What is wrong, specific enough to fix the request.
    pub description: String,
}

impl Violation {
    /// A violation of `field`.
    pub fn new(field: impl Into<String>, description: impl Into<String>) -> Violation {
        Violation { field: field.into(), description: description.into() }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.description)
    }
}

/// The violation for an enum number the API does not define (a client built
/// against a newer API, or a bug); `expected` lists the valid values.
fn unknown_enum(field: &str, what: &str, value: i32, expected: &str) -> Violation {
    Violation::new(field, format!("{value} is not a known {what} (expected {expected})"))
}

/// The violation for a required enum left at its `UNSPECIFIED` value.
fn missing_enum(field: &str, what: &str, expected: &str) -> Violation {
    Violation::new(field, format!("a {what} is required ({expected})"))
}

/// Joins a field path: `prefix.name`, or `name` alone at the top.
fn path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
}

// ---------------------------------------------------------------------------
// Regulations
// ---------------------------------------------------------------------------

/// Reads a time control in either of the forms the API documents: the PGN
/// `TimeControl` tag (`40/5400+30:1800+30`, `5400+30`, `300d3`, `300b3`) or
/// the human form (`90+30`, `40/90m+30s, 30m+30s`, `5m d3s`).
///
/// Text that only one grammar accepts is read with it (units, spaces and
/// commas are human; `:` is PGN). Text made only of numbers and bonus signs
/// is valid in both, with a factor of 60 between the readings; it is read as
/// the human form (minutes) when no period's base exceeds 120 minutes that
/// way, and as the PGN form (seconds) otherwise. So `90+30` is 90 minutes
/// with a 30-second increment and `300+2` is 5 minutes with 2 seconds. A
/// client that wants the other reading writes units (`90s+30s`).
///
/// # Errors
/// A violation of `field` if the text is empty or neither form reads it.
pub fn time_control_from_text(field: &str, text: &str) -> Result<TimeControl, Violation> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Violation::new(
            field,
            "a time control is required, e.g. `5400+30` (PGN, seconds) or `90+30` (minutes and seconds)",
        ));
    }
    match (TimeControl::from_pgn(text), TimeControl::parse_human(text)) {
        (Ok(pgn), Ok(human)) => {
            let small = Color::ALL
                .iter()
                .flat_map(|&c| human.periods(c))
                .all(|p| p.base_ms <= AMBIGUOUS_HUMAN_MAX_BASE_MS);
            Ok(if small { human } else { pgn })
        }
        (Ok(pgn), Err(_)) => Ok(pgn),
        (Err(_), Ok(human)) => Ok(human),
        (Err(pgn_error), Err(human_error)) => {
            // Report the error of the grammar the text was most likely
            // written in: anything beyond the PGN alphabet is human.
            let looks_pgn = text.chars().all(|c| c.is_ascii_digit() || "/+:db@.|?-*".contains(c));
            let error = if looks_pgn { pgn_error } else { human_error };
            Err(Violation::new(
                field,
                format!(
                    "`{text}` is not a time control: {error} (write e.g. `40/5400+30:1800+30` or \
                     `40/90m+30s, 30m+30s`)"
                ),
            ))
        }
    }
}

/// The text of a time control for the API: the canonical PGN form, unless
/// [`time_control_from_text`] would read that text back as something else
/// (an all-digit control with short periods, such as `60+1`); then the
/// canonical human form, whose units make it unambiguous.
pub fn time_control_to_text(tc: &TimeControl) -> String {
    let pgn = tc.to_pgn();
    match time_control_from_text("", &pgn) {
        Ok(back) if back == *tc => pgn,
        _ => tc.to_human(),
    }
}

/// Converts the regulations of a `CreateGame` request into the domain's,
/// checking every field and then the combination
/// ([`Regulations::validate`]).
///
/// Defaults: mode unspecified is over the board; category unspecified is
/// computed from the time control; regime unspecified is reduced; a device
/// penalty of 0 is loss of the game; an empty start FEN is the standard
/// position. The service always observes every act (`observe` is true).
///
/// # Errors
/// Every violation found in the fields (field paths under `regulations.`);
/// the combination is only checked when each field is valid on its own, and
/// its first problem is reported on the field it concerns most.
pub fn regulations_from_proto(r: &pb::Regulations) -> Result<Regulations, Vec<Violation>> {
    let mut errors = Vec::new();

    let mode = match pb::Mode::try_from(r.mode) {
        Ok(pb::Mode::Unspecified | pb::Mode::OverTheBoard) => Mode::OverTheBoard,
        Ok(pb::Mode::Online) => Mode::Online,
        Ok(pb::Mode::Hybrid) => Mode::Hybrid,
        Err(_) => {
            errors.push(unknown_enum(
                &path(REGS, "mode"),
                "mode",
                r.mode,
                "MODE_OVER_THE_BOARD = 1, MODE_ONLINE = 2 or MODE_HYBRID = 3",
            ));
            Mode::OverTheBoard
        }
    };

    let time_control = match time_control_from_text(&path(REGS, "time_control"), &r.time_control) {
        Ok(tc) => Some(tc),
        Err(v) => {
            errors.push(v);
            None
        }
    };

    let category = match pb::Category::try_from(r.category) {
        Ok(pb::Category::Unspecified) => None,
        Ok(pb::Category::Standard) => Some(Category::Standard),
        Ok(pb::Category::Rapid) => Some(Category::Rapid),
        Ok(pb::Category::Blitz) => Some(Category::Blitz),
        Err(_) => {
            errors.push(unknown_enum(
                &path(REGS, "category"),
                "category",
                r.category,
                "CATEGORY_STANDARD = 1, CATEGORY_RAPID = 2 or CATEGORY_BLITZ = 3",
            ));
            None
        }
    };

    let regime = match pb::Regime::try_from(r.regime) {
        Ok(pb::Regime::Unspecified | pb::Regime::Reduced) => Regime::Reduced,
        Ok(pb::Regime::Full) => Regime::Full,
        Err(_) => {
            errors.push(unknown_enum(
                &path(REGS, "regime"),
                "regime",
                r.regime,
                "REGIME_FULL = 1 or REGIME_REDUCED = 2",
            ));
            Regime::Reduced
        }
    };

    let draw_offers = match (r.no_draw_offers_before_move, r.draw_offers_need_arbiter) {
        (0, false) => DrawOfferRestriction::None,
        (n, false) => DrawOfferRestriction::BeforeMove(n),
        (0, true) => DrawOfferRestriction::WithoutArbiter,
        (_, true) => {
            errors.push(Violation::new(
                path(REGS, "draw_offers_need_arbiter"),
                "set either `no_draw_offers_before_move` or `draw_offers_need_arbiter`, not both: \
                 Law 9.1.1 allows one restriction",
            ));
            DrawOfferRestriction::None
        }
    };

    // The range of the deduction is checked by `validate`, which knows the
    // limits of the Laws.
    let device_penalty = match r.device_penalty_deduct_ms {
        0 => DevicePenalty::Loss,
        ms => DevicePenalty::DeductTime(ms),
    };

    let start_fen = if r.start_fen.is_empty() {
        None
    } else {
        // Checked here as well as in `validate` so that the FEN's own error
        // reaches the client even when another field is also wrong.
        let options = FenOptions { chess960: r.chess960, ..FenOptions::STRICT };
        if let Err(e) = Position::from_fen_with(&r.start_fen, options) {
            errors.push(Violation::new(path(REGS, "start_fen"), e.to_string()));
        }
        Some(r.start_fen.clone())
    };

    // CN-16 grade points are not used by any result yet (the tournament
    // results will); accepting the flag would pretend they are.
    if r.cn_grade_scoring {
        errors
            .push(Violation::new(path(REGS, "cn_grade_scoring"), "CN-16 grade scoring is not supported yet"));
    }

    let Some(time_control) = time_control else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }

    let regs = Regulations {
        mode,
        time_control,
        category,
        regime,
        penalty_ms: r.penalty_ms,
        default_time_ms: r.default_time_ms,
        draw_offers,
        guidelines_iii: r.guidelines_iii,
        device_penalty,
        chess960: r.chess960,
        start_fen,
        armageddon: r.armageddon,
        observe: true,
        automatic_draws: r.automatic_draws,
        cn_draw_alternation: r.cn_draw_alternation,
        max_lag_compensation_ms: r.max_lag_compensation_ms,
        reconnect_window_ms: r.reconnect_window_ms,
    };
    regs.validate()
        .map_err(|e| vec![Violation::new(path(REGS, regulations_error_field(&e)), e.to_string())])?;
    Ok(regs)
}

/// The field of the API's `Regulations` a [`RegulationsError`] is about.
fn regulations_error_field(e: &RegulationsError) -> &'static str {
    match e {
        RegulationsError::GuidelinesIiiWithIncrement
        | RegulationsError::GuidelinesIiiInBlitz
        | RegulationsError::GuidelinesIiiOnline => "guidelines_iii",
        RegulationsError::Penalty(_) => "penalty_ms",
        RegulationsError::DefaultTime(_) => "default_time_ms",
        RegulationsError::DrawRestriction(_) => "no_draw_offers_before_move",
        RegulationsError::DevicePenalty(_) => "device_penalty_deduct_ms",
        RegulationsError::LagCompensation(_) => "max_lag_compensation_ms",
        RegulationsError::ReconnectWindow(_) => "reconnect_window_ms",
        // The API has no `observe` field; the service always observes.
        RegulationsError::NotObserved => "mode",
        RegulationsError::StartPosition(_) => "start_fen",
    }
}

/// The API form of the regulations: the inverse of
/// [`regulations_from_proto`] (the time control as in
/// [`time_control_to_text`]; defaults written as their explicit values, so
/// mode and regime are never `UNSPECIFIED`).
pub fn regulations_to_proto(r: &Regulations) -> pb::Regulations {
    let (no_draw_offers_before_move, draw_offers_need_arbiter) = match r.draw_offers {
        DrawOfferRestriction::None => (0, false),
        DrawOfferRestriction::BeforeMove(n) => (n, false),
        DrawOfferRestriction::WithoutArbiter => (0, true),
    };
    pb::Regulations {
        mode: match r.mode {
            Mode::OverTheBoard => pb::Mode::OverTheBoard,
            Mode::Online => pb::Mode::Online,
            Mode::Hybrid => pb::Mode::Hybrid,
        } as i32,
        time_control: time_control_to_text(&r.time_control),
        category: r.category.map_or(pb::Category::Unspecified as i32, category_to_proto),
        regime: match r.regime {
            Regime::Full => pb::Regime::Full,
            Regime::Reduced => pb::Regime::Reduced,
        } as i32,
        penalty_ms: r.penalty_ms,
        default_time_ms: r.default_time_ms,
        no_draw_offers_before_move,
        draw_offers_need_arbiter,
        guidelines_iii: r.guidelines_iii,
        device_penalty_deduct_ms: match r.device_penalty {
            DevicePenalty::Loss => 0,
            DevicePenalty::DeductTime(ms) => ms,
        },
        chess960: r.chess960,
        start_fen: r.start_fen.clone().unwrap_or_default(),
        armageddon: r.armageddon,
        automatic_draws: r.automatic_draws,
        cn_draw_alternation: r.cn_draw_alternation,
        // Reserved until the tournament results use CN-16 grade points.
        cn_grade_scoring: false,
        max_lag_compensation_ms: r.max_lag_compensation_ms,
        reconnect_window_ms: r.reconnect_window_ms,
    }
}

/// The API value of a category.
pub fn category_to_proto(c: Category) -> i32 {
    i32::from(match c {
        Category::Standard => pb::Category::Standard,
        Category::Rapid => pb::Category::Rapid,
        Category::Blitz => pb::Category::Blitz,
    })
}

// ---------------------------------------------------------------------------
// Enums of requests
// ---------------------------------------------------------------------------

/// A colour of a request; `None` when unspecified (a player token then
/// supplies it).
///
/// # Errors
/// A violation of `field` for a number the API does not define.
pub fn color_from_proto(field: &str, value: i32) -> Result<Option<Color>, Violation> {
    match pb::Color::try_from(value) {
        Ok(pb::Color::Unspecified) => Ok(None),
        Ok(pb::Color::White) => Ok(Some(Color::White)),
        Ok(pb::Color::Black) => Ok(Some(Color::Black)),
        Err(_) => Err(unknown_enum(field, "colour", value, "COLOR_WHITE = 1 or COLOR_BLACK = 2")),
    }
}

/// The API value of a colour.
pub fn color_to_proto(c: Color) -> i32 {
    i32::from(match c {
        Color::White => pb::Color::White,
        Color::Black => pb::Color::Black,
    })
}

/// The API value of an optional colour (`UNSPECIFIED` for none).
pub fn optional_color_to_proto(c: Option<Color>) -> i32 {
    c.map_or(pb::Color::Unspecified as i32, color_to_proto)
}

/// How a piece was touched; unspecified is with intent (Law 4.2.2: any
/// contact counts as intent unless announced or clearly accidental).
///
/// # Errors
/// A violation of `field` for a number the API does not define.
pub fn touch_kind_from_proto(field: &str, value: i32) -> Result<TouchKind, Violation> {
    match pb::TouchKind::try_from(value) {
        Ok(pb::TouchKind::Unspecified | pb::TouchKind::Intent) => Ok(TouchKind::Intent),
        Ok(pb::TouchKind::Adjust) => Ok(TouchKind::Adjust),
        Ok(pb::TouchKind::Accidental) => Ok(TouchKind::Accidental),
        Err(_) => Err(unknown_enum(
            field,
            "touch kind",
            value,
            "TOUCH_KIND_INTENT = 1, TOUCH_KIND_ADJUST = 2 or TOUCH_KIND_ACCIDENTAL = 3",
        )),
    }
}

/// The piece a pawn is promoted to (required): knight, bishop, rook or
/// queen (Law 3.7.5.1).
///
/// # Errors
/// A violation of `field` when unspecified, for a pawn or a king, or for a
/// number the API does not define.
pub fn promotion_role_from_proto(field: &str, value: i32) -> Result<Role, Violation> {
    const EXPECTED: &str =
        "PIECE_ROLE_KNIGHT = 2, PIECE_ROLE_BISHOP = 3, PIECE_ROLE_ROOK = 4 or PIECE_ROLE_QUEEN = 5";
    match pb::PieceRole::try_from(value) {
        Ok(pb::PieceRole::Unspecified) => Err(missing_enum(field, "promotion piece", EXPECTED)),
        Ok(pb::PieceRole::Knight) => Ok(Role::Knight),
        Ok(pb::PieceRole::Bishop) => Ok(Role::Bishop),
        Ok(pb::PieceRole::Rook) => Ok(Role::Rook),
        Ok(pb::PieceRole::Queen) => Ok(Role::Queen),
        Ok(pb::PieceRole::Pawn) => Err(Violation::new(
            field,
            "a pawn cannot be promoted to a pawn: choose a knight, bishop, rook or queen (Law 3.7.5.1)",
        )),
        Ok(pb::PieceRole::King) => Err(Violation::new(
            field,
            "a pawn cannot be promoted to a king: choose a knight, bishop, rook or queen (Law 3.7.5.1)",
        )),
        Err(_) => Err(unknown_enum(field, "piece role", value, EXPECTED)),
    }
}

/// The rule a draw claim rests on (required).
///
/// # Errors
/// A violation of `field` when unspecified or unknown.
pub fn claim_kind_from_proto(field: &str, value: i32) -> Result<ClaimKind, Violation> {
    const EXPECTED: &str = "CLAIM_KIND_THREEFOLD_REPETITION = 1 or CLAIM_KIND_FIFTY_MOVES = 2";
    match pb::ClaimKind::try_from(value) {
        Ok(pb::ClaimKind::Unspecified) => Err(missing_enum(field, "claim kind", EXPECTED)),
        Ok(pb::ClaimKind::ThreefoldRepetition) => Ok(ClaimKind::Threefold),
        Ok(pb::ClaimKind::FiftyMoves) => Ok(ClaimKind::FiftyMoves),
        Err(_) => Err(unknown_enum(field, "claim kind", value, EXPECTED)),
    }
}

/// A penalty of Law 12.9 from `IssuePenaltyRequest.kind` and `.amount_ms`.
///
/// The time penalties (12.9.2 and 12.9.3) need an amount of 1 ms to one
/// hour. The other penalties take no amount, and a non-zero one is refused
/// rather than ignored: it most likely means the client chose the wrong kind.
///
/// # Errors
/// A violation of `kind` (unspecified or unknown) or of `amount_ms`.
pub fn penalty_from_proto(kind: i32, amount_ms: i64) -> Result<PenaltyKind, Violation> {
    let time = |make: fn(i64) -> PenaltyKind| {
        if (1..=MAX_TIME_PENALTY_MS).contains(&amount_ms) {
            Ok(make(amount_ms))
        } else {
            Err(Violation::new(
                "amount_ms",
                format!("a time penalty must be between 1 ms and 3600000 ms (one hour), got {amount_ms} ms"),
            ))
        }
    };
    let untimed = |penalty: PenaltyKind, name: &str| {
        if amount_ms == 0 {
            Ok(penalty)
        } else {
            Err(Violation::new(
                "amount_ms",
                format!(
                    "{name} takes no amount, got {amount_ms} ms (only PENALTY_KIND_ADD_TIME_TO_OPPONENT and \
                     PENALTY_KIND_DEDUCT_TIME do)"
                ),
            ))
        }
    };
    const EXPECTED: &str = "PENALTY_KIND_WARNING = 1 to PENALTY_KIND_DECLARE_LOST = 6";
    match pb::PenaltyKind::try_from(kind) {
        Ok(pb::PenaltyKind::Unspecified) => Err(missing_enum("kind", "penalty kind", EXPECTED)),
        Ok(pb::PenaltyKind::Warning) => untimed(PenaltyKind::Warning, "a warning"),
        Ok(pb::PenaltyKind::AddTimeToOpponent) => time(PenaltyKind::AddTimeToOpponent),
        Ok(pb::PenaltyKind::DeductTime) => time(PenaltyKind::DeductTime),
        Ok(pb::PenaltyKind::RaiseOpponentScore) => {
            untimed(PenaltyKind::RaiseOpponentScore, "raising the opponent's score")
        }
        Ok(pb::PenaltyKind::ReduceScore) => untimed(PenaltyKind::ReduceScore, "reducing the score"),
        Ok(pb::PenaltyKind::DeclareLost) => untimed(PenaltyKind::DeclareLost, "declaring the game lost"),
        Err(_) => Err(unknown_enum("kind", "penalty kind", kind, EXPECTED)),
    }
}

/// A result the arbiter declares (required).
///
/// # Errors
/// A violation of `field` when unspecified or unknown.
pub fn declared_result_from_proto(field: &str, value: i32) -> Result<DeclaredResult, Violation> {
    const EXPECTED: &str = "DECLARED_RESULT_WHITE_WINS = 1, DECLARED_RESULT_BLACK_WINS = 2, \
                            DECLARED_RESULT_DRAW = 3 or DECLARED_RESULT_BOTH_LOSE = 4";
    match pb::DeclaredResult::try_from(value) {
        Ok(pb::DeclaredResult::Unspecified) => Err(missing_enum(field, "result", EXPECTED)),
        Ok(pb::DeclaredResult::WhiteWins) => Ok(DeclaredResult::WhiteWins),
        Ok(pb::DeclaredResult::BlackWins) => Ok(DeclaredResult::BlackWins),
        Ok(pb::DeclaredResult::Draw) => Ok(DeclaredResult::Draw),
        Ok(pb::DeclaredResult::BothLose) => Ok(DeclaredResult::BothLose),
        Err(_) => Err(unknown_enum(field, "declared result", value, EXPECTED)),
    }
}

/// An arbiter's answer to an open question (required).
///
/// # Errors
/// A violation of `field` when unspecified or unknown.
pub fn answer_from_proto(field: &str, value: i32) -> Result<Answer, Violation> {
    const EXPECTED: &str = "ANSWER_DEFAULT = 1, ANSWER_ACCEPT = 2, ANSWER_REJECT = 3 or ANSWER_POSTPONE = 4";
    match pb::Answer::try_from(value) {
        Ok(pb::Answer::Unspecified) => Err(missing_enum(field, "answer", EXPECTED)),
        Ok(pb::Answer::Default) => Ok(Answer::Default),
        Ok(pb::Answer::Accept) => Ok(Answer::Accept),
        Ok(pb::Answer::Reject) => Ok(Answer::Reject),
        Ok(pb::Answer::Postpone) => Ok(Answer::Postpone),
        Err(_) => Err(unknown_enum(field, "answer", value, EXPECTED)),
    }
}

/// The API value of a status string kept by the store (`PENDING`,
/// `IN_PROGRESS`, `FINISHED`); any other text is `UNSPECIFIED`, which only
/// a corrupt row can produce.
pub fn status_to_proto(status: &str) -> i32 {
    i32::from(match status {
        STATUS_PENDING => pb::GameStatus::Pending,
        STATUS_IN_PROGRESS => pb::GameStatus::InProgress,
        STATUS_FINISHED => pb::GameStatus::Finished,
        _ => pb::GameStatus::Unspecified,
    })
}

/// The status string of the store for an API status, as a filter: `None`
/// for unspecified (any status).
///
/// # Errors
/// A violation of `field` for a number the API does not define.
pub fn status_from_proto(field: &str, value: i32) -> Result<Option<&'static str>, Violation> {
    match pb::GameStatus::try_from(value) {
        Ok(pb::GameStatus::Unspecified) => Ok(None),
        Ok(pb::GameStatus::Pending) => Ok(Some(STATUS_PENDING)),
        Ok(pb::GameStatus::InProgress) => Ok(Some(STATUS_IN_PROGRESS)),
        Ok(pb::GameStatus::Finished) => Ok(Some(STATUS_FINISHED)),
        Err(_) => Err(unknown_enum(
            field,
            "game status",
            value,
            "GAME_STATUS_PENDING = 1, GAME_STATUS_IN_PROGRESS = 2 or GAME_STATUS_FINISHED = 3",
        )),
    }
}

// ---------------------------------------------------------------------------
// Squares and moves
// ---------------------------------------------------------------------------

/// A square name such as `e4` (lowercase file, then rank).
///
/// # Errors
/// A violation of `field` for empty text or anything that is not a square.
pub fn parse_square(field: &str, text: &str) -> Result<Square, Violation> {
    if text.trim().is_empty() {
        return Err(Violation::new(field, "a square is required, e.g. `e4`"));
    }
    text.trim().parse().map_err(|_| {
        Violation::new(field, format!("`{text}` is not a square (files a-h, ranks 1-8, e.g. `e4`)"))
    })
}

/// Reads a move of a request: UCI first (`e2e4`, `e7e8q`, `e1g1`, or king
/// takes rook `e1h1`), otherwise SAN resolved in `position` for the side to
/// move (`Nf3`, `O-O`, `0-0-0`, `exd6 e.p.`, `e8=Q+`, annotations ignored).
///
/// A well-formed UCI move is returned as it is, legal or not: over the board
/// an illegal move is an act the Laws penalise (7.5), so it must reach them.
/// Its `castle` flag is the request's (Chess960 castling intent, DEC-13).
/// SAN only means something in a position, so SAN must name a legal move; a
/// SAN castling sets `castle`, and its squares are those of the UCI form in
/// `position` (king's destination in standard chess, king takes rook in
/// Chess960).
///
/// # Errors
/// A violation of `field` for empty text, text that is neither UCI nor SAN,
/// or SAN that names no legal move or more than one.
pub fn parse_move(
    field: &str,
    text: &str,
    position: &Position,
    castle: bool,
) -> Result<MoveInput, Violation> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Violation::new(field, "a move is required"));
    }
    if let Ok(mv) = MoveInput::from_uci(text) {
        return Ok(MoveInput { castle, ..mv });
    }
    let m = position.parse_san(text).map_err(|e| {
        // Text shaped like UCI that is not UCI (`e2e9`, `e2e2`) was meant as
        // UCI whatever the SAN reader made of it; say what is wrong with it.
        let description = uci_diagnosis(text).unwrap_or_else(|| match e {
            SanError::Syntax(_) => format!(
                "`{text}` is not a move: expected UCI (`e2e4`, `e7e8q`, `e1g1`) or SAN (`Nf3`, `O-O`, `exd6 e.p.`)"
            ),
            SanError::Illegal(_) => format!("{e} ({} to move)", position.turn()),
            SanError::Ambiguous { .. } | SanError::MissingPromotion(_) => e.to_string(),
        });
        Violation::new(field, description)
    })?;
    let uci = position.uci(m);
    let mv = MoveInput::from_uci(uci.as_str())
        .map_err(|e| Violation::new(field, format!("`{text}` could not be written as UCI: {e}")))?;
    Ok(MoveInput { castle: m.is_castle(), ..mv })
}

/// What is wrong with text shaped like a UCI move (letter, digit, letter,
/// digit, and maybe a fifth character) that is not one, so that a typo such
/// as `e2e9` gets a precise answer; `None` for text of another shape.
fn uci_diagnosis(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let shaped = (b.len() == 4 || b.len() == 5)
        && text.is_ascii()
        && b[0].is_ascii_lowercase()
        && b[1].is_ascii_digit()
        && b[2].is_ascii_lowercase()
        && b[3].is_ascii_digit();
    if !shaped {
        return None;
    }
    let (from, to) = (&text[0..2], &text[2..4]);
    for sq in [from, to] {
        if sq.parse::<Square>().is_err() {
            return Some(format!("`{sq}` is not a square (files a-h, ranks 1-8) in the UCI move `{text}`"));
        }
    }
    if from == to {
        return Some(format!("`{text}` moves no piece: the from and to squares are the same"));
    }
    Some(format!(
        "`{text}` is not a UCI move: the promotion piece must be `q`, `r`, `b` or `n` (lowercase), got `{}`",
        &text[4..]
    ))
}

/// The UCI text of a reported move (`e2e4`, `e7e8q`), as the player gave it.
fn move_input_text(mv: &MoveInput) -> String {
    match mv.promotion {
        Some(r) => format!("{}{}{}", mv.from, mv.to, r.char()),
        None => format!("{}{}", mv.from, mv.to),
    }
}

// ---------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------

/// A clock reading: `1:29:47` from one hour, `4:05` from ten seconds, and
/// `0:07.3` (tenths) below ten seconds, where every tenth counts. Parts of a
/// second are cut, not rounded, as a digital clock shows them: a player with
/// 0.09 s left sees `0:00.0`. Negative values get a leading `-`.
pub fn format_ms(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", format_ms(ms.saturating_neg()));
    }
    let total_s = ms / 1000;
    let (h, m, s) = (total_s / 3600, total_s / 60 % 60, total_s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else if total_s >= 10 {
        format!("{m}:{s:02}")
    } else {
        format!("0:{s:02}.{}", ms % 1000 / 100)
    }
}

/// A length of time: `12.3 s` under a minute (tenths cut), otherwise as
/// [`format_ms`] (`2:00`, `1:30:00`). Negative values get a leading `-`.
pub fn format_duration(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", format_duration(ms.saturating_neg()));
    }
    if ms < 60_000 { format!("{}.{} s", ms / 1000, ms % 1000 / 100) } else { format_ms(ms) }
}

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `12th`, `13th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `White` or `Black`, to start a sentence or name a side.
fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The English name of a piece kind.
fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// `MoveCompleted` → `MOVE_COMPLETED`. A run of capitals is one word
/// (`OCRRule` → `OCR_RULE`), and a digit after a letter does not split.
pub fn upper_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

// ---------------------------------------------------------------------------
// Facts from serde
// ---------------------------------------------------------------------------

/// The variant name and the flattened fields of an externally tagged enum
/// value as serde writes it: a unit variant is a string, a struct or newtype
/// variant an object with one key.
fn variant_parts(value: Value) -> (String, HashMap<String, String>) {
    let mut facts = HashMap::new();
    match value {
        Value::String(name) => (name, facts),
        Value::Object(map) if map.len() == 1 => {
            let (name, inner) = map.into_iter().next().unwrap_or_default();
            match inner {
                // A struct variant, or a newtype variant around a struct:
                // the fields are the facts.
                Value::Object(fields) => {
                    for (k, v) in fields {
                        flatten_into(&mut facts, k, v);
                    }
                }
                other => flatten_into(&mut facts, "value".to_owned(), other),
            }
            (name, facts)
        }
        // Not an enum (cannot happen for the types converted here): keep
        // the whole value rather than lose it.
        other => {
            flatten_into(&mut facts, "value".to_owned(), other);
            ("UNKNOWN".to_owned(), facts)
        }
    }
}

/// Adds `value` under `key`: scalars as text, arrays joined with spaces,
/// objects under dotted keys. A nested enum with data (`{"DeductTime":
/// 60000}`) gives its variant name under `key` and the data under
/// `key.value` (or `key.field`). Nulls are left out: an absent optional
/// fact is simply not listed.
fn flatten_into(facts: &mut HashMap<String, String>, key: String, value: Value) {
    match value {
        Value::Null => {}
        Value::Bool(b) => {
            facts.insert(key, b.to_string());
        }
        Value::Number(n) => {
            facts.insert(key, n.to_string());
        }
        Value::String(s) => {
            facts.insert(key, s);
        }
        Value::Array(items) => {
            let parts: Vec<String> = items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect();
            facts.insert(key, parts.join(" "));
        }
        Value::Object(map) => {
            let enum_like =
                map.len() == 1 && map.keys().all(|k| k.starts_with(|c: char| c.is_ascii_uppercase()));
            if enum_like {
                let (variant, inner) = map.into_iter().next().unwrap_or_default();
                match inner {
                    Value::Object(fields) => {
                        for (k, v) in fields {
                            flatten_into(facts, format!("{key}.{k}"), v);
                        }
                    }
                    other => flatten_into(facts, format!("{key}.value"), other),
                }
                facts.insert(key, variant);
            } else {
                for (k, v) in map {
                    flatten_into(facts, format!("{key}.{k}"), v);
                }
            }
        }
    }
}

/// The serde value of a domain value; these types serialise to JSON without
/// fail (string keys, no custom errors), so a failure becomes `null`.
fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

// ---------------------------------------------------------------------------
// Rulings, events, results
// ---------------------------------------------------------------------------

/// A ruling for the API: the rule id, the decision's name in
/// UPPER_SNAKE_CASE, the player concerned, every field of the decision as a
/// fact, and a summary sentence.
///
/// Facts come from the decision's serde form: numbers, booleans and strings
/// as text, lists joined with spaces, nested structs under dotted keys, a
/// nested enum with data as its variant name plus `key.value` (or
/// `key.field`), and absent optional values left out. A game's result is
/// written as [`game_result_text`] (`1/2-0`), not as its enum name.
pub fn ruling_to_proto(r: &Ruling) -> pb::Ruling {
    let (name, mut facts) = variant_parts(to_value(&r.decision));
    if let Decision::GameOver(end) = &r.decision {
        // The serde form of a result is an enum name; the API speaks the
        // notation of the crosstable.
        facts.retain(|k, _| !k.starts_with("result."));
        // The typed cause is for code; the API states the end by its
        // reason and rule, as before the cause existed.
        facts.remove("cause");
        facts.insert("result".to_owned(), game_result_text(end.result));
    }
    let (summary, color) = decision_summary(&r.decision);
    pb::Ruling {
        rule_id: r.rule.as_str().to_owned(),
        decision: upper_snake(&name),
        summary,
        color: optional_color_to_proto(color),
        facts,
    }
}

/// The summary sentence of a decision and the player it concerns.
fn decision_summary(d: &Decision) -> (String, Option<Color>) {
    match d {
        Decision::SetupErrorStands { error, note } => {
            (format!("Set-up error ({}) stands: {note}", setup_error_text(*error)), None)
        }
        Decision::ScorePenalty { adjustment } => (
            format!(
                "Score penalty against {}: {}",
                side(adjustment.offender),
                match adjustment.kind {
                    arbiter_laws::scoring::ScoreAdjustmentKind::RaiseOpponentScore =>
                        "the opponent's score is raised to the maximum (12.9.4)",
                    arbiter_laws::scoring::ScoreAdjustmentKind::ReduceScore =>
                        "the offender's score is reduced (12.9.5)",
                }
            ),
            Some(adjustment.offender),
        ),
        Decision::GameStarted { white_ms, black_ms } => (
            format!(
                "The game started: White {}, Black {}; White's clock runs",
                format_ms(*white_ms),
                format_ms(*black_ms)
            ),
            None,
        ),
        Decision::MoveMade { color, san, uci, ply } => {
            (format!("{} made the move {san} ({uci}, ply {ply})", side(*color)), Some(*color))
        }
        Decision::MoveCompleted { color, used_ms, bonus_ms, remaining_ms } => (
            format!(
                "{} completed a move: {} used, {} added, {} left",
                side(*color),
                format_duration(*used_ms),
                format_duration(*bonus_ms),
                format_ms(*remaining_ms)
            ),
            Some(*color),
        ),
        Decision::PremoveQueued { color, uci } => {
            (format!("{}'s premove {uci} is queued", side(*color)), Some(*color))
        }
        Decision::PremoveDropped { color, uci } => (
            format!("{}'s premove {uci} was not legal when its turn came and is dropped", side(*color)),
            Some(*color),
        ),
        Decision::Obligation { color, allowed, reason } => (
            format!("Touch-move binds {}: {reason}; allowed: {}", side(*color), allowed.join(", ")),
            Some(*color),
        ),
        Decision::IllegalMoveNotCompleted { color, description } => (
            format!(
                "Illegal move by {}, not completed: {description}; it may still be corrected",
                side(*color)
            ),
            Some(*color),
        ),
        Decision::IllegalMove { color, count, description } => (
            format!(
                "Illegal move by {} ({}): {description}; the position before it is reinstated",
                side(*color),
                ordinal(*count)
            ),
            Some(*color),
        ),
        Decision::IllegalMoveNotActedOn { color, description } => (
            format!("Illegal move by {}, completed and not acted on: {description}", side(*color)),
            Some(*color),
        ),
        Decision::IllegalMoveClaimed { color, description } => {
            (format!("{} claims the illegal move {description}", side(*color)), Some(*color))
        }
        Decision::IllegalMoveStands { color, description } => {
            (format!("{}'s illegal move {description} stands", side(*color)), Some(*color))
        }
        Decision::IllegalPositionObserved { description } => {
            (format!("Illegal position: {description}"), None)
        }
        Decision::IllegalPositionCleared { in_check } => (
            match in_check {
                Some(c) => format!("The position is no longer illegal; {} must get out of check", side(*c)),
                None => "The position is no longer illegal".to_owned(),
            },
            *in_check,
        ),
        Decision::ClockAdjusted { color, delta_ms, remaining_ms } => {
            let change = if *delta_ms >= 0 {
                format!("{} added", format_duration(*delta_ms))
            } else {
                format!("{} removed", format_duration(delta_ms.saturating_neg()))
            };
            (format!("{}'s clock: {change}, {} left", side(*color), format_ms(*remaining_ms)), Some(*color))
        }
        Decision::ClockSet { color, remaining_ms } => {
            (format!("{}'s clock set to {}", side(*color), format_ms(*remaining_ms)), Some(*color))
        }
        Decision::ClocksPaused => ("The clocks are paused".to_owned(), None),
        Decision::ClocksResumed => ("The clocks are resumed".to_owned(), None),
        Decision::ClockResumedAfterOutage { outage_ms } => (
            format!(
                "The clock resumed after the service was down for {}; that time is charged to neither player",
                format_duration(*outage_ms)
            ),
            None,
        ),
        Decision::Warning { color, reason } => {
            (format!("{} is warned: {reason}", side(*color)), Some(*color))
        }
        Decision::DrawOffered { color, ply } => {
            (format!("{} offers a draw (after ply {ply})", side(*color)), Some(*color))
        }
        Decision::DrawOfferLapsed { color, reason } => {
            (format!("{}'s draw offer lapsed: {reason}", side(*color)), Some(*color))
        }
        Decision::DrawOfferDeclined { color } => {
            (format!("{} declined the draw offer", side(*color)), Some(*color))
        }
        Decision::ClaimIncorrect { color, reason } => {
            (format!("{}'s claim is incorrect: {reason}", side(*color)), Some(*color))
        }
        Decision::PlayerArrived { color } => (format!("{} is at the board", side(*color)), Some(*color)),
        Decision::Disconnected { color } => (format!("{} is disconnected", side(*color)), Some(*color)),
        Decision::Reconnected { color } => (format!("{} is reconnected", side(*color)), Some(*color)),
        Decision::QuestionOpened { id, question, default } => {
            (format!("Question {id} for the arbiter: {question}; until answered: {default}"), None)
        }
        Decision::QuestionAnswered { id, answer } => {
            (format!("The arbiter answered question {id}: {}", answer.to_lowercase()), None)
        }
        Decision::PositionReinstated { ply, fen } => {
            (format!("The position before ply {ply} is reinstated ({fen})"), None)
        }
        Decision::IncrementIntroduced { increment_ms } => (
            format!(
                "An increment of {} per move now applies to both players",
                format_duration(*increment_ms)
            ),
            None,
        ),
        Decision::GameOver(end) => {
            let mut s = format!("Game over: {} ({})", game_result_text(end.result), end.reason);
            if let Some(winner) = end.armageddon_winner {
                s.push_str(&format!("; {} wins the Armageddon match", side(winner)));
            }
            (s, None)
        }
    }
}

/// An event for the API: the act's name in UPPER_SNAKE_CASE, a summary
/// sentence, and every field of the event as a detail, flattened as the
/// facts of [`ruling_to_proto`] (e.g. `color`, `mv.from`, `mv.to`,
/// `mv.castle`, `kind` and `kind.value` for a time penalty).
pub fn event_to_proto_parts(e: &Event) -> (String, String, HashMap<String, String>) {
    let (name, details) = variant_parts(to_value(e));
    (upper_snake(&name), event_summary(e), details)
}

/// A set-up error in words.
fn setup_error_text(e: arbiter_laws::event::SetupError) -> String {
    match e {
        arbiter_laws::event::SetupError::WrongInitialPosition => "wrong initial position (7.2.1)".into(),
        arbiter_laws::event::SetupError::BoardWronglyOriented => "board wrongly oriented (7.2.2)".into(),
        arbiter_laws::event::SetupError::ColoursReversed => "colours reversed (7.3)".into(),
        arbiter_laws::event::SetupError::KingMisplaced { color } => {
            format!("{} king misplaced in the initial position (7.2.1, A.5.1.2)", side(color))
        }
        arbiter_laws::event::SetupError::RookMisplaced { square } => {
            format!("rook starting on {square} misplaced in the initial position (7.2.1, A.5.1.2)")
        }
    }
}

/// The summary sentence of an event.
fn event_summary(e: &Event) -> String {
    match e {
        Event::ServiceResumed { outage_ms } => {
            format!("The service resumed after {} down; that time is not charged", format_ms(*outage_ms))
        }
        Event::SetupErrorFound { error } => {
            format!("Arbiter finds a set-up error: {}", setup_error_text(*error))
        }
        Event::AnnounceAdjust { color } => format!("{} says \"I adjust\"", side(*color)),
        Event::Touch { color, square, kind } => match kind {
            TouchKind::Intent => format!("{} touches the piece on {square}", side(*color)),
            TouchKind::Adjust => format!("{} adjusts the piece on {square}", side(*color)),
            TouchKind::Accidental => format!("{} touches the piece on {square} accidentally", side(*color)),
        },
        Event::PromotionPieceTouched { color, role } => {
            format!("{} places a {} on the promotion square", side(*color), role_name(*role))
        }
        Event::MakeMove { color, mv } => {
            let castling = if mv.castle { " (castling)" } else { "" };
            format!("{} moves {}{castling}", side(*color), move_input_text(mv))
        }
        Event::CastlingKingReleased { color, to } => {
            format!("{} releases the king on {to} to castle", side(*color))
        }
        Event::UsedTwoHands { color } => format!("{} made the move with two hands", side(*color)),
        Event::PressClock { color, other_hand } => {
            let hand = if *other_hand { " with the other hand" } else { "" };
            format!("{} presses the clock{hand}", side(*color))
        }
        Event::SubmitMove { color, mv, premove, lag_ms } => {
            let castling = if mv.castle { " (castling)" } else { "" };
            let what = if *premove { "premoves" } else { "plays" };
            let lag = if *lag_ms > 0 { format!(", lag {lag_ms} ms") } else { String::new() };
            format!("{} {what} {}{castling}{lag}", side(*color), move_input_text(mv))
        }
        Event::Disconnect { color } => format!("{}'s connection is lost", side(*color)),
        Event::Reconnect { color } => format!("{} reconnects", side(*color)),
        Event::OfferDraw { color } => format!("{} offers a draw", side(*color)),
        Event::AcceptDraw { color } => format!("{} accepts the draw offer", side(*color)),
        Event::DeclineDraw { color } => format!("{} declines the draw offer", side(*color)),
        Event::ClaimDraw { color, kind, intended } => {
            let rule = match kind {
                ClaimKind::Threefold => "threefold repetition",
                ClaimKind::FiftyMoves => "the fifty-move rule",
            };
            match intended {
                Some(mv) => format!(
                    "{} claims a draw by {rule}, with the intended move {}",
                    side(*color),
                    move_input_text(mv)
                ),
                None => format!("{} claims a draw by {rule}", side(*color)),
            }
        }
        Event::Resign { color } => format!("{} resigns", side(*color)),
        Event::ClaimIllegalMove { color } => format!("{} claims an illegal move", side(*color)),
        Event::PlayerArrived { color } => format!("{} arrives at the board", side(*color)),
        Event::RequestIncrement { color } => {
            format!("{} asks for a 5-second increment for both players (Guidelines III.4)", side(*color))
        }
        Event::ClaimNoWinningAttempt { color } => format!(
            "{} claims that {} cannot win by normal means (Guidelines III.5)",
            side(*color),
            side(color.other())
        ),
        Event::Tick => "Time check".to_owned(),
        Event::Start => "Arbiter starts the game".to_owned(),
        Event::PauseClocks => "Arbiter pauses the clocks".to_owned(),
        Event::ResumeClocks => "Arbiter resumes the clocks".to_owned(),
        Event::AdjustClock { color, delta_ms } => {
            if *delta_ms >= 0 {
                format!("Arbiter adds {} to {}'s clock", format_duration(*delta_ms), side(*color))
            } else {
                format!(
                    "Arbiter removes {} from {}'s clock",
                    format_duration(delta_ms.saturating_neg()),
                    side(*color)
                )
            }
        }
        Event::SetClock { color, remaining_ms } => {
            format!("Arbiter sets {}'s clock to {}", side(*color), format_ms(*remaining_ms))
        }
        Event::Penalty { color, kind } => {
            let (who, other) = (side(*color), side(color.other()));
            match kind {
                PenaltyKind::Warning => format!("Arbiter warns {who}"),
                PenaltyKind::AddTimeToOpponent(ms) => {
                    format!("Arbiter penalises {who}: {} added to {other}'s clock", format_duration(*ms))
                }
                PenaltyKind::DeductTime(ms) => {
                    format!("Arbiter penalises {who}: {} deducted from {who}'s clock", format_duration(*ms))
                }
                PenaltyKind::RaiseOpponentScore => {
                    format!("Arbiter penalises {who}: {other}'s score raised to the maximum")
                }
                PenaltyKind::ReduceScore => format!("Arbiter penalises {who}: {who}'s score reduced"),
                PenaltyKind::DeclareLost => format!("Arbiter declares the game lost by {who}"),
            }
        }
        Event::ReinstatePosition { ply } => {
            if *ply == 0 {
                "Arbiter reinstates the starting position".to_owned()
            } else {
                format!("Arbiter reinstates the position before ply {ply}")
            }
        }
        Event::DeclareResult { result } => {
            let text = match result {
                DeclaredResult::WhiteWins => "1-0",
                DeclaredResult::BlackWins => "0-1",
                DeclaredResult::Draw => "1/2-1/2",
                DeclaredResult::BothLose => "0-0 (both lose)",
            };
            format!("Arbiter declares the result {text}")
        }
        Event::DeviceFound { color } => format!("Arbiter finds an electronic device on {}", side(*color)),
        Event::AnswerQuestion { id, answer } => {
            let answer = match answer {
                Answer::Default => "apply the default",
                Answer::Accept => "accept",
                Answer::Reject => "reject",
                Answer::Postpone => "postpone",
            };
            format!("Arbiter answers question {id}: {answer}")
        }
    }
}

/// A result in ASCII crosstable notation: `1-0`, `0-1`, `1/2-1/2`, `+/-`,
/// `-/+`, `-/-`, `0-0`, and adjusted scores from their parts (`1/2-0`).
pub fn game_result_text(r: GameResult) -> String {
    let score = |s: Score| match s {
        Score::Win => "1",
        Score::Draw => "1/2",
        Score::Loss => "0",
    };
    match r {
        GameResult::WhiteWins => "1-0".to_owned(),
        GameResult::BlackWins => "0-1".to_owned(),
        GameResult::Draw => "1/2-1/2".to_owned(),
        GameResult::WhiteWinsByForfeit => "+/-".to_owned(),
        GameResult::BlackWinsByForfeit => "-/+".to_owned(),
        GameResult::DoubleForfeit => "-/-".to_owned(),
        GameResult::BothLose => "0-0".to_owned(),
        GameResult::Annulled => "*".to_owned(),
        GameResult::Adjusted { white, black } => format!("{}-{}", score(white), score(black)),
    }
}

/// The end of a game for the API.
pub fn game_end_to_proto(e: &GameEnd) -> pb::GameEnd {
    pb::GameEnd {
        result: game_result_text(e.result),
        reason: e.reason.clone(),
        rule_id: e.rule.as_str().to_owned(),
        armageddon_winner: optional_color_to_proto(e.armageddon_winner),
    }
}

/// A touch-move obligation of `color` for the API, its moves in UCI as
/// played in `position` (the position the obligation was computed in, so
/// that castling is written `e1g1` in standard chess and king takes rook in
/// Chess960).
pub fn obligation_to_proto(color: Color, o: &Obligation, position: &Position) -> pb::Obligation {
    pb::Obligation {
        color: color_to_proto(color),
        allowed_moves: o.allowed.iter().map(|&m| position.uci(m).to_string()).collect(),
        rule_id: o.rule.as_str().to_owned(),
        reason: o.reason.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_laws::rule::RuleId;
    use arbiter_laws::ruling::EndCause;

    fn regs(tc: &str) -> pb::Regulations {
        pb::Regulations { time_control: tc.to_owned(), ..Default::default() }
    }

    fn fields(errors: &[Violation]) -> Vec<&str> {
        errors.iter().map(|v| v.field.as_str()).collect()
    }

    #[test]
    fn time_control_forms() {
        let tc = |t: &str| time_control_from_text("tc", t).unwrap();
        assert_eq!(tc("90+30"), TimeControl::simple(90 * 60_000, 30_000).unwrap());
        assert_eq!(tc("5400+30"), TimeControl::simple(90 * 60_000, 30_000).unwrap());
        assert_eq!(tc("300+2"), TimeControl::simple(5 * 60_000, 2_000).unwrap());
        assert_eq!(tc("3+2"), TimeControl::simple(3 * 60_000, 2_000).unwrap());
        assert_eq!(tc("90s+30s"), TimeControl::simple(90_000, 30_000).unwrap());
        assert_eq!(tc("40/5400+30:1800+30"), tc("40/90m+30s, 30m+30s"));
        assert_eq!(tc(" 5m d3s "), tc("300d3"));
    }

    #[test]
    fn time_control_errors() {
        let e = time_control_from_text("regulations.time_control", "").unwrap_err();
        assert_eq!(e.field, "regulations.time_control");
        assert!(e.description.contains("required"), "{e}");
        let e = time_control_from_text("regulations.time_control", "90+x").unwrap_err();
        assert!(e.description.starts_with("`90+x` is not a time control"), "{e}");
        let e = time_control_from_text("regulations.time_control", "?").unwrap_err();
        assert!(e.description.contains("not a time control a game can be played with"), "{e}");
    }

    #[test]
    fn time_control_text_round_trips() {
        for text in ["5400+30", "40/5400+30:1800+30", "300+2@61|240+2@61", "60+1", "120", "1", "300b3"] {
            let tc = time_control_from_text("tc", text).unwrap();
            let printed = time_control_to_text(&tc);
            assert_eq!(time_control_from_text("tc", &printed).unwrap(), tc, "{text} -> {printed}");
        }
        // The PGN form is used whenever it reads back the same.
        let tc = time_control_from_text("tc", "90+30").unwrap();
        assert_eq!(time_control_to_text(&tc), "5400+30");
    }

    #[test]
    fn regulations_defaults() {
        // Every unspecified field means the default of the Laws.
        let r = regulations_from_proto(&regs("90+30")).unwrap();
        let expected = Regulations::new(TimeControl::simple(90 * 60_000, 30_000).unwrap());
        assert_eq!(r, expected);
        assert!(r.observe);
        let online = pb::Regulations { mode: pb::Mode::Online as i32, ..regs("3+2") };
        let r = regulations_from_proto(&online).unwrap();
        assert_eq!(r, Regulations { mode: Mode::Online, ..Regulations::new(r.time_control.clone()) });
    }

    #[test]
    fn regulations_every_field() {
        let p = pb::Regulations {
            mode: pb::Mode::Hybrid as i32,
            time_control: "15+10".to_owned(),
            category: pb::Category::Standard as i32,
            regime: pb::Regime::Full as i32,
            penalty_ms: Some(90_000),
            default_time_ms: Some(0),
            no_draw_offers_before_move: 30,
            draw_offers_need_arbiter: false,
            guidelines_iii: false,
            device_penalty_deduct_ms: 300_000,
            chess960: true,
            start_fen: "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".to_owned(),
            armageddon: true,
            automatic_draws: Some(false),
            cn_draw_alternation: true,
            cn_grade_scoring: false,
            max_lag_compensation_ms: 1_500,
            reconnect_window_ms: Some(60_000),
        };
        let r = regulations_from_proto(&p).unwrap();
        assert_eq!(r.mode, Mode::Hybrid);
        assert_eq!(r.time_control, TimeControl::simple(15 * 60_000, 10_000).unwrap());
        assert_eq!(r.category, Some(Category::Standard));
        assert_eq!(r.regime, Regime::Full);
        assert_eq!(r.penalty_ms, Some(90_000));
        assert_eq!(r.default_time_ms, Some(0));
        assert_eq!(r.draw_offers, DrawOfferRestriction::BeforeMove(30));
        assert_eq!(r.device_penalty, DevicePenalty::DeductTime(300_000));
        assert!(r.chess960 && r.armageddon && r.cn_draw_alternation && r.observe);
        assert_eq!(r.start_fen.as_deref(), Some(p.start_fen.as_str()));
        assert_eq!(r.automatic_draws, Some(false));
        assert_eq!(r.max_lag_compensation_ms, 1_500);
        assert_eq!(r.reconnect_window_ms, Some(60_000));
        // And back: every field survives.
        let mut back = regulations_to_proto(&r);
        assert_eq!(back.time_control, "900+10");
        back.time_control = p.time_control.clone();
        assert_eq!(back, p);
    }

    #[test]
    fn regulations_round_trip() {
        let samples = [
            regs("90+30"),
            regs("40/5400+30:1800+30"),
            pb::Regulations { mode: pb::Mode::Online as i32, max_lag_compensation_ms: 500, ..regs("3+2") },
            pb::Regulations { guidelines_iii: true, draw_offers_need_arbiter: true, ..regs("90") },
            pb::Regulations { armageddon: true, ..regs("300+2@61|240+2@61") },
            pb::Regulations { category: pb::Category::Rapid as i32, penalty_ms: Some(60_000), ..regs("60") },
            pb::Regulations {
                start_fen: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".to_owned(),
                automatic_draws: Some(true),
                reconnect_window_ms: Some(120_000),
                ..regs("1+1")
            },
        ];
        for p in samples {
            let r = regulations_from_proto(&p).unwrap_or_else(|e| panic!("{p:?}: {e:?}"));
            let back = regulations_to_proto(&r);
            assert_eq!(regulations_from_proto(&back).unwrap(), r, "{back:?}");
            // Unspecified mode and regime come back as their explicit defaults.
            assert_ne!(back.mode, pb::Mode::Unspecified as i32);
            assert_ne!(back.regime, pb::Regime::Unspecified as i32);
        }
    }

    #[test]
    fn regulations_collects_field_violations() {
        let p = pb::Regulations {
            mode: 9,
            category: 7,
            regime: -1,
            no_draw_offers_before_move: 20,
            draw_offers_need_arbiter: true,
            start_fen: "not a fen".to_owned(),
            ..regs("")
        };
        let errors = regulations_from_proto(&p).unwrap_err();
        assert_eq!(
            fields(&errors),
            [
                "regulations.mode",
                "regulations.time_control",
                "regulations.category",
                "regulations.regime",
                "regulations.draw_offers_need_arbiter",
                "regulations.start_fen",
            ]
        );
        assert_eq!(
            errors[0].description,
            "9 is not a known mode (expected MODE_OVER_THE_BOARD = 1, MODE_ONLINE = 2 or MODE_HYBRID = 3)"
        );
    }

    #[test]
    fn regulations_bad_fen() {
        let p = pb::Regulations { start_fen: "8/8/8/8/8/8/8/8 w - - 0 1".to_owned(), ..regs("90+30") };
        let errors = regulations_from_proto(&p).unwrap_err();
        assert_eq!(errors, [Violation::new("regulations.start_fen", "invalid position: the board is empty")]);
        // A Chess960 castling right is only valid with the flag.
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let p = pb::Regulations { start_fen: fen.to_owned(), chess960: true, ..regs("90+30") };
        assert!(regulations_from_proto(&p).is_ok());
    }

    #[test]
    fn cn_grade_scoring_is_refused_until_it_works() {
        let p = pb::Regulations { cn_grade_scoring: true, ..regs("90+30") };
        let errors = regulations_from_proto(&p).unwrap_err();
        assert_eq!(
            errors,
            [Violation::new("regulations.cn_grade_scoring", "CN-16 grade scoring is not supported yet")]
        );
        let p = pb::Regulations { cn_grade_scoring: false, ..regs("90+30") };
        let r = regulations_from_proto(&p).unwrap();
        assert!(!regulations_to_proto(&r).cn_grade_scoring);
    }

    #[test]
    fn regulations_validation_lands_on_the_right_field() {
        let case = |p: pb::Regulations| {
            let errors = regulations_from_proto(&p).unwrap_err();
            assert_eq!(errors.len(), 1, "{errors:?}");
            errors.into_iter().next().unwrap()
        };
        let v = case(pb::Regulations { guidelines_iii: true, ..regs("90+30") });
        assert_eq!(v.field, "regulations.guidelines_iii");
        assert!(v.description.contains("without increment"), "{v}");
        let v = case(pb::Regulations { guidelines_iii: true, ..regs("5") });
        assert_eq!(v.field, "regulations.guidelines_iii");
        assert!(v.description.contains("blitz"), "{v}");
        let v = case(pb::Regulations { penalty_ms: Some(10), ..regs("90+30") });
        assert_eq!(v.field, "regulations.penalty_ms");
        let v = case(pb::Regulations { default_time_ms: Some(-1), ..regs("90+30") });
        assert_eq!(v.field, "regulations.default_time_ms");
        let v = case(pb::Regulations { device_penalty_deduct_ms: -5, ..regs("90+30") });
        assert_eq!(v.field, "regulations.device_penalty_deduct_ms");
        let v = case(pb::Regulations { max_lag_compensation_ms: 10_000, ..regs("90+30") });
        assert_eq!(v.field, "regulations.max_lag_compensation_ms");
        let v = case(pb::Regulations { reconnect_window_ms: Some(0), ..regs("90+30") });
        assert_eq!(v.field, "regulations.reconnect_window_ms");
    }

    #[test]
    fn colors() {
        assert_eq!(color_from_proto("color", 0), Ok(None));
        assert_eq!(color_from_proto("color", 1), Ok(Some(Color::White)));
        assert_eq!(color_from_proto("color", 2), Ok(Some(Color::Black)));
        let v = color_from_proto("color", 3).unwrap_err();
        assert_eq!(v.field, "color");
        assert!(v.description.starts_with("3 is not a known colour"), "{v}");
        for c in Color::ALL {
            assert_eq!(color_from_proto("c", color_to_proto(c)), Ok(Some(c)));
        }
        assert_eq!(optional_color_to_proto(None), pb::Color::Unspecified as i32);
    }

    #[test]
    fn touch_kinds() {
        assert_eq!(touch_kind_from_proto("kind", 0), Ok(TouchKind::Intent));
        assert_eq!(touch_kind_from_proto("kind", 1), Ok(TouchKind::Intent));
        assert_eq!(touch_kind_from_proto("kind", 2), Ok(TouchKind::Adjust));
        assert_eq!(touch_kind_from_proto("kind", 3), Ok(TouchKind::Accidental));
        assert_eq!(touch_kind_from_proto("kind", 4).unwrap_err().field, "kind");
    }

    #[test]
    fn promotion_roles() {
        assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Queen as i32), Ok(Role::Queen));
        assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Knight as i32), Ok(Role::Knight));
        assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Bishop as i32), Ok(Role::Bishop));
        assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Rook as i32), Ok(Role::Rook));
        let v = promotion_role_from_proto("piece", pb::PieceRole::King as i32).unwrap_err();
        assert!(v.description.contains("cannot be promoted to a king"), "{v}");
        assert!(promotion_role_from_proto("piece", pb::PieceRole::Pawn as i32).is_err());
        let v = promotion_role_from_proto("piece", 0).unwrap_err();
        assert!(v.description.starts_with("a promotion piece is required"), "{v}");
        assert!(promotion_role_from_proto("piece", 42).unwrap_err().description.starts_with("42 is not"));
    }

    #[test]
    fn claim_kinds_results_answers() {
        assert_eq!(claim_kind_from_proto("kind", 1), Ok(ClaimKind::Threefold));
        assert_eq!(claim_kind_from_proto("kind", 2), Ok(ClaimKind::FiftyMoves));
        assert!(claim_kind_from_proto("kind", 0).unwrap_err().description.contains("required"));
        assert!(claim_kind_from_proto("kind", 3).is_err());

        assert_eq!(declared_result_from_proto("result", 1), Ok(DeclaredResult::WhiteWins));
        assert_eq!(declared_result_from_proto("result", 2), Ok(DeclaredResult::BlackWins));
        assert_eq!(declared_result_from_proto("result", 3), Ok(DeclaredResult::Draw));
        assert_eq!(declared_result_from_proto("result", 4), Ok(DeclaredResult::BothLose));
        assert!(declared_result_from_proto("result", 0).is_err());
        assert!(declared_result_from_proto("result", 5).is_err());

        assert_eq!(answer_from_proto("answer", 1), Ok(Answer::Default));
        assert_eq!(answer_from_proto("answer", 2), Ok(Answer::Accept));
        assert_eq!(answer_from_proto("answer", 3), Ok(Answer::Reject));
        assert_eq!(answer_from_proto("answer", 4), Ok(Answer::Postpone));
        assert_eq!(answer_from_proto("answer", 0).unwrap_err().field, "answer");
        assert!(answer_from_proto("answer", -3).is_err());
    }

    #[test]
    fn penalties() {
        let k = |k: pb::PenaltyKind| k as i32;
        assert_eq!(penalty_from_proto(k(pb::PenaltyKind::Warning), 0), Ok(PenaltyKind::Warning));
        assert_eq!(
            penalty_from_proto(k(pb::PenaltyKind::AddTimeToOpponent), 120_000),
            Ok(PenaltyKind::AddTimeToOpponent(120_000))
        );
        assert_eq!(
            penalty_from_proto(k(pb::PenaltyKind::DeductTime), 3_600_000),
            Ok(PenaltyKind::DeductTime(3_600_000))
        );
        assert_eq!(
            penalty_from_proto(k(pb::PenaltyKind::RaiseOpponentScore), 0),
            Ok(PenaltyKind::RaiseOpponentScore)
        );
        assert_eq!(penalty_from_proto(k(pb::PenaltyKind::ReduceScore), 0), Ok(PenaltyKind::ReduceScore));
        assert_eq!(penalty_from_proto(k(pb::PenaltyKind::DeclareLost), 0), Ok(PenaltyKind::DeclareLost));
        for bad in [0, -1, 3_600_001] {
            let v = penalty_from_proto(k(pb::PenaltyKind::DeductTime), bad).unwrap_err();
            assert_eq!(v.field, "amount_ms", "{bad}");
        }
        let v = penalty_from_proto(k(pb::PenaltyKind::Warning), 5).unwrap_err();
        assert_eq!(v.field, "amount_ms");
        assert!(v.description.starts_with("a warning takes no amount"), "{v}");
        assert_eq!(penalty_from_proto(0, 0).unwrap_err().field, "kind");
        assert_eq!(penalty_from_proto(99, 0).unwrap_err().field, "kind");
    }

    #[test]
    fn statuses_and_categories() {
        for s in [STATUS_PENDING, STATUS_IN_PROGRESS, STATUS_FINISHED] {
            assert_eq!(status_from_proto("status", status_to_proto(s)), Ok(Some(s)));
        }
        assert_eq!(status_to_proto("garbage"), pb::GameStatus::Unspecified as i32);
        assert_eq!(status_from_proto("status", 0), Ok(None));
        assert_eq!(status_from_proto("status", 4).unwrap_err().field, "status");
        assert_eq!(category_to_proto(Category::Blitz), pb::Category::Blitz as i32);
        assert_eq!(category_to_proto(Category::Rapid), pb::Category::Rapid as i32);
        assert_eq!(category_to_proto(Category::Standard), pb::Category::Standard as i32);
    }

    #[test]
    fn squares() {
        assert_eq!(parse_square("square", "e4"), Ok("e4".parse().unwrap()));
        assert_eq!(parse_square("square", "h8"), Ok("h8".parse().unwrap()));
        let v = parse_square("square", "e9").unwrap_err();
        assert_eq!(v, Violation::new("square", "`e9` is not a square (files a-h, ranks 1-8, e.g. `e4`)"));
        assert!(parse_square("square", "E4").is_err());
        assert!(parse_square("square", "i1").is_err());
        assert_eq!(parse_square("square", "").unwrap_err().description, "a square is required, e.g. `e4`");
    }

    fn mv(from: &str, to: &str, promotion: Option<Role>, castle: bool) -> MoveInput {
        MoveInput { from: from.parse().unwrap(), to: to.parse().unwrap(), promotion, castle }
    }

    #[test]
    fn moves_in_uci() {
        let pos = Position::startpos();
        assert_eq!(parse_move("move", "e2e4", &pos, false), Ok(mv("e2", "e4", None, false)));
        assert_eq!(parse_move("move", " e7e8q ", &pos, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
        // Well-formed but illegal: still a move to report to the Laws.
        assert_eq!(parse_move("move", "e2e5", &pos, false), Ok(mv("e2", "e5", None, false)));
        assert_eq!(parse_move("move", "e1h1", &pos, true), Ok(mv("e1", "h1", None, true)));
    }

    #[test]
    fn moves_in_san() {
        let pos = Position::startpos();
        assert_eq!(parse_move("move", "Nf3", &pos, false), Ok(mv("g1", "f3", None, false)));
        assert_eq!(parse_move("move", "e4!?", &pos, false), Ok(mv("e2", "e4", None, false)));
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(parse_move("move", "O-O", &castle, false), Ok(mv("e1", "g1", None, true)));
        assert_eq!(parse_move("move", "0-0-0+", &castle, false), Ok(mv("e1", "c1", None, true)));
        let ep = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
        assert_eq!(parse_move("move", "exd6 e.p.", &ep, false), Ok(mv("e5", "d6", None, false)));
        let promo = Position::from_fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(parse_move("move", "e8=Q+", &promo, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
        assert_eq!(parse_move("move", "e7e8Q", &promo, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
        // Chess960 castling is written king takes rook, even when the king
        // stays on its square.
        let c960 =
            Position::from_fen_with("1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", FenOptions::CHESS960).unwrap();
        assert_eq!(parse_move("move", "O-O", &c960, false), Ok(mv("g1", "h1", None, true)));
    }

    #[test]
    fn move_errors() {
        let pos = Position::startpos();
        assert_eq!(parse_move("move", "  ", &pos, false), Err(Violation::new("move", "a move is required")));
        let v = parse_move("move", "Nf6", &pos, false).unwrap_err();
        assert_eq!(v, Violation::new("move", "Nf6 is not a legal move in this position (white to move)"));
        let v = parse_move("move", "hello", &pos, false).unwrap_err();
        assert!(v.description.starts_with("`hello` is not a move: expected UCI"), "{v}");
        let v = parse_move("move", "e2e9", &pos, false).unwrap_err();
        assert_eq!(v.description, "`e9` is not a square (files a-h, ranks 1-8) in the UCI move `e2e9`");
        let v = parse_move("move", "e2e2", &pos, false).unwrap_err();
        assert!(v.description.contains("the from and to squares are the same"), "{v}");
        let v = parse_move("move", "e7e8k", &pos, false).unwrap_err();
        assert!(v.description.ends_with("(lowercase), got `k`"), "{v}");
        let two_knights = Position::from_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1").unwrap();
        let v = parse_move("intended_move", "Nd2", &two_knights, false).unwrap_err();
        assert_eq!(v.field, "intended_move");
        assert!(v.description.starts_with("Nd2 is ambiguous"), "{v}");
        assert_eq!(parse_move("move", "Nbd2", &two_knights, false), Ok(mv("b1", "d2", None, false)));
        let promo = Position::from_fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert!(parse_move("move", "e8", &promo, false).unwrap_err().description.contains("promotion"));
    }

    #[test]
    fn clock_formats() {
        assert_eq!(format_ms(5_387_000), "1:29:47");
        assert_eq!(format_ms(3_600_000), "1:00:00");
        assert_eq!(format_ms(245_000), "4:05");
        assert_eq!(format_ms(10_000), "0:10");
        assert_eq!(format_ms(9_999), "0:09.9");
        assert_eq!(format_ms(7_300), "0:07.3");
        assert_eq!(format_ms(90), "0:00.0");
        assert_eq!(format_ms(0), "0:00.0");
        assert_eq!(format_ms(-1_500), "-0:01.5");
        assert_eq!(format_duration(12_345), "12.3 s");
        assert_eq!(format_duration(30_000), "30.0 s");
        assert_eq!(format_duration(120_000), "2:00");
        assert_eq!(format_duration(-500), "-0.5 s");
        assert_eq!(format_duration(i64::MIN).chars().next(), Some('-'));
    }

    #[test]
    fn helpers() {
        assert_eq!(upper_snake("MoveCompleted"), "MOVE_COMPLETED");
        assert_eq!(upper_snake("GameOver"), "GAME_OVER");
        assert_eq!(upper_snake("Tick"), "TICK");
        assert_eq!(upper_snake("ClockResumedAfterOutage"), "CLOCK_RESUMED_AFTER_OUTAGE");
        assert_eq!(upper_snake("OCRRule"), "OCR_RULE");
        let ords: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal).to_vec();
        assert_eq!(
            ords,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
        );
    }

    #[test]
    fn rulings() {
        let r = ruling_to_proto(&Ruling::new(
            RuleId::Fide6_2a,
            Decision::MoveCompleted {
                color: Color::White,
                used_ms: 12_345,
                bonus_ms: 30_000,
                remaining_ms: 5_387_000,
            },
        ));
        assert_eq!(r.rule_id, "FIDE-6.2a");
        assert_eq!(r.decision, "MOVE_COMPLETED");
        assert_eq!(r.color, pb::Color::White as i32);
        assert_eq!(r.summary, "White completed a move: 12.3 s used, 30.0 s added, 1:29:47 left");
        let facts: HashMap<String, String> =
            [("color", "white"), ("used_ms", "12345"), ("bonus_ms", "30000"), ("remaining_ms", "5387000")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .into();
        assert_eq!(r.facts, facts);

        let r = ruling_to_proto(&Ruling::new(
            RuleId::Fide7_5_5,
            Decision::IllegalMove { color: Color::Black, count: 2, description: "Ke8-e6".to_owned() },
        ));
        assert_eq!(r.decision, "ILLEGAL_MOVE");
        assert_eq!(r.summary, "Illegal move by Black (2nd): Ke8-e6; the position before it is reinstated");
        assert_eq!(r.facts["count"], "2");

        let r = ruling_to_proto(&Ruling::new(
            RuleId::Fide4_3a,
            Decision::Obligation {
                color: Color::White,
                allowed: vec!["e2e3".to_owned(), "e2e4".to_owned()],
                reason: "the pawn on e2 was touched".to_owned(),
            },
        ));
        assert_eq!(r.facts["allowed"], "e2e3 e2e4");

        let r = ruling_to_proto(&Ruling::new(RuleId::Fide6_11, Decision::ClocksPaused));
        assert_eq!((r.decision.as_str(), r.color), ("CLOCKS_PAUSED", pb::Color::Unspecified as i32));
        assert!(r.facts.is_empty());
        assert_eq!(r.summary, "The clocks are paused");
    }

    #[test]
    fn game_over_ruling() {
        let end = GameEnd {
            result: GameResult::WhiteWins,
            reason: "checkmate".to_owned(),
            rule: RuleId::Fide5_1_1,
            cause: EndCause::Checkmate,
            armageddon_winner: None,
            board_result: None,
        };
        let r = ruling_to_proto(&Ruling::new(RuleId::Fide5_1_1, Decision::GameOver(end.clone())));
        assert_eq!(r.decision, "GAME_OVER");
        assert_eq!(r.summary, "Game over: 1-0 (checkmate)");
        let facts: HashMap<String, String> =
            [("result", "1-0"), ("reason", "checkmate"), ("rule", "FIDE-5.1.1")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .into();
        assert_eq!(r.facts, facts);

        let adjusted = GameEnd {
            result: GameResult::Adjusted { white: Score::Draw, black: Score::Loss },
            armageddon_winner: Some(Color::Black),
            ..end
        };
        let r = ruling_to_proto(&Ruling::new(RuleId::Fide12_9, Decision::GameOver(adjusted.clone())));
        assert_eq!(r.facts["result"], "1/2-0");
        assert_eq!(r.facts["armageddon_winner"], "black");
        assert!(!r.facts.keys().any(|k| k.starts_with("result.")), "{:?}", r.facts);
        assert!(r.summary.ends_with("Black wins the Armageddon match"), "{}", r.summary);

        let p = game_end_to_proto(&adjusted);
        assert_eq!(
            p,
            pb::GameEnd {
                result: "1/2-0".to_owned(),
                reason: "checkmate".to_owned(),
                rule_id: "FIDE-5.1.1".to_owned(),
                armageddon_winner: pb::Color::Black as i32,
            }
        );
    }

    #[test]
    fn every_decision_has_a_name_and_summary() {
        let c = Color::Black;
        let decisions = vec![
            Decision::GameStarted { white_ms: 1, black_ms: 2 },
            Decision::MoveMade { color: c, san: "Nf6".into(), uci: "g8f6".into(), ply: 2 },
            Decision::PremoveQueued { color: c, uci: "e7e5".into() },
            Decision::PremoveDropped { color: c, uci: "e7e5".into() },
            Decision::IllegalMoveNotCompleted { color: c, description: "x".into() },
            Decision::ClockAdjusted { color: c, delta_ms: -30_000, remaining_ms: 60_000 },
            Decision::ClockSet { color: c, remaining_ms: 60_000 },
            Decision::ClocksResumed,
            Decision::ClockResumedAfterOutage { outage_ms: 4_000 },
            Decision::Warning { color: c, reason: "r".into() },
            Decision::DrawOffered { color: c, ply: 4 },
            Decision::DrawOfferLapsed { color: c, reason: "r".into() },
            Decision::DrawOfferDeclined { color: c },
            Decision::ClaimIncorrect { color: c, reason: "r".into() },
            Decision::PlayerArrived { color: c },
            Decision::Disconnected { color: c },
            Decision::Reconnected { color: c },
            Decision::QuestionOpened { id: 1, question: "q".into(), default: "d".into() },
            Decision::QuestionAnswered { id: 1, answer: "Accept".into() },
            Decision::PositionReinstated { ply: 3, fen: "f".into() },
            Decision::IncrementIntroduced { increment_ms: 5_000 },
        ];
        for d in decisions {
            let r = ruling_to_proto(&Ruling::new(RuleId::Arb, d.clone()));
            assert!(r.decision.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'), "{d:?}");
            assert!(r.summary.starts_with(|ch: char| ch.is_ascii_uppercase()), "{d:?}: {}", r.summary);
            if r.facts.contains_key("color") {
                assert_eq!(r.color, pb::Color::Black as i32, "{d:?}");
            }
        }
        let r = ruling_to_proto(&Ruling::new(
            RuleId::Fide6_10,
            Decision::ClockAdjusted { color: c, delta_ms: -30_000, remaining_ms: 60_000 },
        ));
        assert_eq!(r.summary, "Black's clock: 30.0 s removed, 1:00 left");
    }

    #[test]
    fn events() {
        let (act, summary, details) =
            event_to_proto_parts(&Event::MakeMove { color: Color::White, mv: mv("e2", "e4", None, false) });
        assert_eq!(act, "MAKE_MOVE");
        assert_eq!(summary, "White moves e2e4");
        let expected: HashMap<String, String> =
            [("color", "white"), ("mv.from", "e2"), ("mv.to", "e4"), ("mv.castle", "false")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .into();
        assert_eq!(details, expected);

        let (act, summary, details) =
            event_to_proto_parts(&Event::PressClock { color: Color::Black, other_hand: false });
        assert_eq!((act.as_str(), summary.as_str()), ("PRESS_CLOCK", "Black presses the clock"));
        assert_eq!(details["other_hand"], "false");

        let (act, summary, details) =
            event_to_proto_parts(&Event::AdjustClock { color: Color::White, delta_ms: 120_000 });
        assert_eq!(act, "ADJUST_CLOCK");
        assert_eq!(summary, "Arbiter adds 2:00 to White's clock");
        assert_eq!(details["delta_ms"], "120000");

        let (act, summary, details) = event_to_proto_parts(&Event::Tick);
        assert_eq!((act.as_str(), summary.as_str()), ("TICK", "Time check"));
        assert!(details.is_empty());

        let (act, summary, details) = event_to_proto_parts(&Event::Penalty {
            color: Color::Black,
            kind: PenaltyKind::AddTimeToOpponent(120_000),
        });
        assert_eq!(act, "PENALTY");
        assert_eq!(summary, "Arbiter penalises Black: 2:00 added to White's clock");
        assert_eq!(details["kind"], "AddTimeToOpponent");
        assert_eq!(details["kind.value"], "120000");

        let (_, _, details) =
            event_to_proto_parts(&Event::Penalty { color: Color::Black, kind: PenaltyKind::Warning });
        assert_eq!(details["kind"], "Warning");

        let (act, summary, details) = event_to_proto_parts(&Event::ClaimDraw {
            color: Color::White,
            kind: ClaimKind::Threefold,
            intended: None,
        });
        assert_eq!(act, "CLAIM_DRAW");
        assert_eq!(summary, "White claims a draw by threefold repetition");
        assert!(!details.contains_key("intended"));

        let (act, summary, _) = event_to_proto_parts(&Event::DeclareResult { result: DeclaredResult::Draw });
        assert_eq!(
            (act.as_str(), summary.as_str()),
            ("DECLARE_RESULT", "Arbiter declares the result 1/2-1/2")
        );
    }

    #[test]
    fn every_event_has_a_name_and_summary() {
        let c = Color::White;
        let m = mv("e7", "e8", Some(Role::Queen), false);
        let events = vec![
            Event::AnnounceAdjust { color: c },
            Event::Touch { color: c, square: "e2".parse().unwrap(), kind: TouchKind::Adjust },
            Event::PromotionPieceTouched { color: c, role: Role::Knight },
            Event::CastlingKingReleased { color: c, to: "g1".parse().unwrap() },
            Event::UsedTwoHands { color: c },
            Event::SubmitMove { color: c, mv: m, premove: true, lag_ms: 40 },
            Event::Disconnect { color: c },
            Event::Reconnect { color: c },
            Event::OfferDraw { color: c },
            Event::AcceptDraw { color: c },
            Event::DeclineDraw { color: c },
            Event::ClaimDraw { color: c, kind: ClaimKind::FiftyMoves, intended: Some(m) },
            Event::Resign { color: c },
            Event::PlayerArrived { color: c },
            Event::RequestIncrement { color: c },
            Event::ClaimNoWinningAttempt { color: c },
            Event::Start,
            Event::PauseClocks,
            Event::ResumeClocks,
            Event::SetClock { color: c, remaining_ms: 1 },
            Event::ReinstatePosition { ply: 0 },
            Event::DeviceFound { color: c },
            Event::AnswerQuestion { id: 2, answer: Answer::Postpone },
        ];
        for e in events {
            let (act, summary, details) = event_to_proto_parts(&e);
            assert!(act.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'), "{e:?}");
            assert!(summary.starts_with(|ch: char| ch.is_ascii_uppercase()), "{e:?}: {summary}");
            if let Some(color) = e.player() {
                assert_eq!(details["color"], color.name(), "{e:?}");
            }
        }
        let (_, summary, details) =
            event_to_proto_parts(&Event::SubmitMove { color: c, mv: m, premove: false, lag_ms: 0 });
        assert_eq!(summary, "White plays e7e8q");
        assert_eq!(details["mv.promotion"], "queen");
    }

    #[test]
    fn results() {
        let cases = [
            (GameResult::WhiteWins, "1-0"),
            (GameResult::BlackWins, "0-1"),
            (GameResult::Draw, "1/2-1/2"),
            (GameResult::WhiteWinsByForfeit, "+/-"),
            (GameResult::BlackWinsByForfeit, "-/+"),
            (GameResult::DoubleForfeit, "-/-"),
            (GameResult::BothLose, "0-0"),
            (GameResult::Adjusted { white: Score::Draw, black: Score::Loss }, "1/2-0"),
            (GameResult::Adjusted { white: Score::Loss, black: Score::Draw }, "0-1/2"),
            (GameResult::Adjusted { white: Score::Win, black: Score::Loss }, "1-0"),
        ];
        for (r, text) in cases {
            assert_eq!(game_result_text(r), text, "{r:?}");
        }
    }

    #[test]
    fn obligations() {
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let e1: Square = "e1".parse().unwrap();
        let h1: Square = "h1".parse().unwrap();
        // 4.4.1: king then rook binds the player to castle on that side.
        let o = arbiter_laws::touch::obligation(&pos, &[e1, h1]).unwrap();
        let p = obligation_to_proto(Color::White, &o, &pos);
        assert_eq!(p.color, pb::Color::White as i32);
        assert_eq!(p.allowed_moves, ["e1g1"]);
        assert_eq!(p.rule_id, o.rule.as_str());
        assert_eq!(p.reason, o.reason);
    }
}
