//! Requests into domain values: every field checked, every problem a
//! [`Violation`] naming its field.

use arbiter_chess::{Color, FenOptions, Position, Role, Square};
use arbiter_laws::event::{Answer, ClaimKind, DeclaredResult, MoveInput, PenaltyKind, SetupError, TouchKind};
use arbiter_laws::notation::{MoveTextError, read_move};
use arbiter_laws::regulations::{
    ClockAuthority, DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations, RegulationsError,
    SensedTouches,
};
use arbiter_laws::time_control::{
    ACCEPTED_FORMS, Bonus, BonusKind, Category, MAX_BASE_MS, MAX_BONUS_MS, MAX_FROM_MOVE, MAX_PERIOD_MOVES,
    MAX_PERIODS, Period, TimeControl, strip_pgn_prefix,
};
use arbiter_proto::v1 as pb;

use super::{Violation, missing_enum, path, unknown_enum};
use crate::store::GameStatus;

/// Where the regulations sit in a request, for field paths.
const REGS: &str = "regulations";

/// The largest time penalty an arbiter may give in one act: one hour.
const MAX_TIME_PENALTY_MS: i64 = 3_600_000;

/// Reads the text of `time_control`: the human form, or the PGN form marked
/// `pgn:` ([`TimeControl::parse_text`]). A bare base is always minutes and a
/// bare increment seconds: `5+3` and `5|3` are 5 minutes + 3 seconds, `180+2`
/// is 3 hours + 2 seconds; nothing is read in seconds because its numbers are
/// large.
///
/// # Errors
/// A violation of `field` if the text is empty or not a time control; its
/// description names the problem and shows the accepted forms.
pub fn time_control_from_text(field: &str, text: &str) -> Result<TimeControl, Violation> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Violation::new(field, format!("a time control is required; {ACCEPTED_FORMS}")));
    }
    TimeControl::parse_text(text)
        .map_err(|e| Violation::new(field, format!("`{text}` is not a time control: {e}; {ACCEPTED_FORMS}")))
}

/// Reads `time_control_human`: the human form only.
fn time_control_from_human(field: &str, text: &str) -> Result<TimeControl, Violation> {
    if let Some(pgn) = strip_pgn_prefix(text) {
        return Err(Violation::new(
            field,
            format!("this field takes the human form; give `{pgn}` in `time_control_pgn`"),
        ));
    }
    time_control_from_text(field, text)
}

/// Reads `time_control_pgn`: the PGN form in seconds (an optional `pgn:`
/// mark is allowed).
fn time_control_from_pgn(field: &str, text: &str) -> Result<TimeControl, Violation> {
    let text = text.trim();
    let bare = strip_pgn_prefix(text).unwrap_or(text);
    if bare.is_empty() {
        return Err(Violation::new(
            field,
            "a PGN time control is required, e.g. `300+3` or `40/5400+30:1800+30`",
        ));
    }
    TimeControl::from_pgn(bare).map_err(|e| {
        Violation::new(
            field,
            format!(
                "`{bare}` is not a PGN time control (seconds): {e}; e.g. `300+3`, `5400`, `40/5400+30:1800+30`, \
                 `300d3` (simple delay), `300b3` (Bronstein), `300+2@61|240+2@61` (White|Black)"
            ),
        )
    })
}

/// Reads a structured time control, every problem a violation of the field
/// it concerns (`{field}.periods[1].delay_kind`, ...).
///
/// # Errors
/// No periods or more than [`MAX_PERIODS`], a rest-of-game period that is
/// not last, too many moves, a negative or absurd base, increment or delay
/// (over [`MAX_BASE_MS`] or [`MAX_BONUS_MS`]), an increment and a delay in
/// one period, a delay without its kind or a kind without a delay, a bonus
/// from a move without a bonus or beyond [`MAX_FROM_MOVE`], and a period
/// with neither base time nor bonus.
pub fn time_control_from_periods(field: &str, tc: &pb::TimeControl) -> Result<TimeControl, Vec<Violation>> {
    let mut errors = Vec::new();
    let white = periods_from_proto(&path(field, "periods"), &tc.periods, &mut errors);
    let black = (!tc.black_periods.is_empty())
        .then(|| periods_from_proto(&path(field, "black_periods"), &tc.black_periods, &mut errors));
    if !errors.is_empty() {
        return Err(errors);
    }
    let tc = match black {
        None => TimeControl::new(white),
        Some(black) => TimeControl::per_colour(white, black),
    };
    tc.map_err(|e| vec![Violation::new(field, e.to_string())])
}

