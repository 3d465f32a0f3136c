//! The event's regulations for one game: set when the game is created,
//! validated, immutable afterwards.

use crate::time_control::{Category, TimeControl};

/// How moves reach the service (CFG-MODE).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Over the board (e-board, digital clock or an operator console): the
    /// physical acts are reported; touch-move applies; illegal moves can be
    /// completed and are penalised.
    #[default]
    OverTheBoard,
    /// FIDE Online Chess Regulations: only legal moves are accepted, no
    /// touch-move, automatic draws at threefold and fifty moves, premoves.
    Online,
    /// Online rules played at a physical venue (OCR 18).
    Hybrid,
}

impl Mode {
    /// `true` when the Online Chess Regulations govern the act of moving.
    pub fn is_online(self) -> bool {
        matches!(self, Mode::Online | Mode::Hybrid)
    }
}

/// Supervision regime for rapid and blitz (CFG-REGIME).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Regime {
    /// A.4 / B.2: the full Competitive Rules.
    Full,
    /// A.5 / B.3: the reduced rules.
    #[default]
    Reduced,
}

/// Draw-offer restriction (CFG-DRAWRES, Law 9.1.1).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DrawOfferRestriction {
    #[default]
    None,
    /// No offer or agreement before this many moves by each player.
    BeforeMove(u32),
    /// Never without the arbiter's consent.
    WithoutArbiter,
}

/// Penalty when an electronic device is found (CFG-DEVICE, 11.3.2).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DevicePenalty {
    /// The player loses, the opponent wins (the default of the Laws).
    #[default]
    Loss,
    /// A lesser penalty announced in the regulations: time deducted.
    DeductTime(i64),
}

/// What a touch the board's sensors saw means (CFG-SENSED). Sensors
/// see a lift, not a hand's intent: FIDE's "deliberately" (4.3) and an
/// adjustment (4.2.1) are not observable, so by default a sensed touch is
/// evidence for the arbiter. Online and hybrid games ignore it whatever
/// this says: Article 4 does not apply there (OCR 1.3).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SensedTouches {
    /// Recorded for the arbiter with the obligation it would create; it
    /// binds the player only if the arbiter rules it a touch.
    #[default]
    Record,
    /// Over the board: ruled as the touch with intent it would be (4.2.2),
    /// so it creates the Article 4 obligation at once; an adjustment
    /// announced first (4.2.1, by a clock button or the arbiter) makes it
    /// an adjustment.
    Bind,
}

/// Whose clock times count when an e-board reports its clock (CFG-CLOCK,
/// OCR 2.4:
/// the regulations say in advance whether times come from the clocks
/// connected to the e-boards or from the playing zone).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ClockAuthority {
    /// The service's clocks; a board's clock that drifts is reported.
    #[default]
    Service,
    /// The board's clock: a reading beyond the tolerated drift sets the
    /// service's clocks to it.
    Board,
}

/// The regulations that govern one game.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Regulations {
    pub mode: Mode,
    pub time_control: TimeControl,
    /// Overrides the category computed from the time control (DEC-1).
    pub category: Option<Category>,
    pub regime: Regime,
    /// Overrides the penalty for 7.5.5 and 9.5.3 (default: 2 minutes in
    /// standard, 1 minute in rapid and blitz per A.3 and DEC-3).
    pub penalty_ms: Option<i64>,
    /// Default time after the actual start (6.7); `None` when arrival is not
    /// tracked by this service.
    pub default_time_ms: Option<i64>,
    pub draw_offers: DrawOfferRestriction,
    /// Guidelines III announced for the event (only without increment, never blitz).
    pub guidelines_iii: bool,
    pub device_penalty: DevicePenalty,
    /// Chess960 (Guidelines II): castling needs an explicit intent (DEC-13).
    pub chess960: bool,
    /// Starting position (FEN); the standard position if `None`.
    pub start_fen: Option<String>,
    /// Armageddon: a drawn game counts as a win for Black (ARM-1); never rated.
    pub armageddon: bool,
    /// CFG-OBSERVE: the service sees every act as it happens (default true).
    /// `false` (over the board only): moves are entered after the fact, e.g.
    /// by a scorer; a completed illegal move is not acted on unless the
    /// opponent claims it before his next move, and otherwise stands (A.5.2);
    /// an illegal position is then handled by A.5.4.
    pub observe: bool,
    /// OCR 5.4: automatic draw at threefold and fifty moves (default: on
    /// online, off over the board).
    pub automatic_draws: Option<bool>,
    /// CN-7: a player whose offer was declined may not offer again until he
    /// has declined one of the opponent's (off by default).
    pub cn_draw_alternation: bool,
    /// Online: at most this much lag compensation per move, equal for both
    /// players (DEC-5); 0 disables it.
    pub max_lag_compensation_ms: i64,
    /// Online: a disconnected player loses once disconnected this long
    /// (OCR 11.3/11.4.2); `None`: the clock keeps running and only the flag
    /// decides.
    pub reconnect_window_ms: Option<i64>,
    /// The revision of the service's rulings the game is judged by. A game
    /// keeps the revision it was created with, so its log always replays to
    /// the rulings it was given; games created by this build get
    /// [`Regulations::CURRENT_RULINGS`]. A state or stored specification
    /// without it was judged by the first revision.
    #[serde(default = "Regulations::first_rulings")]
    pub rulings_revision: u32,
    /// What a touch sensed by an e-board means (default: evidence recorded
    /// for the arbiter).
    #[serde(default)]
    pub sensed_touches: SensedTouches,
    /// Whose clock counts when an e-board reports its clock (OCR 2.4;
    /// default: the service's).
    #[serde(default)]
    pub clock_authority: ClockAuthority,
}

