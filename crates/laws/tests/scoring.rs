//! Tests of `arbiter_laws::scoring`: Article 10 points and Armageddon, the
//! FIDE rating change (table 8.1.2, the 400-point rule and its amendments, K,
//! rounding) and the CN-16 grade points of acceptance scenario AS-84.
//!
//! Expected values are written out by hand from the regulations, never
//! computed with the code under test, so a wrong table row or formula fails.

use arbiter_chess::{Color, Outcome, Termination};
use arbiter_laws::scoring::{
    CalendarDate, EXPECTED_SCORE_TABLE, FideRatingRules, GameKind, GameResult, GradeOutcome, GradePoints,
    KFactor, NotRatedReason, PlayerRatingProfile, PointSystem, Points, Rating, RatingCategory, RatingDelta,
    Score, ScoreAdjustment, ScoreAdjustmentKind, ScoringError, cn16_grade_changes, cn16_transfer,
    expected_score, k_factor, points, rated_scores, rating_change,
};

// ---------------------------------------------------------------------------
// Article 10
// ---------------------------------------------------------------------------

fn fide(result: GameResult) -> (Points, Points) {
    points(result, &PointSystem::FIDE).unwrap()
}

#[test]
fn article_10_normal_results_score_one_half_zero() {
    assert_eq!(fide(GameResult::WhiteWins), (Points::ONE, Points::ZERO));
    assert_eq!(fide(GameResult::BlackWins), (Points::ZERO, Points::ONE));
    assert_eq!(fide(GameResult::Draw), (Points::HALF, Points::HALF));
    assert_eq!(Points::ONE.halves(), 2);
    assert_eq!(Points::HALF.halves(), 1);
}

#[test]
fn article_10_forfeits_score_as_win_and_loss_but_are_unplayed() {
    assert_eq!(fide(GameResult::WhiteWinsByForfeit), (Points::ONE, Points::ZERO));
    assert_eq!(fide(GameResult::BlackWinsByForfeit), (Points::ZERO, Points::ONE));
    assert_eq!(fide(GameResult::DoubleForfeit), (Points::ZERO, Points::ZERO));
    for unplayed in
        [GameResult::WhiteWinsByForfeit, GameResult::BlackWinsByForfeit, GameResult::DoubleForfeit]
    {
        assert!(!unplayed.is_played(), "{unplayed}");
    }
    for played in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::BothLose] {
        assert!(played.is_played(), "{played}");
    }
}

#[test]
fn article_11_8_both_lose_scores_zero_zero() {
    assert_eq!(fide(GameResult::BothLose), (Points::ZERO, Points::ZERO));
    assert_eq!(GameResult::BothLose.winner(), None);
    assert_eq!(GameResult::BothLose.notation(), "0-0");
}

#[test]
fn result_notation_and_winner() {
    let cases = [
        (GameResult::WhiteWins, "1-0", Some(Color::White)),
        (GameResult::BlackWins, "0-1", Some(Color::Black)),
        (GameResult::Draw, "½-½", None),
        (GameResult::WhiteWinsByForfeit, "+/-", Some(Color::White)),
        (GameResult::BlackWinsByForfeit, "-/+", Some(Color::Black)),
        (GameResult::DoubleForfeit, "-/-", None),
        (GameResult::Adjusted { white: Score::Draw, black: Score::Loss }, "½-0", None),
    ];
    for (result, notation, winner) in cases {
        assert_eq!(result.to_string(), notation);
        assert_eq!(result.winner(), winner, "{notation}");
    }
}

#[test]
fn outcome_of_a_finished_board_game_converts_to_a_result() {
    let mate = Outcome::Decisive { winner: Color::Black, termination: Termination::Checkmate };
    assert_eq!(GameResult::from(mate), GameResult::BlackWins);
    let stalemate = Outcome::Draw { termination: Termination::Stalemate };
    assert_eq!(GameResult::from(stalemate), GameResult::Draw);
}

#[test]
fn football_scoring_is_a_regulation_value() {
    let system = PointSystem::THREE_ONE_ZERO;
    assert_eq!(points(GameResult::WhiteWins, &system).unwrap(), (Points::whole(3), Points::ZERO));
    assert_eq!(points(GameResult::Draw, &system).unwrap(), (Points::whole(1), Points::whole(1)));
    assert_eq!(points(GameResult::BlackWinsByForfeit, &system).unwrap(), (Points::ZERO, Points::whole(3)));
    assert_eq!(system.game_maximum(), Points::whole(3));
    assert_eq!(PointSystem::FIDE.game_maximum(), Points::ONE);
    // The same system built from regulation values.
    let built = PointSystem::new(Points::whole(3), Points::whole(1), Points::ZERO).unwrap();
    assert_eq!(built, system);
}