fn periods_from_proto(
    field: &str,
    periods: &[pb::TimeControlPeriod],
    errors: &mut Vec<Violation>,
) -> Vec<Period> {
    if periods.is_empty() {
        errors.push(Violation::new(field, "at least one period is required"));
        return Vec::new();
    }
    if periods.len() > MAX_PERIODS {
        errors.push(Violation::new(field, format!("{} periods; at most {MAX_PERIODS}", periods.len())));
        return Vec::new();
    }
    let last = periods.len() - 1;
    let mut out = Vec::with_capacity(periods.len());
    for (i, p) in periods.iter().enumerate() {
        let f = |name: &str| format!("{field}[{i}].{name}");
        let moves = match p.moves {
            0 if i != last => {
                errors.push(Violation::new(
                    f("moves"),
                    "0 (the rest of the game) is only for the last period; give this period's move count",
                ));
                None
            }
            0 => None,
            m if m > MAX_PERIOD_MOVES => {
                errors.push(Violation::new(f("moves"), format!("{m} moves; at most {MAX_PERIOD_MOVES}")));
                None
            }
            m => Some(m),
        };
        for (name, ms, max, what) in [
            ("base_ms", p.base_ms, MAX_BASE_MS, "100 hours"),
            ("increment_ms", p.increment_ms, MAX_BONUS_MS, "10 minutes a move"),
            ("delay_ms", p.delay_ms, MAX_BONUS_MS, "10 minutes a move"),
        ] {
            if ms < 0 {
                errors.push(Violation::new(f(name), format!("{ms} is negative")));
            } else if ms > max {
                errors.push(Violation::new(f(name), format!("{ms} ms is more than {what}")));
            }
        }
        if p.increment_ms > 0 && p.delay_ms > 0 {
            errors.push(Violation::new(
                f("delay_ms"),
                "a period has an increment or a delay, not both: set `increment_ms` or `delay_ms`",
            ));
        }
        let delay_kind = match pb::DelayKind::try_from(p.delay_kind) {
            Err(_) => {
                errors.push(unknown_enum(
                    &f("delay_kind"),
                    "delay kind",
                    p.delay_kind,
                    "DELAY_KIND_SIMPLE = 1 or DELAY_KIND_BRONSTEIN = 2",
                ));
                None
            }
            Ok(pb::DelayKind::Unspecified) => {
                if p.delay_ms > 0 {
                    errors.push(missing_enum(
                        &f("delay_kind"),
                        "delay kind for `delay_ms`",
                        "DELAY_KIND_SIMPLE = 1 or DELAY_KIND_BRONSTEIN = 2",
                    ));
                }
                None
            }
            Ok(kind) => {
                if p.delay_ms == 0 {
                    errors.push(Violation::new(
                        f("delay_ms"),
                        "a delay kind without a delay: give `delay_ms` or leave `delay_kind` unspecified",
                    ));
                }
                Some(if kind == pb::DelayKind::Simple {
                    BonusKind::SimpleDelay
                } else {
                    BonusKind::Bronstein
                })
            }
        };
        let has_bonus = p.increment_ms > 0 || p.delay_ms > 0;
        if p.bonus_from_move > MAX_FROM_MOVE {
            errors.push(Violation::new(
                f("bonus_from_move"),
                format!("move {}; moves are numbered 1 to {MAX_FROM_MOVE}", p.bonus_from_move),
            ));
        } else if p.bonus_from_move > 1 && !has_bonus {
            errors
                .push(Violation::new(f("bonus_from_move"), "there is no increment or delay to begin later"));
        }
        if p.base_ms == 0 && !has_bonus {
            errors.push(Violation::new(
                f("base_ms"),
                "zero base time and no increment or delay: no move could be made in this period",
            ));
        }
        let bonus = match (delay_kind, p.delay_ms > 0, p.increment_ms > 0) {
            (Some(kind), true, _) => {
                Some(Bonus { kind, ms: p.delay_ms, from_move: p.bonus_from_move.max(1) })
            }
            (_, _, true) => Some(Bonus::increment(p.increment_ms).from_move(p.bonus_from_move.max(1))),
            _ => None,
        };
        out.push(Period { moves, base_ms: p.base_ms, bonus });
    }
    out
}

