//! Every `DEC-n`, `CFG-x` and `AS-nn` id cited in the sources (`*.rs`,
//! `*.proto`, `*.md` under `crates/`, `proto/` and `tests/`) has an entry in
//! `docs/rules.md`, so a reader of the code can look every one of them up in
//! the repository.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The ids cited in `text`: a prefix not preceded by a letter or digit, then
/// digits (`DEC-`, `AS-`) or capitals (`CFG-`).
fn cited(text: &str, ids: &mut BTreeSet<String>) {
    let bytes = text.as_bytes();
    for prefix in ["DEC-", "AS-", "CFG-"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(prefix).map(|i| i + from) {
            from = at + prefix.len();
            if at > 0 && bytes[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            let tail = &text[from..];
            let len = if prefix == "CFG-" {
                tail.find(|c: char| !c.is_ascii_uppercase()).unwrap_or(tail.len())
            } else {
                tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len())
            };
            if len > 0 {
                ids.insert(format!("{prefix}{}", &tail[..len]));
            }
        }
    }
}

fn walk(dir: &Path, ids: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | "corpus" | "artifacts" | "coverage") {
                walk(&path, ids);
            }
        } else if path.extension().is_some_and(|x| x == "rs" || x == "proto" || x == "md") {
            cited(&std::fs::read_to_string(&path).unwrap_or_default(), ids);
        }
    }
}

#[test]
fn every_cited_id_is_explained_in_docs_rules() {
    let mut ids = BTreeSet::new();
    for dir in ["crates", "proto", "tests"] {
        walk(&root().join(dir), &mut ids);
    }
    assert!(ids.contains("DEC-4") && ids.contains("CFG-MODE") && ids.contains("AS-04"), "{ids:?}");
    let doc = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    let explained: BTreeSet<&str> =
        doc.lines().filter_map(|l| l.strip_prefix("| ")?.split(" |").next()).collect();
    let missing: Vec<&String> = ids.iter().filter(|id| !explained.contains(id.as_str())).collect();
    assert!(missing.is_empty(), "ids cited in the sources but not explained in docs/rules.md: {missing:?}");
}

/// The table "Articles as printed" in `docs/rules.md` lists every rule id
/// with the Article `RuleId::article` gives it, and nothing else.
#[test]
fn every_rule_id_is_listed_with_its_article_in_docs_rules() {
    use arbiter_laws::rule::RuleId;
    let doc = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    let section = doc.split("## Articles as printed").nth(1).expect("the section Articles as printed");
    let section = section.split("\n## ").next().unwrap();
    let mut listed = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let id: RuleId = cells[0].trim_matches('`').parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let expected = id.article().map_or("—".to_string(), |a| a.number().to_string());
        assert_eq!(cells[1], expected, "{id}: the table says {}, the code {expected}", cells[1]);
        let shown = id.article().map_or("—".to_string(), |a| a.to_string());
        assert_eq!(cells[3], shown, "{id}: shown as");
        assert!(listed.insert(id), "{id} is listed twice");
    }
    let missing: Vec<RuleId> = RuleId::ALL.iter().copied().filter(|id| !listed.contains(id)).collect();
    assert!(missing.is_empty(), "rule ids missing from the table: {missing:?}");
}