#[test]
fn point_system_must_rank_win_draw_loss() {
    let err = PointSystem::new(Points::ONE, Points::whole(2), Points::ZERO).unwrap_err();
    assert!(matches!(err, ScoringError::InvalidPointSystem { .. }), "{err:?}");
    let err = PointSystem::new(Points::ONE, Points::ONE, Points::ONE).unwrap_err();
    assert!(matches!(err, ScoringError::InvalidPointSystem { .. }), "{err:?}");
    let err = PointSystem::new(Points::ZERO, Points::HALF, Points::ONE).unwrap_err();
    assert!(matches!(err, ScoringError::InvalidPointSystem { .. }), "{err:?}");
}

#[test]
fn article_10_adjusted_score_may_not_exceed_the_normal_maximum() {
    // 12.9.5: the offender's score reduced, ½–0 is allowed.
    let reduced = GameResult::Adjusted { white: Score::Draw, black: Score::Loss };
    assert_eq!(fide(reduced), (Points::HALF, Points::ZERO));
    // 1–½ totals 1½, more than the normal maximum of 1.
    let too_much = GameResult::Adjusted { white: Score::Win, black: Score::Draw };
    assert_eq!(
        points(too_much, &PointSystem::FIDE),
        Err(ScoringError::ExceedsGameMaximum {
            white: Points::ONE,
            black: Points::HALF,
            maximum: Points::ONE
        })
    );
    // Under 3-1-0 a win plus a draw totals 4 > 3, still refused.
    assert!(matches!(
        points(too_much, &PointSystem::THREE_ONE_ZERO),
        Err(ScoringError::ExceedsGameMaximum { .. })
    ));
    let both_win = GameResult::Adjusted { white: Score::Win, black: Score::Win };
    assert!(points(both_win, &PointSystem::FIDE).is_err());
}

#[test]
fn annulled_game_has_no_score_no_rating_and_pgn_star() {
    let annulled = GameResult::Annulled;
    assert_eq!(points(annulled, &PointSystem::FIDE), Err(ScoringError::Annulled));
    assert_eq!(points(annulled, &PointSystem::THREE_ONE_ZERO), Err(ScoringError::Annulled));
    assert_eq!(
        rated_scores(annulled, GameKind::Regular, true),
        Err(ScoringError::NotRated(NotRatedReason::Annulled))
    );
    assert!(annulled.is_annulled() && !annulled.is_played());
    assert_eq!(annulled.winner(), None);
    assert_eq!(annulled.notation(), "*");
    assert_eq!(annulled.pgn_result(), "*");
    assert_eq!(annulled.armageddon_match_result(), annulled);
    assert_eq!(
        annulled.with_adjustments(&[ScoreAdjustment {
            offender: Color::White,
            kind: ScoreAdjustmentKind::ReduceScore
        }]),
        annulled
    );
    assert!(!GameResult::Draw.is_annulled());
}

#[test]
fn pgn_result_strings() {
    let adjusted = |white, black| GameResult::Adjusted { white, black };
    let cases = [
        (GameResult::WhiteWins, "1-0"),
        (GameResult::BlackWins, "0-1"),
        (GameResult::Draw, "1/2-1/2"),
        (GameResult::WhiteWinsByForfeit, "1-0"),
        (GameResult::BlackWinsByForfeit, "0-1"),
        (GameResult::DoubleForfeit, "*"),
        (GameResult::BothLose, "*"),
        (GameResult::Annulled, "*"),
        (adjusted(Score::Win, Score::Loss), "1-0"),
        (adjusted(Score::Loss, Score::Win), "0-1"),
        (adjusted(Score::Draw, Score::Draw), "1/2-1/2"),
        (adjusted(Score::Draw, Score::Loss), "*"),
        (adjusted(Score::Loss, Score::Loss), "*"),
    ];
    for (result, pgn) in cases {
        assert_eq!(result.pgn_result(), pgn, "{result:?}");
    }
}

#[test]
fn article_12_9_4_and_12_9_5_adjustments_of_each_result() {
    use Score::{Draw as D, Loss as L, Win as W};
    let adj = |offender, kind| ScoreAdjustment { offender, kind };
    let reduce_w = adj(Color::White, ScoreAdjustmentKind::ReduceScore);
    let reduce_b = adj(Color::Black, ScoreAdjustmentKind::ReduceScore);
    let raise_w = adj(Color::White, ScoreAdjustmentKind::RaiseOpponentScore);
    let raise_b = adj(Color::Black, ScoreAdjustmentKind::RaiseOpponentScore);
    let a = |white, black| GameResult::Adjusted { white, black };
    // (board result, penalties, expected), written out by hand.
    let cases: &[(GameResult, &[ScoreAdjustment], GameResult)] = &[
        (GameResult::Draw, &[], GameResult::Draw),
        (GameResult::Draw, &[reduce_w], a(L, D)),
        (GameResult::Draw, &[reduce_b], a(D, L)),
        (GameResult::Draw, &[raise_w], a(L, W)),
        (GameResult::Draw, &[raise_b], a(W, L)),
        (GameResult::Draw, &[reduce_w, reduce_b], a(L, L)),
        (GameResult::Draw, &[raise_w, raise_b], a(L, L)),
        (GameResult::Draw, &[raise_w, reduce_b], a(L, L)),
        (GameResult::WhiteWins, &[reduce_w], a(L, L)),
        (GameResult::WhiteWins, &[raise_w], a(L, W)),
        // Nothing to change: the named result stays.
        (GameResult::WhiteWins, &[reduce_b], GameResult::WhiteWins),
        (GameResult::WhiteWins, &[raise_b], GameResult::WhiteWins),
        (GameResult::BlackWins, &[raise_w, raise_w], GameResult::BlackWins),
        (GameResult::BothLose, &[raise_b], a(W, L)),
        (a(D, L), &[reduce_w], a(L, L)),
        // Unplayed results have no score to adjust.
        (GameResult::WhiteWinsByForfeit, &[reduce_w], GameResult::WhiteWinsByForfeit),
        (GameResult::DoubleForfeit, &[raise_w], GameResult::DoubleForfeit),
    ];
    for (board, penalties, expected) in cases {
        let got = board.with_adjustments(penalties);
        assert_eq!(got, *expected, "{board:?} with {penalties:?}");
        // Law 10.1 holds for every adjusted result under both systems.
        assert!(points(got, &PointSystem::FIDE).is_ok(), "{got:?}");
        assert!(points(got, &PointSystem::THREE_ONE_ZERO).is_ok(), "{got:?}");
    }
}