/// A combination of settings the Laws do not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegulationsError {
    #[error("Guidelines III apply only to games without increment or delay (III.2.2)")]
    GuidelinesIiiWithIncrement,
    #[error("Guidelines III never apply to blitz (III.2.2)")]
    GuidelinesIiiInBlitz,
    #[error("Guidelines III claims need an arbiter at the board; they do not apply online")]
    GuidelinesIiiOnline,
    #[error("the penalty must be between 1 second and 60 minutes, got {0} ms")]
    Penalty(i64),
    #[error("the default time must be between 0 and 24 hours, got {0} ms")]
    DefaultTime(i64),
    #[error("a draw-offer restriction before move {0} needs a move number of at least 1")]
    DrawRestriction(u32),
    #[error("the device penalty must deduct between 1 second and 60 minutes, got {0} ms")]
    DevicePenalty(i64),
    #[error("lag compensation must be between 0 and 5 seconds per move, got {0} ms")]
    LagCompensation(i64),
    #[error("the reconnect window must be between 1 second and 24 hours, got {0} ms")]
    ReconnectWindow(i64),
    /// `observe = false` online: the platform sees every move and accepts
    /// only legal ones (OCR 3.1.2), so no illegal move can stand unobserved.
    #[error(
        "observe = false (moves entered after the fact, A.5.2) applies over the board only: online the \
         platform sees every move and accepts only legal ones (OCR 3.1.2)"
    )]
    NotObserved,
    #[error("the start position is not valid: {0}")]
    StartPosition(String),
    /// Sensed touches bound as Article 4 touches in an online game.
    #[error(
        "sensed touches can bind only over the board: online and hybrid games have no touch-move (OCR 1.3)"
    )]
    SensedTouchesOnline,
    /// A revision of the rulings this build does not know.
    #[error("rulings revision {0} is unknown: this build knows revisions 1 to {max}", max = Regulations::CURRENT_RULINGS)]
    RulingsRevision(u32),
}

const MINUTE: i64 = 60_000;
const DAY: i64 = 24 * 60 * MINUTE;

impl Regulations {
    /// Regulations with every setting at its default, for `time_control`.
    pub fn new(time_control: TimeControl) -> Regulations {
        Regulations {
            mode: Mode::OverTheBoard,
            time_control,
            category: None,
            regime: Regime::Reduced,
            penalty_ms: None,
            default_time_ms: None,
            draw_offers: DrawOfferRestriction::None,
            guidelines_iii: false,
            device_penalty: DevicePenalty::Loss,
            chess960: false,
            start_fen: None,
            armageddon: false,
            observe: true,
            automatic_draws: None,
            cn_draw_alternation: false,
            max_lag_compensation_ms: 0,
            reconnect_window_ms: None,
            rulings_revision: Regulations::CURRENT_RULINGS,
            sensed_touches: SensedTouches::Record,
            clock_authority: ClockAuthority::Service,
        }
    }

    /// The first revision of the rulings (games recorded before the
    /// corrections of the 2026-12 audit).
    pub const FIRST_RULINGS: u32 = 1;

