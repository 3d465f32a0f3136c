//! Rule ids: the Article (or documented decision) a ruling, a rejection,
//! an obligation or an end rests on, as one closed set the compiler checks.
//!
//! Every id has exactly one text form (`FIDE-7.5.5`, `OCR-5.4.1`, `CN-7`,
//! `DEC-12`, `ARB` for a plain arbiter action with no Article), written by
//! [`RuleId::as_str`], read back by [`str::parse`], and used as its serde
//! form, so a stored ruling reads back as the id it was written with and an
//! unknown id is an error, never a silent default. The one table below is
//! the only place an id is spelled out.

use std::fmt;
use std::str::FromStr;

/// A text that names no known rule id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule id {0:?}")]
pub struct UnknownRuleId(pub String);

/// Declares [`RuleId`] and its text forms from one table of
/// `Variant => "text"` rows. A text given twice makes a match arm of
/// `from_str` unreachable, which the build refuses (`-D warnings`); a test
/// checks every row round-trips.
macro_rules! rule_ids {
    ($($variant:ident => $text:literal,)*) => {
        /// A rule id; see the [module docs](self).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RuleId {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
        }

        impl RuleId {
            /// Every rule id, in the order of the table.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant,)*];

            /// The text form, e.g. `FIDE-7.5.5`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $text,)*
                }
            }
        }

        impl FromStr for RuleId {
            type Err = UnknownRuleId;

            fn from_str(text: &str) -> Result<RuleId, UnknownRuleId> {
                match text {
                    $($text => Ok(RuleId::$variant),)*
                    _ => Err(UnknownRuleId(text.to_owned())),
                }
            }
        }
    };
}

rule_ids! {
    Cn7 => "CN-7",
    Dec11 => "DEC-11",
    Dec12 => "DEC-12",
    Fide1_3 => "FIDE-1.3",
    Fide3_7 => "FIDE-3.7",
    Fide4 => "FIDE-4",
    Fide4_2a => "FIDE-4.2a",
    Fide4_2b => "FIDE-4.2b",
    Fide4_3a => "FIDE-4.3a",
    Fide4_3b => "FIDE-4.3b",
    Fide4_3c => "FIDE-4.3c",
    Fide4_4a => "FIDE-4.4a",
    Fide4_4b => "FIDE-4.4b",
    Fide4_4c => "FIDE-4.4c",
    Fide4_7 => "FIDE-4.7",
    Fide5_1_1 => "FIDE-5.1.1",
    Fide5_1_2 => "FIDE-5.1.2",
    Fide5_2_1 => "FIDE-5.2.1",
    Fide5_2_2 => "FIDE-5.2.2",
    Fide5_2_3 => "FIDE-5.2.3",
    Fide6 => "FIDE-6",
    Fide6_10 => "FIDE-6.10",
    Fide6_11 => "FIDE-6.11",
    Fide6_2a => "FIDE-6.2a",
    Fide6_2c => "FIDE-6.2c",
    Fide6_6 => "FIDE-6.6",
    Fide6_7a => "FIDE-6.7a",
    Fide6_9 => "FIDE-6.9",
    Fide7_1 => "FIDE-7.1",
    Fide7_2a => "FIDE-7.2a",
    Fide7_2b => "FIDE-7.2b",
    Fide7_3 => "FIDE-7.3",
    Fide7_5_1 => "FIDE-7.5.1",
    Fide7_5_2 => "FIDE-7.5.2",
    Fide7_5_3 => "FIDE-7.5.3",
    Fide7_5_4 => "FIDE-7.5.4",
    Fide7_5_5 => "FIDE-7.5.5",
    Fide8_7 => "FIDE-8.7",
    Fide9_1_1 => "FIDE-9.1.1",
    Fide9_1_2a => "FIDE-9.1.2a",
    Fide9_1_2b => "FIDE-9.1.2b",
    Fide9_2 => "FIDE-9.2",
    Fide9_3 => "FIDE-9.3",
    Fide9_5c => "FIDE-9.5c",
    Fide9_6_1 => "FIDE-9.6.1",
    Fide9_6_2 => "FIDE-9.6.2",
    Fide11_3b => "FIDE-11.3b",
    Fide12_9 => "FIDE-12.9",
    Fide12_9_4 => "FIDE-12.9.4",
    Fide12_9_5 => "FIDE-12.9.5",
    FideA5_1 => "FIDE-A.5.1",
    FideA5_2 => "FIDE-A.5.2",
    FideA5_4 => "FIDE-A.5.4",
    FideIII4 => "FIDE-III.4",
    FideIII5 => "FIDE-III.5",
    Ocr1_3 => "OCR-1.3",
    Ocr2_4 => "OCR-2.4",
    Ocr3_1 => "OCR-3.1",
    Ocr3_1_2 => "OCR-3.1.2",
    Ocr3_1_5 => "OCR-3.1.5",
    Ocr4_3 => "OCR-4.3",
    Ocr4_4 => "OCR-4.4",
    Ocr5_3 => "OCR-5.3",
    Ocr5_4_1 => "OCR-5.4.1",
    Ocr5_4_2 => "OCR-5.4.2",
    Ocr5_4_3 => "OCR-5.4.3",
    Ocr5_4_4 => "OCR-5.4.4",
    Ocr11 => "OCR-11",
    Ocr11_4 => "OCR-11.4",
    Ocr11_4_1 => "OCR-11.4.1",
    Ocr11_4_2 => "OCR-11.4.2",
    Ocr15_2 => "OCR-15.2",
    Ocr15_3 => "OCR-15.3",
    Ocr15_4 => "OCR-15.4",
    Arb => "ARB",
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Written as its text form (the form stored before ids were typed).
impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Read from its text form; an unknown id is an error.
impl<'de> serde::Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RuleId, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = RuleId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a rule id such as \"FIDE-7.5.5\"")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<RuleId, E> {
                text.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_reads_back_from_its_text() {
        for &id in RuleId::ALL {
            assert_eq!(id.as_str().parse::<RuleId>(), Ok(id));
            assert_eq!(id.to_string(), id.as_str());
        }
        let mut texts: Vec<&str> = RuleId::ALL.iter().map(|id| id.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), RuleId::ALL.len(), "two ids share a text");
    }

    #[test]
    fn an_unknown_text_is_refused() {
        assert_eq!("FIDE-99.9".parse::<RuleId>(), Err(UnknownRuleId("FIDE-99.9".into())));
        assert!("fide-4.3a".parse::<RuleId>().is_err(), "ids are case-sensitive");
        assert!("".parse::<RuleId>().is_err());
    }

    #[test]
    fn the_serde_form_is_the_text() {
        for &id in RuleId::ALL {
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{}\"", id.as_str()));
            assert_eq!(serde_json::from_str::<RuleId>(&json).unwrap(), id);
            let some = serde_json::to_string(&Some(id)).unwrap();
            assert_eq!(some, json, "an optional id is written as the id");
            assert_eq!(serde_json::from_str::<Option<RuleId>>(&some).unwrap(), Some(id));
        }
        assert_eq!(serde_json::from_str::<Option<RuleId>>("null").unwrap(), None);
        let err = serde_json::from_str::<RuleId>("\"FIDE-99.9\"").unwrap_err();
        assert!(err.to_string().contains("unknown rule id \"FIDE-99.9\""), "{err}");
        assert!(serde_json::from_str::<RuleId>("7").is_err());
    }
}