#[test]
fn points_display_as_chess_scores() {
    assert_eq!(Points::HALF.to_string(), "½");
    assert_eq!(Points::from_halves(5).to_string(), "2½");
    assert_eq!(Points::whole(3).to_string(), "3");
    assert_eq!(Points::ZERO.to_string(), "0");
    assert_eq!(Points::from_halves(-1).to_string(), "-½");
    let total: Points = [Points::ONE, Points::HALF, Points::HALF].into_iter().sum();
    assert_eq!(total, Points::whole(2));
}

// ---------------------------------------------------------------------------
// Armageddon (ARM-1, ARM-2)
// ---------------------------------------------------------------------------

#[test]
fn arm_1_drawn_armageddon_is_a_match_win_for_black() {
    let match_result = GameResult::Draw.armageddon_match_result();
    assert_eq!(match_result, GameResult::BlackWins);
    assert_eq!(points(match_result, &PointSystem::FIDE).unwrap(), (Points::ZERO, Points::ONE));
    // Decisive games and forfeits are unchanged.
    assert_eq!(GameResult::WhiteWins.armageddon_match_result(), GameResult::WhiteWins);
    assert_eq!(GameResult::BlackWins.armageddon_match_result(), GameResult::BlackWins);
    assert_eq!(GameResult::WhiteWinsByForfeit.armageddon_match_result(), GameResult::WhiteWinsByForfeit);
    // An arbiter-set draw/draw is a draw as well.
    let adjusted_draw = GameResult::Adjusted { white: Score::Draw, black: Score::Draw };
    assert_eq!(adjusted_draw.armageddon_match_result(), GameResult::BlackWins);
}

#[test]
fn arm_1_armageddon_with_its_own_point_values() {
    // Regulations in the style of Norway Chess: the Armageddon winner gets
    // 1½, the loser 1.
    let system = PointSystem::new(Points::from_halves(3), Points::whole(1), Points::whole(1)).unwrap();
    let drawn = GameResult::Draw.armageddon_match_result();
    assert_eq!(points(drawn, &system).unwrap(), (Points::whole(1), Points::from_halves(3)));
}

#[test]
fn arm_2_armageddon_is_never_rated() {
    for result in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw] {
        assert_eq!(
            rated_scores(result, GameKind::Armageddon, true),
            Err(ScoringError::NotRated(NotRatedReason::Armageddon))
        );
    }
}

#[test]
fn rated_scores_follow_b02_5_1() {
    assert_eq!(rated_scores(GameResult::WhiteWins, GameKind::Regular, true), Ok((Score::Win, Score::Loss)));
    assert_eq!(rated_scores(GameResult::Draw, GameKind::Regular, true), Ok((Score::Draw, Score::Draw)));
    for forfeit in [GameResult::WhiteWinsByForfeit, GameResult::BlackWinsByForfeit, GameResult::DoubleForfeit]
    {
        assert_eq!(
            rated_scores(forfeit, GameKind::Regular, true),
            Err(ScoringError::NotRated(NotRatedReason::Unplayed))
        );
    }
    assert_eq!(
        rated_scores(GameResult::BlackWins, GameKind::Regular, false),
        Err(ScoringError::NotRated(NotRatedReason::NoMoveByBothPlayers))
    );
    // A played 0-0 is rated as a loss for both (module docs).
    assert_eq!(rated_scores(GameResult::BothLose, GameKind::Regular, true), Ok((Score::Loss, Score::Loss)));
    let reduced = GameResult::Adjusted { white: Score::Draw, black: Score::Loss };
    assert_eq!(rated_scores(reduced, GameKind::Regular, true), Ok((Score::Draw, Score::Loss)));
}

// ---------------------------------------------------------------------------
// Table 8.1.2
// ---------------------------------------------------------------------------

