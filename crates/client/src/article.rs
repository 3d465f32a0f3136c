//! Articles as a reader looks them up: the `article` of a ruling, an
//! obligation, an end, or a refusal, in the words of its rulebook.

use arbiter_proto::v1 as pb;

/// `Article 9.5.3`, `Article A.5.2`, `Guidelines III.4`, `OCR 5.4.1`: an
/// Article as printed, prefixed as its rulebook names its parts. `None`
/// when no Article is given (a plain arbiter action, or a judgement left to
/// the arbiter).
///
/// ```
/// use arbiter_client::{article_text, pb};
///
/// let a = pb::Article { number: "9.5.3".into(), rulebook: pb::Rulebook::LawsOfChess as i32 };
/// assert_eq!(article_text(Some(&a)).as_deref(), Some("Article 9.5.3"));
/// let ocr = pb::Article { number: "5.4.1".into(), rulebook: pb::Rulebook::OnlineChessRegulations as i32 };
/// assert_eq!(article_text(Some(&ocr)).as_deref(), Some("OCR 5.4.1"));
/// assert_eq!(article_text(None), None);
/// ```
pub fn article_text(article: Option<&pb::Article>) -> Option<String> {
    let a = article.filter(|a| !a.number.is_empty())?;
    let rulebook = pb::Rulebook::try_from(a.rulebook).unwrap_or(pb::Rulebook::Unspecified);
    Some(text(&a.number, rulebook))
}

/// [`article_text`] from the `article` and `rulebook` metadata of an
/// ErrorInfo (the rulebook by its enum value name).
pub(crate) fn article_text_from_metadata(number: &str, rulebook: &str) -> Option<String> {
    if number.is_empty() {
        return None;
    }
    Some(text(number, pb::Rulebook::from_str_name(rulebook).unwrap_or(pb::Rulebook::Unspecified)))
}

fn text(number: &str, rulebook: pb::Rulebook) -> String {
    match rulebook {
        pb::Rulebook::LawsOfChess if number.starts_with("II") => format!("Guidelines {number}"),
        pb::Rulebook::OnlineChessRegulations => format!("OCR {number}"),
        pb::Rulebook::ChineseRules => format!("Chinese rules, {number}"),
        pb::Rulebook::LawsOfChess | pb::Rulebook::Unspecified => format!("Article {number}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rulebook_has_its_prefix() {
        let a = |number: &str, rulebook: pb::Rulebook| {
            article_text(Some(&pb::Article { number: number.into(), rulebook: rulebook as i32 })).unwrap()
        };
        assert_eq!(a("7.5.3", pb::Rulebook::LawsOfChess), "Article 7.5.3");
        assert_eq!(a("A.5.2", pb::Rulebook::LawsOfChess), "Article A.5.2");
        assert_eq!(a("III.5", pb::Rulebook::LawsOfChess), "Guidelines III.5");
        assert_eq!(a("11.4.1", pb::Rulebook::OnlineChessRegulations), "OCR 11.4.1");
        assert_eq!(a("提议和棋", pb::Rulebook::ChineseRules), "Chinese rules, 提议和棋");
        assert_eq!(article_text(Some(&pb::Article::default())), None);
        assert_eq!(
            article_text_from_metadata("5.3", "RULEBOOK_ONLINE_CHESS_REGULATIONS").as_deref(),
            Some("OCR 5.3")
        );
        assert_eq!(article_text_from_metadata("", "RULEBOOK_LAWS_OF_CHESS"), None);
    }
}
