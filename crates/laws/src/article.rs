//! Articles as printed: the number a reader looks up in the rulebook a
//! ruling rests on.
//!
//! A [`RuleId`] is the project's own, finer name for a rule (`FIDE-9.5c` is
//! the third record the catalogue keeps for Article 9.5), stable because it
//! is stored with every ruling. A user who looks up what the service shows
//! must find it in the Laws, so every id also names the [`Article`] it
//! rests on, numbered exactly as the rulebook prints it: `9.5.3`, `7.5.3`,
//! `A.5.2`, `III.4` in the FIDE Laws of Chess in force from 1 January 2023,
//! `5.4.1` in the FIDE Online Chess Regulations. The mapping is one `match`
//! with no default arm, so a new rule id does not build until it names its
//! Article (or says why it has none).
//!
//! ```
//! use arbiter_laws::article::{Article, Rulebook};
//! use arbiter_laws::rule::RuleId;
//!
//! let article = RuleId::Fide9_5c.article().unwrap();
//! assert_eq!(article.number(), "9.5.3");
//! assert_eq!(article.rulebook(), Rulebook::LawsOfChess);
//! assert_eq!(article.to_string(), "Article 9.5.3");
//! assert_eq!(RuleId::Ocr5_4_1.article().unwrap().to_string(), "OCR 5.4.1");
//! assert_eq!(RuleId::FideIII4.article().unwrap().to_string(), "Guidelines III.4");
//! assert_eq!(RuleId::Arb.article(), None);
//! ```

use std::fmt;

use crate::rule::RuleId;

/// The rulebook an [`Article`] is numbered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rulebook {
    /// The FIDE Laws of Chess in force from 1 January 2023, with their
    /// Appendices (A rapid, B blitz) and Guidelines (II Chess960, III games
    /// without increment).
    LawsOfChess,
    /// The FIDE Online Chess Regulations.
    OnlineChessRegulations,
    /// The Chinese rule documents the project supports as options (the
    /// seeds); they number no articles, so a rule is named by its heading.
    ChineseRules,
}

impl Rulebook {
    /// Every rulebook.
    pub const ALL: [Rulebook; 3] =
        [Rulebook::LawsOfChess, Rulebook::OnlineChessRegulations, Rulebook::ChineseRules];

    /// The rulebook's name, as a reader would look it up.
    pub const fn title(self) -> &'static str {
        match self {
            Rulebook::LawsOfChess => "FIDE Laws of Chess (2023)",
            Rulebook::OnlineChessRegulations => "FIDE Online Chess Regulations",
            Rulebook::ChineseRules => "Chinese rules (seed documents)",
        }
    }
}

/// An Article as printed in its rulebook: `9.5.3` of the Laws, `A.5.2` of
/// their Appendix A, `III.4` of their Guidelines III, `5.4.1` of the Online
/// Chess Regulations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Article {
    rulebook: Rulebook,
    number: &'static str,
}

impl Article {
    const fn laws(number: &'static str) -> Article {
        Article { rulebook: Rulebook::LawsOfChess, number }
    }

    const fn ocr(number: &'static str) -> Article {
        Article { rulebook: Rulebook::OnlineChessRegulations, number }
    }

    /// The rulebook the Article is numbered in.
    pub const fn rulebook(self) -> Rulebook {
        self.rulebook
    }

    /// The number exactly as printed: `9.5.3`, `A.5.2`, `III.4`, `5.4.1`
    /// (for the Chinese rules, the heading of the rule).
    pub const fn number(self) -> &'static str {
        self.number
    }
}

/// `Article 9.5.3`, `Article A.5.2`, `Guidelines III.4`, `OCR 5.4.1`: the
/// form the CLI, PGN comments and docs show.
impl fmt::Display for Article {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rulebook {
            Rulebook::LawsOfChess if self.number.starts_with("II") => write!(f, "Guidelines {}", self.number),
            Rulebook::LawsOfChess => write!(f, "Article {}", self.number),
            Rulebook::OnlineChessRegulations => write!(f, "OCR {}", self.number),
            Rulebook::ChineseRules => write!(f, "Chinese rules, {}", self.number),
        }
    }
}