/// Table 8.1.2 as printed (D from, D to, PD of the higher-rated player), typed
/// in separately from the library's copy.
const TABLE: [(i32, i32, u8); 50] = [
    (0, 3, 50),
    (4, 10, 51),
    (11, 17, 52),
    (18, 25, 53),
    (26, 32, 54),
    (33, 39, 55),
    (40, 46, 56),
    (47, 53, 57),
    (54, 61, 58),
    (62, 68, 59),
    (69, 76, 60),
    (77, 83, 61),
    (84, 91, 62),
    (92, 98, 63),
    (99, 106, 64),
    (107, 113, 65),
    (114, 121, 66),
    (122, 129, 67),
    (130, 137, 68),
    (138, 145, 69),
    (146, 153, 70),
    (154, 162, 71),
    (163, 170, 72),
    (171, 179, 73),
    (180, 188, 74),
    (189, 197, 75),
    (198, 206, 76),
    (207, 215, 77),
    (216, 225, 78),
    (226, 235, 79),
    (236, 245, 80),
    (246, 256, 81),
    (257, 267, 82),
    (268, 278, 83),
    (279, 290, 84),
    (291, 302, 85),
    (303, 315, 86),
    (316, 328, 87),
    (329, 344, 88),
    (345, 357, 89),
    (358, 374, 90),
    (375, 391, 91),
    (392, 411, 92),
    (412, 432, 93),
    (433, 456, 94),
    (457, 484, 95),
    (485, 517, 96),
    (518, 559, 97),
    (560, 619, 98),
    (620, 735, 99),
];

#[test]
fn table_8_1_2_every_row_edge() {
    for (from, to, higher) in TABLE {
        for d in [from, to] {
            assert_eq!(expected_score(d).hundredths(), higher, "PD(H) at D = {d}");
            assert_eq!(expected_score(-d).hundredths(), 100 - higher, "PD(L) at D = {d}");
        }
    }
}

#[test]
fn table_8_1_2_beyond_735_is_certainty() {
    for d in [736, 800, 1500] {
        assert_eq!(expected_score(d).hundredths(), 100, "D = {d}");
        assert_eq!(expected_score(-d).hundredths(), 0, "D = -{d}");
    }
    assert_eq!(expected_score(736).to_string(), "1.0");
    assert_eq!(expected_score(100).to_string(), ".64");
    assert_eq!(expected_score(-400).to_string(), ".08");
}

#[test]
fn table_8_1_2_data_is_contiguous_and_increasing() {
    let mut previous_max = -1_i32;
    let mut previous_pd = 49_u8;
    for row in EXPECTED_SCORE_TABLE {
        assert!(i32::from(row.max_difference) > previous_max);
        assert_eq!(row.higher, previous_pd + 1, "one hundredth per row at {}", row.max_difference);
        previous_max = i32::from(row.max_difference);
        previous_pd = row.higher;
    }
    assert_eq!(previous_max, 735);
}

// ---------------------------------------------------------------------------
// The 400-point rule and its versions
// ---------------------------------------------------------------------------

fn date(y: u16, m: u8, d: u8) -> CalendarDate {
    CalendarDate::new(y, m, d).unwrap()
}

#[test]
fn rules_in_force_by_date_and_category() {
    use RatingCategory::{Blitz, Rapid, Standard};
    let rules = |category, d| FideRatingRules::in_force_on(category, d).unwrap();
    assert_eq!(rules(Standard, date(2024, 3, 1)), FideRatingRules::STANDARD_2024_03);
    assert_eq!(rules(Standard, date(2025, 9, 30)), FideRatingRules::STANDARD_2024_03);
    assert_eq!(rules(Standard, date(2025, 10, 1)), FideRatingRules::STANDARD_2025_10);
    assert_eq!(rules(Rapid, date(2024, 11, 30)), FideRatingRules::RAPID_BLITZ_2024_03);
    assert_eq!(rules(Blitz, date(2024, 12, 1)), FideRatingRules::RAPID_BLITZ_2024_12);
    // The rapid and blitz chapter never got the 2650 exemption.
    assert_eq!(rules(Rapid, date(2026, 1, 1)), FideRatingRules::RAPID_BLITZ_2024_12);
    assert_eq!(
        FideRatingRules::in_force_on(Standard, date(2024, 2, 29)),
        Err(ScoringError::RegulationsNotModelled(date(2024, 2, 29)))
    );
}

#[test]
fn calendar_dates_are_validated() {
    assert!(CalendarDate::new(2024, 2, 29).is_ok());
    assert!(matches!(CalendarDate::new(2025, 2, 29), Err(ScoringError::InvalidDate { .. })));
    assert!(matches!(CalendarDate::new(2025, 13, 1), Err(ScoringError::InvalidDate { .. })));
    assert!(matches!(CalendarDate::new(2025, 4, 31), Err(ScoringError::InvalidDate { .. })));
    assert_eq!(date(2025, 10, 1).to_string(), "2025-10-01");
}