/// The time control of a `CreateGame` request: the text of `time_control`
/// or one of `time_control_form`. Both may be given only if they describe
/// the same clocks.
///
/// # Errors
/// Every violation of the form(s) given, or one if none is given or two
/// disagree.
pub fn time_control_from_request(r: &pb::Regulations) -> Result<TimeControl, Vec<Violation>> {
    use pb::regulations::TimeControlForm as Form;
    let text_field = path(REGS, "time_control");
    let text =
        (!r.time_control.trim().is_empty()).then(|| time_control_from_text(&text_field, &r.time_control));
    let (form_field, form) = match &r.time_control_form {
        None => (String::new(), None),
        Some(Form::TimeControlHuman(t)) => {
            let field = path(REGS, "time_control_human");
            let tc = time_control_from_human(&field, t).map_err(|v| vec![v]);
            (field, Some(tc))
        }
        Some(Form::TimeControlPgn(t)) => {
            let field = path(REGS, "time_control_pgn");
            let tc = time_control_from_pgn(&field, t).map_err(|v| vec![v]);
            (field, Some(tc))
        }
        Some(Form::TimeControlPeriods(p)) => {
            let field = path(REGS, "time_control_periods");
            let tc = time_control_from_periods(&field, p);
            (field, Some(tc))
        }
    };
    match (text, form) {
        (None, None) => Err(vec![Violation::new(
            text_field,
            format!(
                "a time control is required (`time_control`, `time_control_human`, `time_control_pgn` or \
                 `time_control_periods`); {ACCEPTED_FORMS}"
            ),
        )]),
        (Some(text), None) => text.map_err(|v| vec![v]),
        (None, Some(form)) => form,
        (Some(text), Some(form)) => {
            let mut errors = Vec::new();
            let (text, form) = match (text, form) {
                (Ok(a), Ok(b)) => (a, b),
                (a, b) => {
                    errors.extend(a.err());
                    errors.extend(b.err().into_iter().flatten());
                    return Err(errors);
                }
            };
            if same_clocks(&text, &form) {
                Ok(form)
            } else {
                Err(vec![Violation::new(
                    text_field,
                    format!(
                        "`time_control` ({}) and `{}` ({}) are different controls; give the time control once",
                        text.to_human(),
                        form_field.trim_start_matches("regulations."),
                        form.to_human()
                    ),
                )])
            }
        }
    }
}

/// Whether two controls run the clocks alike (`60+0` and `60` do).
fn same_clocks(a: &TimeControl, b: &TimeControl) -> bool {
    let norm = |tc: &TimeControl, c: Color| -> Vec<Period> {
        tc.periods(c).iter().map(|p| Period { bonus: p.bonus.filter(|b| b.ms > 0), ..*p }).collect()
    };
    Color::ALL.iter().all(|&c| norm(a, c) == norm(b, c))
}