impl RuleId {
    /// The Article this rule id rests on, the most specific one the Laws
    /// print; `None` only for [`RuleId::Arb`] (a plain arbiter action, no
    /// Article) and [`RuleId::Dec12`] (a judgement left to the arbiter,
    /// which rests on several Articles; see `docs/rules.md`).
    pub const fn article(self) -> Option<Article> {
        use RuleId::*;
        let laws = Article::laws;
        let ocr = Article::ocr;
        Some(match self {
            // CN-7 is the seed's section on draw offers (seed 002).
            Cn7 => Article { rulebook: Rulebook::ChineseRules, number: "提议和棋" },
            // A clock pressed by mistake by the victim of an illegal move:
            // the question 7.5.3 leaves to the arbiter.
            Dec11 => laws("7.5.3"),
            Dec12 | Arb => return None,
            Fide1_3 => laws("1.3"),
            // The promotion choice: a queen, rook, bishop or knight.
            Fide3_7 => laws("3.7.3.2"),
            Fide4 => laws("4"),
            Fide4_2a => laws("4.2.1"),
            Fide4_2b => laws("4.2.2"),
            Fide4_3a => laws("4.3.1"),
            Fide4_3b => laws("4.3.2"),
            Fide4_3c => laws("4.3.3"),
            Fide4_4a => laws("4.4.1"),
            Fide4_4b => laws("4.4.2"),
            Fide4_4c => laws("4.4.3"),
            Fide4_7 => laws("4.7"),
            Fide5_1_1 => laws("5.1.1"),
            Fide5_1_2 => laws("5.1.2"),
            Fide5_2_1 => laws("5.2.1"),
            Fide5_2_2 => laws("5.2.2"),
            Fide5_2_3 => laws("5.2.3"),
            Fide6 => laws("6"),
            Fide6_10 => laws("6.10"),
            Fide6_11 => laws("6.11"),
            Fide6_2a => laws("6.2.1"),
            Fide6_2c => laws("6.2.3"),
            Fide6_6 => laws("6.6"),
            Fide6_7a => laws("6.7.1"),
            Fide6_9 => laws("6.9"),
            Fide7_1 => laws("7.1"),
            Fide7_2a => laws("7.2.1"),
            Fide7_2b => laws("7.2.2"),
            Fide7_3 => laws("7.3"),
            Fide7_5_1 => laws("7.5.1"),
            Fide7_5_2 => laws("7.5.2"),
            Fide7_5_3 => laws("7.5.3"),
            Fide7_5_4 => laws("7.5.4"),
            Fide7_5_5 => laws("7.5.5"),
            Fide8_7 => laws("8.7"),
            Fide9_1_1 => laws("9.1.1"),
            Fide9_1_2a | Fide9_1_2b => laws("9.1.2.1"),
            Fide9_2 => laws("9.2"),
            Fide9_3 => laws("9.3"),
            Fide9_5c => laws("9.5.3"),
            Fide9_6_1 => laws("9.6.1"),
            Fide9_6_2 => laws("9.6.2"),
            Fide11_3b => laws("11.3.2"),
            Fide12_9 => laws("12.9"),
            Fide12_9_4 => laws("12.9.4"),
            Fide12_9_5 => laws("12.9.5"),
            FideA5_1 => laws("A.5.1"),
            FideA5_2 => laws("A.5.2"),
            FideA5_4 => laws("A.5.4"),
            FideIII4 => laws("III.4"),
            FideIII5 => laws("III.5"),
            Ocr1_3 => ocr("1.3"),
            Ocr2_4 => ocr("2.4"),
            Ocr3_1 => ocr("3.1"),
            Ocr3_1_2 => ocr("3.1.2"),
            Ocr3_1_5 => ocr("3.1.5"),
            Ocr4_3 => ocr("4.3"),
            Ocr4_4 => ocr("4.4"),
            Ocr5_3 => ocr("5.3"),
            Ocr5_4_1 => ocr("5.4.1"),
            Ocr5_4_2 => ocr("5.4.2"),
            Ocr5_4_3 => ocr("5.4.3"),
            Ocr5_4_4 => ocr("5.4.4"),
            Ocr11 => ocr("11"),
            Ocr11_4 => ocr("11.4"),
            Ocr11_4_1 => ocr("11.4.1"),
            Ocr11_4_2 => ocr("11.4.2"),
            Ocr15_2 => ocr("15.2"),
            Ocr15_3 => ocr("15.3"),
            Ocr15_4 => ocr("15.4"),
        })
    }
}