#[test]
fn four_hundred_point_rule_caps_every_game_since_march_2024() {
    let rules = FideRatingRules::STANDARD_2024_03;
    let r = Rating::new;
    assert_eq!(rules.effective_difference(r(2000), r(1600)), 400);
    assert_eq!(rules.effective_difference(r(2000), r(1599)), 400);
    assert_eq!(rules.effective_difference(r(2400), r(1400)), 400);
    assert_eq!(rules.effective_difference(r(1400), r(2400)), -400);
    assert_eq!(rules.effective_difference(r(2000), r(1601)), 399);
    // No once-per-event limit: the same cap in every game of an event.
    let k = KFactor::TWENTY;
    let once = rating_change(r(2300), r(1500), Score::Win, k, &rules).unwrap();
    assert_eq!(once, RatingDelta::from_hundredths(160)); // (1 − .92) × 20
    let event: RatingDelta =
        (0..5).map(|_| rating_change(r(2300), r(1500), Score::Win, k, &rules).unwrap()).sum();
    assert_eq!(event, RatingDelta::from_hundredths(800));
    // An old 2700 player under the March 2024 text is capped too.
    assert_eq!(rules.effective_difference(r(2700), r(2200)), 400);
}

#[test]
fn since_october_2025_players_rated_2650_and_above_use_the_actual_difference() {
    let rules = FideRatingRules::STANDARD_2025_10;
    let r = Rating::new;
    assert_eq!(rules.effective_difference(r(2650), r(2200)), 450);
    assert_eq!(rules.effective_difference(r(2649), r(2200)), 400);
    // The exemption belongs to the player whose change is computed: the 2200
    // player in the same game is still capped.
    assert_eq!(rules.effective_difference(r(2200), r(2700)), -400);

    // 2700 beats 2200: D = 500 → PD .96, K 10 → +0.40; the 2200 player loses
    // with D capped at −400 → PD .08, K 20 → −1.60.
    let top = rating_change(r(2700), r(2200), Score::Win, KFactor::TEN, &rules).unwrap();
    assert_eq!(top, RatingDelta::from_hundredths(40));
    let other = rating_change(r(2200), r(2700), Score::Loss, KFactor::TWENTY, &rules).unwrap();
    assert_eq!(other, RatingDelta::from_hundredths(-160));

    // Beyond 735 the table gives 1.00: a win earns nothing, a draw costs 5.
    let win = rating_change(r(2900), r(2100), Score::Win, KFactor::TEN, &rules).unwrap();
    assert_eq!(win, RatingDelta::ZERO);
    let draw = rating_change(r(2900), r(2100), Score::Draw, KFactor::TEN, &rules).unwrap();
    assert_eq!(draw.rounded(), -5);
}

#[test]
fn rapid_and_blitz_gap_rule_since_december_2024() {
    let rules = FideRatingRules::RAPID_BLITZ_2024_12;
    let r = Rating::new;
    // 600 apart with a player above 2600: not rated, from either side.
    for (own, opp) in [(2601, 2001), (2001, 2601), (2800, 2100)] {
        assert_eq!(
            rating_change(r(own), r(opp), Score::Win, KFactor::TEN, &rules),
            Err(ScoringError::NotRated(NotRatedReason::RatingGap { difference: own.abs_diff(opp) })),
            "{own} v {opp}"
        );
    }
    // Exactly 2600 is not "above 2600"; 599 apart is not "600 or more".
    assert!(rules.check_rated(r(2600), r(2000)).is_ok());
    assert!(rules.check_rated(r(2601), r(2002)).is_ok());
    // Rated games keep the plain cap, without the 2650 exemption.
    assert_eq!(rules.effective_difference(r(2700), r(2200)), 400);
    let delta = rating_change(r(2700), r(2200), Score::Win, KFactor::TEN, &rules).unwrap();
    assert_eq!(delta, RatingDelta::from_hundredths(80)); // (1 − .92) × 10
    // Before December 2024 the same game was rated.
    assert!(FideRatingRules::RAPID_BLITZ_2024_03.check_rated(r(2601), r(2001)).is_ok());
}

// ---------------------------------------------------------------------------
// K factor (8.3.3)
// ---------------------------------------------------------------------------

fn profile(
    rating: u16,
    completed_games: u32,
    ever_2400: bool,
    birth_year: Option<u16>,
) -> PlayerRatingProfile {
    PlayerRatingProfile {
        rating: Rating::new(rating),
        completed_games,
        ever_published_2400: ever_2400,
        birth_year,
    }
}

#[test]
fn k_forty_for_new_players_until_thirty_games() {
    assert_eq!(k_factor(&profile(1800, 0, false, Some(1990)), 2026), KFactor::FORTY);
    assert_eq!(k_factor(&profile(1800, 29, false, Some(1990)), 2026), KFactor::FORTY);
    assert_eq!(k_factor(&profile(1800, 30, false, Some(1990)), 2026), KFactor::TWENTY);
}