    /// The revision of the rulings this build gives new games. Revision 2
    /// corrects, after the 2026-12 audit: the clock's move counter follows
    /// the moves completed (6.2.1.2, 6.3.1, DEC-22) and is set when a
    /// position is reinstated (7.1); a postponed III.5 claim stays to be
    /// decided, also after a flag (III.5.2, DEC-23); a pawn left
    /// unreplaced or a two-handed move answered before the press is ruled
    /// (7.5.2, 4.1, DEC-24); an increment request is granted only once its
    /// draw offer was refused (III.4, DEC-25); a castling made with two hands
    /// is replaced by that castling (7.5.4 with 4.4.1 and 4.7.2, DEC-20);
    /// a question left to the arbiter cites the Article it asks about
    /// instead of DEC-12.
    pub const CURRENT_RULINGS: u32 = 2;

    fn first_rulings() -> u32 {
        Regulations::FIRST_RULINGS
    }

    /// Whether the game is judged by the corrections of revision 2 (see
    /// [`Regulations::CURRENT_RULINGS`]).
    pub fn audited_rulings(&self) -> bool {
        self.rulings_revision >= 2
    }

    /// The game's category: the override, or computed (CFG-CAT, DEC-1).
    pub fn category(&self) -> Category {
        self.category.unwrap_or_else(|| self.time_control.category())
    }

    /// The penalty for 7.5.5 and 9.5.3, in milliseconds.
    pub fn penalty(&self) -> i64 {
        self.penalty_ms.unwrap_or(match self.category() {
            Category::Standard => 2 * MINUTE,
            // A.3; blitz under B.2 too (DEC-3).
            Category::Rapid | Category::Blitz => MINUTE,
        })
    }

    /// Automatic draws at threefold and fifty moves (OCR 5.4).
    pub fn automatic_draws(&self) -> bool {
        self.automatic_draws.unwrap_or(self.mode.is_online())
    }

    /// Checks that the settings fit together.
    ///
    /// # Errors
    /// The first [`RegulationsError`] found.
    pub fn validate(&self) -> Result<(), RegulationsError> {
        if self.guidelines_iii {
            if self.time_control.has_increment_or_delay() {
                return Err(RegulationsError::GuidelinesIiiWithIncrement);
            }
            if self.category() == Category::Blitz {
                return Err(RegulationsError::GuidelinesIiiInBlitz);
            }
            if self.mode.is_online() {
                return Err(RegulationsError::GuidelinesIiiOnline);
            }
        }
        if let Some(p) = self.penalty_ms
            && !(1_000..=60 * MINUTE).contains(&p)
        {
            return Err(RegulationsError::Penalty(p));
        }
        if let Some(d) = self.default_time_ms
            && !(0..=DAY).contains(&d)
        {
            return Err(RegulationsError::DefaultTime(d));
        }
        if let DrawOfferRestriction::BeforeMove(0) = self.draw_offers {
            return Err(RegulationsError::DrawRestriction(0));
        }
        if let DevicePenalty::DeductTime(ms) = self.device_penalty
            && !(1_000..=60 * MINUTE).contains(&ms)
        {
            return Err(RegulationsError::DevicePenalty(ms));
        }
        if !(0..=5_000).contains(&self.max_lag_compensation_ms) {
            return Err(RegulationsError::LagCompensation(self.max_lag_compensation_ms));
        }
        if let Some(w) = self.reconnect_window_ms
            && !(1_000..=DAY).contains(&w)
        {
            return Err(RegulationsError::ReconnectWindow(w));
        }
        if !(Regulations::FIRST_RULINGS..=Regulations::CURRENT_RULINGS).contains(&self.rulings_revision) {
            return Err(RegulationsError::RulingsRevision(self.rulings_revision));
        }
        if !self.observe && self.mode.is_online() {
            // Online moves are judged as they are submitted: there is no
            // illegal move that could be left for the opponent to claim.
            return Err(RegulationsError::NotObserved);
        }
        if self.sensed_touches == SensedTouches::Bind && self.mode.is_online() {
            return Err(RegulationsError::SensedTouchesOnline);
        }
        if let Some(fen) = &self.start_fen {
            let options =
                arbiter_chess::FenOptions { chess960: self.chess960, ..arbiter_chess::FenOptions::STRICT };
            arbiter_chess::Position::from_fen_with(fen, options)
                .map_err(|e| RegulationsError::StartPosition(e.to_string()))?;
        }
        Ok(())
    }
}