/// Converts the regulations of a `CreateGame` request into the domain's,
/// checking every field and then the combination
/// ([`Regulations::validate`]).
///
/// Defaults: mode unspecified is over the board; category unspecified is
/// computed from the time control; regime unspecified is reduced; a device
/// penalty of 0 is loss of the game; an empty start FEN is the standard
/// position. The service observes every act (`observe` is true) unless the
/// moves are entered after the fact (`entered_after_the_fact`, A.5.2).
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

    let time_control = match time_control_from_request(r) {
        Ok(tc) => Some(tc),
        Err(v) => {
            errors.extend(v);
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

    let sensed_touches = match pb::SensedTouches::try_from(r.sensed_touches) {
        Ok(pb::SensedTouches::Unspecified | pb::SensedTouches::Record) => SensedTouches::Record,
        Ok(pb::SensedTouches::Bind) => SensedTouches::Bind,
        Err(_) => {
            errors.push(unknown_enum(
                &path(REGS, "sensed_touches"),
                "sensed_touches",
                r.sensed_touches,
                "SENSED_TOUCHES_RECORD = 1 or SENSED_TOUCHES_BIND = 2",
            ));
            SensedTouches::Record
        }
    };
    let clock_authority = match pb::ClockAuthority::try_from(r.clock_authority) {
        Ok(pb::ClockAuthority::Unspecified | pb::ClockAuthority::Service) => ClockAuthority::Service,
        Ok(pb::ClockAuthority::Board) => ClockAuthority::Board,
        Err(_) => {
            errors.push(unknown_enum(
                &path(REGS, "clock_authority"),
                "clock_authority",
                r.clock_authority,
                "CLOCK_AUTHORITY_SERVICE = 1 or CLOCK_AUTHORITY_BOARD = 2",
            ));
            ClockAuthority::Service
        }
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
        observe: !r.entered_after_the_fact,
        automatic_draws: r.automatic_draws,
        cn_draw_alternation: r.cn_draw_alternation,
        max_lag_compensation_ms: r.max_lag_compensation_ms,
        reconnect_window_ms: r.reconnect_window_ms,
        // A new game is judged by the rulings of this build.
        rulings_revision: Regulations::CURRENT_RULINGS,
        sensed_touches,
        clock_authority,
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
        RegulationsError::NotObserved => "entered_after_the_fact",
        RegulationsError::StartPosition(_) => "start_fen",
        RegulationsError::SensedTouchesOnline => "sensed_touches",
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

/// Whether an answer carries the game's record: unspecified is the full
/// game (AIP-157).
///
/// # Errors
/// A violation of `field` for a number the API does not define.
pub fn with_record_from_proto(field: &str, value: i32) -> Result<bool, Violation> {
    match pb::GameView::try_from(value) {
        Ok(pb::GameView::Unspecified | pb::GameView::Full) => Ok(true),
        Ok(pb::GameView::Basic) => Ok(false),
        Err(_) => Err(unknown_enum(field, "game view", value, "GAME_VIEW_BASIC = 1 or GAME_VIEW_FULL = 2")),
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
        Ok(pb::GameStatus::Cancelled) => Ok(Some(GameStatus::Cancelled)),
        Ok(pb::GameStatus::Expired) => Ok(Some(GameStatus::Expired)),
        Err(_) => Err(unknown_enum(
            field,
            "game status",
            value,
            "GAME_STATUS_PENDING = 1, GAME_STATUS_IN_PROGRESS = 2, GAME_STATUS_FINISHED = 3, \
             GAME_STATUS_CANCELLED = 4 or GAME_STATUS_EXPIRED = 5",
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

/// Reads a move of a request, made by `mover`, as the player made it or
/// the scoresheet writes it, legal or not ([`read_move`]): UCI (`e2e4`,
/// `e7e8q`, `e1g1`, king takes rook `e1h1`), SAN (`Nf3`, `O-O`, `0-0-0`,
/// `exd6 e.p.`, `e8=Q+`, annotations ignored) or long algebraic (`Ng1-f3`,
/// `e7-e8`).
///
/// Over the board an illegal move is an act the Laws penalise (7.5), so it
/// must reach them: SAN that names no legal move is read into the movement
/// the mover's piece of that kind could make (an illegal castling is the
/// king towards its castling square, a pawn on the last rank without a
/// piece an unfinished promotion). `castle` is the request's castling
/// intent (Chess960, DEC-13) for UCI and long algebraic; SAN castling sets
/// it by itself.
///
/// # Errors
/// A violation of `field` for empty text, text in no notation, or text
/// that names no movement or several (the candidates are named).
pub fn parse_move(
    field: &str,
    text: &str,
    position: &Position,
    mover: Color,
    castle: bool,
) -> Result<MoveInput, Violation> {
    read_move(text, position, mover, castle).map_err(|e| {
        // Text shaped like UCI that is not UCI (`e2e9`, `e2e2`) was meant as
        // UCI whatever the SAN reader made of it; say what is wrong with it.
        let description = match &e {
            MoveTextError::Syntax { text } => uci_diagnosis(text).unwrap_or_else(|| e.to_string()),
            _ => e.to_string(),
        };
        Violation::new(field, description)
    })
}

/// A set-up error of a `ReportSetupError` request: the kind, and the colour
/// or square the kind needs (and no other).
///
/// # Errors
/// A violation of `kind` (unspecified or unknown), `color` or `square`.
pub fn setup_error_from_proto(kind: i32, color: i32, square: &str) -> Result<SetupError, Violation> {
    const EXPECTED: &str =
        "SETUP_ERROR_KIND_WRONG_INITIAL_POSITION = 1 to SETUP_ERROR_KIND_ROOK_MISPLACED = 5";
    let kind_value = kind;
    let kind = pb::SetupErrorKind::try_from(kind_value)
        .map_err(|_| unknown_enum("kind", "set-up error", kind_value, EXPECTED))?;
    let color = color_from_proto("color", color)?;
    let square_given = !square.trim().is_empty();
    let no_color = |e: SetupError| match color {
        Some(_) => Err(Violation::new("color", "only SETUP_ERROR_KIND_KING_MISPLACED takes a colour")),
        None => Ok(e),
    };
    let no_square = |e: SetupError| {
        if square_given {
            Err(Violation::new("square", "only SETUP_ERROR_KIND_ROOK_MISPLACED takes a square"))
        } else {
            Ok(e)
        }
    };
    match kind {
        pb::SetupErrorKind::Unspecified => Err(missing_enum("kind", "set-up error", EXPECTED)),
        pb::SetupErrorKind::WrongInitialPosition => no_square(no_color(SetupError::WrongInitialPosition)?),
        pb::SetupErrorKind::BoardWronglyOriented => no_square(no_color(SetupError::BoardWronglyOriented)?),
        pb::SetupErrorKind::ColoursReversed => no_square(no_color(SetupError::ColoursReversed)?),
        pb::SetupErrorKind::KingMisplaced => {
            let color = color.ok_or_else(|| {
                Violation::new("color", "SETUP_ERROR_KIND_KING_MISPLACED needs the colour of the king")
            })?;
            no_square(SetupError::KingMisplaced { color })
        }
        pb::SetupErrorKind::RookMisplaced => {
            if !square_given {
                return Err(Violation::new(
                    "square",
                    "SETUP_ERROR_KIND_ROOK_MISPLACED needs the rook's start square, e.g. `h1`",
                ));
            }
            no_color(SetupError::RookMisplaced { square: parse_square("square", square)? })
        }
    }
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

/// Longest accepted label (a player's name, an event, a round), in
/// characters.
pub const MAX_LABEL: usize = 200;

/// Checks a label shown to people (a player's name, the event, the round):
/// at most [`MAX_LABEL`] characters, and none of the characters that make a
/// text display other than it reads: controls (`Cc`), line and paragraph
/// separators, and the invisible format characters (`Cf`: bidirectional
/// overrides and isolates, zero-width characters, the word joiner, the byte
/// order mark, interlinear annotations, tags...). A right-to-left override
/// in a player's name would reverse what follows it on every pairing list,
/// scoresheet and PGN that shows it; a zero-width space would make two
/// names that look the same differ.
///
/// # Errors
/// A violation of `field` naming the first such character by its code point.
pub fn label(field: &str, text: &str) -> Result<(), Violation> {
    if text.chars().count() > MAX_LABEL {
        return Err(Violation::new(field, format!("at most {MAX_LABEL} characters")));
    }
    match text.chars().find(|&c| invisible(c)) {
        None => Ok(()),
        Some(c) => Err(Violation::new(
            field,
            format!(
                "U+{:04X} is not allowed: no control, separator, bidirectional or invisible format characters",
                u32::from(c)
            ),
        )),
    }
}

/// A control character, a line or paragraph separator, or a format
/// character (general category `Cf`, as of Unicode 15.1: the ranges are
/// listed here rather than taken from a crate, and new `Cf` characters are
/// rare and added to the standard in these same blocks).
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            u32::from(c),
            0x00AD                      // soft hyphen
            | 0x0600..=0x0605           // Arabic number signs
            | 0x061C                    // Arabic letter mark (bidi)
            | 0x06DD                    // Arabic end of ayah
            | 0x070F                    // Syriac abbreviation mark
            | 0x0890..=0x0891           // Arabic pound and piastre marks above
            | 0x08E2                    // Arabic disputed end of ayah
            | 0x180E                    // Mongolian vowel separator
            | 0x200B..=0x200F           // zero-width space, (non-)joiner, LRM, RLM
            | 0x2028..=0x2029           // line and paragraph separators (Zl, Zp)
            | 0x202A..=0x202E           // bidi embeddings and overrides
            | 0x2060..=0x2064           // word joiner, invisible operators
            | 0x2066..=0x206F           // bidi isolates, deprecated format characters
            | 0xFEFF                    // zero-width no-break space (byte order mark)
            | 0xFFF9..=0xFFFB           // interlinear annotation
            | 0x110BD | 0x110CD         // Kaithi number signs
            | 0x13430..=0x1343F         // Egyptian hieroglyph format controls
            | 0x1BCA0..=0x1BCA3         // shorthand format controls
            | 0x1D173..=0x1D17A         // musical symbol format controls
            | 0xE0001 | 0xE0020..=0xE007F // language tag, tag characters
        )
}