#[test]
fn k_forty_for_juniors_under_2300_until_the_end_of_their_18th_year() {
    // Born 2008: turns 18 in 2026, so K = 40 through 2026, 20 from 2027.
    assert_eq!(k_factor(&profile(2100, 200, false, Some(2008)), 2026), KFactor::FORTY);
    assert_eq!(k_factor(&profile(2100, 200, false, Some(2008)), 2027), KFactor::TWENTY);
    assert_eq!(k_factor(&profile(2299, 200, false, Some(2010)), 2026), KFactor::FORTY);
    assert_eq!(k_factor(&profile(2300, 200, false, Some(2010)), 2026), KFactor::TWENTY);
    // Without a known birth year nobody is treated as a junior.
    assert_eq!(k_factor(&profile(2100, 200, false, None), 2026), KFactor::TWENTY);
}

#[test]
fn k_ten_once_a_published_rating_reached_2400() {
    assert_eq!(k_factor(&profile(2399, 500, false, Some(1980)), 2026), KFactor::TWENTY);
    assert_eq!(k_factor(&profile(2400, 500, false, Some(1980)), 2026), KFactor::TEN);
    // Stays 10 after dropping below 2400.
    assert_eq!(k_factor(&profile(2350, 500, true, Some(1980)), 2026), KFactor::TEN);
    // And takes precedence over the junior and new-player rules.
    assert_eq!(k_factor(&profile(2250, 500, true, Some(2009)), 2026), KFactor::TEN);
    assert_eq!(k_factor(&profile(2410, 20, false, Some(2009)), 2026), KFactor::TEN);
}

#[test]
fn k_times_games_may_not_exceed_700() {
    assert_eq!(KFactor::TWENTY.limited_for_games(35), KFactor::TWENTY);
    assert_eq!(KFactor::TWENTY.limited_for_games(36).get(), 19);
    assert_eq!(KFactor::TWENTY.limited_for_games(39).get(), 17);
    assert_eq!(KFactor::FORTY.limited_for_games(17), KFactor::FORTY);
    assert_eq!(KFactor::FORTY.limited_for_games(18).get(), 38);
    assert_eq!(KFactor::TEN.limited_for_games(70), KFactor::TEN);
    assert_eq!(KFactor::TEN.limited_for_games(71).get(), 9);
    assert_eq!(KFactor::TEN.limited_for_games(701).get(), 1);
    assert_eq!(KFactor::TEN.limited_for_games(0), KFactor::TEN);
}

#[test]
fn k_factor_values_are_checked() {
    assert_eq!(KFactor::new(17).unwrap().get(), 17);
    assert_eq!(KFactor::new(0), Err(ScoringError::InvalidKFactor(0)));
    assert_eq!(KFactor::new(41), Err(ScoringError::InvalidKFactor(41)));
}

// ---------------------------------------------------------------------------
// Rating change (8.3.2) and rounding (8.3.4)
// ---------------------------------------------------------------------------

#[test]
fn rating_change_between_equal_players() {
    let rules = FideRatingRules::STANDARD_2025_10;
    let r = Rating::new(1500);
    let change = |score| rating_change(r, r, score, KFactor::FORTY, &rules).unwrap();
    assert_eq!(change(Score::Win), RatingDelta::from_hundredths(2000));
    assert_eq!(change(Score::Draw), RatingDelta::ZERO);
    assert_eq!(change(Score::Loss), RatingDelta::from_hundredths(-2000));
}

#[test]
fn rating_change_at_a_hundred_points() {
    // D = 100 → PD .64 for the higher player, .36 for the lower one.
    let rules = FideRatingRules::STANDARD_2025_10;
    let (high, low) = (Rating::new(2000), Rating::new(1900));
    let k = KFactor::TWENTY;
    let hi = |score| rating_change(high, low, score, k, &rules).unwrap().hundredths();
    let lo = |score| rating_change(low, high, score, k, &rules).unwrap().hundredths();
    assert_eq!(hi(Score::Win), 720); // (1 − .64) × 20
    assert_eq!(hi(Score::Draw), -280); // (.5 − .64) × 20
    assert_eq!(hi(Score::Loss), -1280);
    assert_eq!(lo(Score::Win), 1280);
    assert_eq!(lo(Score::Draw), 280);
    assert_eq!(lo(Score::Loss), -720);
    assert_eq!(RatingDelta::from_hundredths(720).to_string(), "+7.20");
    assert_eq!(RatingDelta::from_hundredths(-280).to_string(), "-2.80");
}

#[test]
fn rounding_takes_half_away_from_zero() {
    // D = 110 → .65; K 10: the winner gains 3.5 → 4, the loser loses 3.5 → 4.
    let rules = FideRatingRules::STANDARD_2025_10;
    let (high, low) = (Rating::new(2210), Rating::new(2100));
    let gain = rating_change(high, low, Score::Win, KFactor::TEN, &rules).unwrap();
    let loss = rating_change(low, high, Score::Loss, KFactor::TEN, &rules).unwrap();
    assert_eq!((gain.hundredths(), gain.rounded()), (350, 4));
    assert_eq!((loss.hundredths(), loss.rounded()), (-350, -4));
    let rounded = |h| RatingDelta::from_hundredths(h).rounded();
    assert_eq!(rounded(250), 3);
    assert_eq!(rounded(-250), -3);
    assert_eq!(rounded(249), 2);
    assert_eq!(rounded(-249), -2);
    assert_eq!(rounded(-50), -1);
    assert_eq!(rounded(49), 0);
    assert_eq!(rounded(0), 0);
}