/// A rule id as a reader is shown it: the Article first, then the id
/// (`Article 9.5.3 (FIDE-9.5c)`), or the id alone where it names no Article.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Citation(pub RuleId);

impl fmt::Display for Citation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.article() {
            Some(article) => write!(f, "{article} ({})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number as printed: digits separated by dots, optionally after an
    /// appendix letter (`A.`, `B.`) or a guideline numeral (`II.`, `III.`).
    fn printed(number: &str) -> bool {
        let rest = ["III.", "II.", "A.", "B."].iter().find_map(|p| number.strip_prefix(p)).unwrap_or(number);
        !rest.is_empty() && rest.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }

    #[test]
    fn every_fide_and_ocr_id_names_a_printed_article_of_its_own_rulebook() {
        for &id in RuleId::ALL {
            let text = id.as_str();
            let Some(article) = id.article() else {
                assert!(matches!(id, RuleId::Arb | RuleId::Dec12), "{text} names no Article");
                continue;
            };
            let expected = if text.starts_with("OCR-") {
                Rulebook::OnlineChessRegulations
            } else if text.starts_with("CN-") {
                Rulebook::ChineseRules
            } else {
                Rulebook::LawsOfChess
            };
            assert_eq!(article.rulebook(), expected, "{text}");
            if expected != Rulebook::ChineseRules {
                assert!(printed(article.number()), "{text}: {:?} is not a printed number", article.number());
            }
        }
    }

    /// The id's own number is the Article's, or a coarser form of it: the
    /// letter the catalogue adds (`4.3a`) splits one Article into records,
    /// and the Article must lie under what the id names.
    #[test]
    fn the_article_lies_under_the_number_in_the_id() {
        for &id in RuleId::ALL {
            let text = id.as_str();
            let Some(number) = text.strip_prefix("FIDE-").or_else(|| text.strip_prefix("OCR-")) else {
                continue;
            };
            let stem = number.trim_end_matches(|c: char| c.is_ascii_lowercase());
            let article = id.article().unwrap().number();
            assert!(
                article == stem || article.starts_with(&format!("{stem}.")),
                "{text}: Article {article} does not lie under {stem}"
            );
        }
    }

    #[test]
    fn the_most_specific_articles_of_article_7_are_distinct() {
        let numbers: Vec<&str> = [RuleId::Fide7_5_1, RuleId::Fide7_5_2, RuleId::Fide7_5_3, RuleId::Fide7_5_4]
            .iter()
            .map(|id| id.article().unwrap().number())
            .collect();
        assert_eq!(numbers, ["7.5.1", "7.5.2", "7.5.3", "7.5.4"]);
    }

    #[test]
    fn a_citation_shows_the_article_then_the_id() {
        assert_eq!(Citation(RuleId::Fide9_5c).to_string(), "Article 9.5.3 (FIDE-9.5c)");
        assert_eq!(Citation(RuleId::Ocr5_3).to_string(), "OCR 5.3 (OCR-5.3)");
        assert_eq!(Citation(RuleId::Dec12).to_string(), "DEC-12");
    }

    #[test]
    fn articles_display_as_a_reader_looks_them_up() {
        assert_eq!(RuleId::Fide4_3a.article().unwrap().to_string(), "Article 4.3.1");
        assert_eq!(RuleId::FideA5_2.article().unwrap().to_string(), "Article A.5.2");
        assert_eq!(RuleId::FideIII5.article().unwrap().to_string(), "Guidelines III.5");
        assert_eq!(RuleId::Ocr11_4_1.article().unwrap().to_string(), "OCR 11.4.1");
        assert_eq!(RuleId::Cn7.article().unwrap().to_string(), "Chinese rules, 提议和棋");
    }
}
