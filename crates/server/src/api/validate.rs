//! Requests into domain values: every field checked, every problem a
//! [`Violation`] naming its field.

use arbiter_chess::{Color, FenOptions, Position, Role, SanError, Square};
use arbiter_laws::event::{Answer, ClaimKind, DeclaredResult, MoveInput, PenaltyKind, TouchKind};
use arbiter_laws::regulations::{
    DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations, RegulationsError,
};
use arbiter_laws::time_control::{Category, TimeControl};
use arbiter_proto::v1 as pb;

use super::{Violation, missing_enum, path, unknown_enum};
use crate::store::GameStatus;

/// Where the regulations sit in a request, for field paths.
const REGS: &str = "regulations";

/// The largest time penalty an arbiter may give in one act: one hour.
const MAX_TIME_PENALTY_MS: i64 = 3_600_000;

/// In the ambiguous all-digit form of a time control (`90+30` or `300+2`),
/// numbers up to this are read as minutes (the human form) and larger ones as
/// seconds (the PGN form): no game is played with more than two hours for
/// one period, and no FIDE-rated game with two minutes or less.
const AMBIGUOUS_HUMAN_MAX_BASE_MS: i64 = 120 * 60_000;

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
        // A new game is judged by the rulings of this build.
        rulings_revision: Regulations::CURRENT_RULINGS,
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
        // Not a field of the API: the service gives every new game the
        // current revision, so this is never reported for a request.
        RegulationsError::RulingsRevision(_) => "rulings_revision",
    }
}

/// The largest move count the arbiter may set on a clock (`SetMoveCounter`).
pub const MAX_MOVE_COUNTER: u32 = 10_000;

/// The move count of a `SetMoveCounter` request.
///
/// # Errors
/// A violation of `field` above [`MAX_MOVE_COUNTER`].
pub fn move_counter(field: &str, moves: u32) -> Result<u32, Violation> {
    if moves > MAX_MOVE_COUNTER {
        return Err(Violation::new(
            field,
            format!("a move counter counts 0 to {MAX_MOVE_COUNTER} completed moves, got {moves}"),
        ));
    }
    Ok(moves)
}

/// A time control written in the PGN `TimeControl` tag form only (seconds:
/// `40/5400+30:1800+30`, `5400+30`, `300d3`, `300b3`), as a field named for
/// that form asks.
///
/// # Errors
/// A violation of `field` if the text is empty or not of that form.
pub fn pgn_time_control(field: &str, text: &str) -> Result<TimeControl, Violation> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Violation::new(
            field,
            "a time control in the PGN form is required, e.g. `40/5400+30:1800+30` (seconds)",
        ));
    }
    TimeControl::from_pgn(text).map_err(|e| {
        Violation::new(
            field,
            format!(
                "`{text}` is not a time control in the PGN form: {e} (write seconds, e.g. \
                 `40/5400+30:1800+30`, `5400+30`, `300d3`)"
            ),
        )
    })
}

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

/// The status of an API filter: `None` for unspecified (any status).
///
/// # Errors
/// A violation of `field` for a number the API does not define.
pub fn status_from_proto(field: &str, value: i32) -> Result<Option<GameStatus>, Violation> {
    match pb::GameStatus::try_from(value) {
        Ok(pb::GameStatus::Unspecified) => Ok(None),
        Ok(pb::GameStatus::Pending) => Ok(Some(GameStatus::Pending)),
        Ok(pb::GameStatus::InProgress) => Ok(Some(GameStatus::InProgress)),
        Ok(pb::GameStatus::Finished) => Ok(Some(GameStatus::Finished)),
        Err(_) => Err(unknown_enum(
            field,
            "game status",
            value,
            "GAME_STATUS_PENDING = 1, GAME_STATUS_IN_PROGRESS = 2 or GAME_STATUS_FINISHED = 3",
        )),
    }
}

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