#[test]
fn a_period_is_rounded_once_not_per_game() {
    // 1900 draws twice with 1990 (D = −90 → PD .38): +2.40 each, K 20.
    let rules = FideRatingRules::STANDARD_2025_10;
    let game =
        rating_change(Rating::new(1900), Rating::new(1990), Score::Draw, KFactor::TWENTY, &rules).unwrap();
    assert_eq!(game.hundredths(), 240);
    let period = game + game;
    assert_eq!(period.rounded(), 5); // 4.80, whereas 2 + 2 would be 4
    assert_eq!((-period).rounded(), -5);
}

// ---------------------------------------------------------------------------
// CN-16 grade points: AS-84
// ---------------------------------------------------------------------------

fn gp(whole: i64) -> GradePoints {
    GradePoints::whole(whole).unwrap()
}

fn tenths(tenths: i64) -> GradePoints {
    GradePoints::from_tenths(tenths).unwrap()
}

fn changes(white: i64, black: i64, white_score: Score) -> (GradePoints, GradePoints) {
    cn16_grade_changes(gp(white), gp(black), (white_score, white_score.complement())).unwrap()
}

#[test]
fn as_84a_higher_beats_lower_at_d_50() {
    assert_eq!(changes(1500, 1450, Score::Win), (gp(6), gp(-6)));
    // The same game with colours swapped.
    assert_eq!(changes(1450, 1500, Score::Loss), (gp(-6), gp(6)));
}

#[test]
fn as_84b_lower_beats_higher_at_d_50() {
    assert_eq!(changes(1450, 1500, Score::Win), (gp(15), gp(-15)));
}

#[test]
fn as_84c_draw_at_d_50_is_zero_sum() {
    assert_eq!(changes(1450, 1500, Score::Draw), (tenths(75), tenths(-75)));
    assert_eq!(changes(1500, 1450, Score::Draw), (tenths(-75), tenths(75)));
}

#[test]
fn as_84d_d_150() {
    let d = gp(150);
    assert_eq!(cn16_transfer(d, GradeOutcome::HigherWins), Ok(gp(2)));
    assert_eq!(cn16_transfer(d, GradeOutcome::LowerWins), Ok(gp(75)));
    assert_eq!(cn16_transfer(d, GradeOutcome::Draw), Ok(tenths(375)));
    assert_eq!(changes(1650, 1500, Score::Draw), (tenths(-375), tenths(375)));
}

#[test]
fn as_84e_d_250() {
    let d = gp(250);
    assert_eq!(cn16_transfer(d, GradeOutcome::HigherWins), Ok(gp(0)));
    assert_eq!(cn16_transfer(d, GradeOutcome::LowerWins), Ok(gp(125)));
    assert_eq!(cn16_transfer(d, GradeOutcome::Draw), Ok(tenths(625)));
    assert_eq!(changes(1750, 1500, Score::Win), (gp(0), gp(0)));
}

#[test]
fn as_84f_d_5() {
    let d = gp(5);
    assert_eq!(cn16_transfer(d, GradeOutcome::HigherWins), Ok(gp(10)));
    assert_eq!(cn16_transfer(d, GradeOutcome::LowerWins), Ok(gp(10)));
    assert_eq!(cn16_transfer(d, GradeOutcome::Draw), Ok(gp(0)));
    assert_eq!(changes(1500, 1500, Score::Win), (gp(10), gp(-10)));
    assert_eq!(changes(1500, 1500, Score::Loss), (gp(-10), gp(10)));
}

#[test]
fn as_84g_d_10_is_in_the_middle_band() {
    let d = gp(10);
    assert_eq!(cn16_transfer(d, GradeOutcome::HigherWins), Ok(tenths(92)));
    assert_eq!(cn16_transfer(d, GradeOutcome::LowerWins), Ok(gp(11)));
    assert_eq!(cn16_transfer(d, GradeOutcome::Draw), Ok(tenths(55)));
}

#[test]
fn as_84h_discontinuity_at_d_100_is_documented() {
    assert_eq!(cn16_transfer(gp(99), GradeOutcome::LowerWins), Ok(tenths(199)));
    assert_eq!(cn16_transfer(gp(100), GradeOutcome::LowerWins), Ok(gp(50)));
    // The draw jumps too: 9.95 at D = 99, 25 at D = 100.
    assert_eq!(cn16_transfer(gp(99), GradeOutcome::Draw), Ok(GradePoints::from_hundredths(995).unwrap()));
    assert_eq!(cn16_transfer(gp(100), GradeOutcome::Draw), Ok(gp(25)));
}

#[test]
fn cn16_half_open_bands_with_fractional_differences() {
    // D = 99.5 lies in [10, 100): 10 + 9.95.
    let lower = cn16_transfer(tenths(995), GradeOutcome::LowerWins).unwrap();
    assert_eq!(lower, GradePoints::from_hundredths(1995).unwrap());
    // D = 9.99 is still below 10.
    let just_below = GradePoints::from_hundredths(999).unwrap();
    assert_eq!(cn16_transfer(just_below, GradeOutcome::HigherWins), Ok(gp(10)));
    assert_eq!(cn16_transfer(just_below, GradeOutcome::Draw), Ok(gp(0)));
    // D = 199.99 still gives the higher winner 2; 200 gives 0.
    let below_200 = GradePoints::from_hundredths(19_999).unwrap();
    assert_eq!(cn16_transfer(below_200, GradeOutcome::HigherWins), Ok(gp(2)));
    assert_eq!(cn16_transfer(gp(200), GradeOutcome::HigherWins), Ok(gp(0)));
    // D = 12.34 needs four decimals: 10 − 12.34/12.5 = 9.0128, exactly.
    let d = GradePoints::from_hundredths(1234).unwrap();
    let higher = cn16_transfer(d, GradeOutcome::HigherWins).unwrap();
    assert_eq!(higher, GradePoints::from_ten_thousandths(90_128));
    assert_eq!(higher.to_string(), "9.0128");
}

#[test]
fn cn16_rounds_half_away_from_zero_beyond_four_decimals() {
    let units = GradePoints::from_ten_thousandths;
    // 10 − 10.0001/12.5 = 9.199992 → 9.2.
    let d = units(100_001);
    assert_eq!(cn16_transfer(d, GradeOutcome::HigherWins), Ok(units(92_000)));
    // 10 + 10.0001/10 = 11.00001 → 11.
    assert_eq!(cn16_transfer(d, GradeOutcome::LowerWins), Ok(units(110_000)));
    // 10 + 10.0005/10 = 11.00005: the half goes away from zero, to 11.0001.
    assert_eq!(cn16_transfer(units(100_005), GradeOutcome::LowerWins), Ok(units(110_001)));
    // 5 + 10.0003/20 = 5.500015 → 5.5; 5 + 10.001/20 = 5.50005 → 5.5001.
    assert_eq!(cn16_transfer(units(100_003), GradeOutcome::Draw), Ok(units(55_000)));
    assert_eq!(cn16_transfer(units(100_010), GradeOutcome::Draw), Ok(units(55_001)));
    // 100.0001/4 = 25.000025 → 25; 100.0002/4 = 25.00005 → 25.0001.
    assert_eq!(cn16_transfer(units(1_000_001), GradeOutcome::Draw), Ok(units(250_000)));
    assert_eq!(cn16_transfer(units(1_000_002), GradeOutcome::Draw), Ok(units(250_001)));
    // 100.0001/2 = 50.00005 → 50.0001.
    assert_eq!(cn16_transfer(units(1_000_001), GradeOutcome::LowerWins), Ok(units(500_001)));
    // The rounded transfer stays zero-sum.
    let (white, black) =
        cn16_grade_changes(units(1_100_005), units(1_000_000), (Score::Loss, Score::Win)).unwrap();
    assert_eq!((white, black), (units(-110_001), units(110_001)));
    assert!(matches!(
        cn16_transfer(gp(-1), GradeOutcome::Draw),
        Err(ScoringError::NegativeGradeDifference(_))
    ));
}

#[test]
fn cn16_many_games_never_fail_and_stay_zero_sum() {
    // Fifty games between two players whose totals drift into fractions:
    // every change is defined, and the sum of both totals never moves.
    let (mut a, mut b) = (gp(1_000), gp(1_037));
    let total = a.checked_add(b).unwrap();
    for game in 0..50 {
        let scores = match game % 3 {
            0 => (Score::Win, Score::Loss),
            1 => (Score::Draw, Score::Draw),
            _ => (Score::Loss, Score::Win),
        };
        let (da, db) = cn16_grade_changes(a, b, scores).unwrap();
        assert_eq!(da.checked_add(db), Some(GradePoints::ZERO), "game {game}");
        a = a.checked_add(da).unwrap();
        b = b.checked_add(db).unwrap();
        assert_eq!(a.checked_add(b), Some(total));
    }
}

#[test]
fn cn16_needs_a_zero_sum_result() {
    let err = cn16_grade_changes(gp(1500), gp(1450), (Score::Draw, Score::Loss)).unwrap_err();
    assert_eq!(err, ScoringError::NotZeroSum { white: Score::Draw, black: Score::Loss });
    assert!(cn16_grade_changes(gp(1500), gp(1450), (Score::Loss, Score::Loss)).is_err());
}

#[test]
fn grade_points_display_the_shortest_exact_decimal() {
    assert_eq!(tenths(75).to_string(), "7.5");
    assert_eq!(gp(-6).to_string(), "-6");
    assert_eq!(tenths(-375).to_string(), "-37.5");
    assert_eq!(GradePoints::from_hundredths(995).unwrap().to_string(), "9.95");
    assert_eq!(GradePoints::from_ten_thousandths(5).to_string(), "0.0005");
    assert_eq!(GradePoints::ZERO.to_string(), "0");
}
