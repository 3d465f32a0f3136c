//! Tables for people: columns aligned by their width on the terminal, so
//! that names in CJK characters (two columns each) line up with the rest.

use unicode_width::UnicodeWidthStr as _;

/// Rows under a header, printed as columns two spaces apart.
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        Table { header: header.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// Adds a row (missing cells are empty, extra ones dropped).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The width of each column: its widest cell, header included.
    pub fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.width()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.width());
            }
        }
        widths
    }

    /// The header and the rows, one line each.
    pub fn render(&self) -> String {
        let widths = self.widths();
        let mut text = line(&self.header, &widths);
        for row in &self.rows {
            text.push_str(&line(row, &widths));
        }
        text
    }
}

/// One row with each cell padded to its column's width (a wider cell
/// pushes the rest right), without trailing spaces, ending in a newline.
pub fn line(cells: &[String], widths: &[usize]) -> String {
    let mut text = String::new();
    for (i, &w) in widths.iter().enumerate() {
        let cell = cells.get(i).map_or("", String::as_str);
        if i > 0 {
            text.push_str("  ");
        }
        text.push_str(cell);
        text.push_str(&" ".repeat(w.saturating_sub(cell.width())));
    }
    let mut text = text.trim_end().to_owned();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_columns() {
        let mut t = Table::new(["WHITE", "BLACK"]);
        t.row(vec!["王皓".into(), "Ding Liren".into()]);
        t.row(vec!["Carlsen".into(), "丁立人".into()]);
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        // 王皓 is four columns wide: padded like the seven of "Carlsen".
        assert_eq!(lines[0], "WHITE    BLACK");
        assert_eq!(lines[1], "王皓     Ding Liren");
        assert_eq!(lines[2], "Carlsen  丁立人");
        // Every second column starts at the same terminal column.
        let start = |l: &str, cell: &str| l[..l.find(cell).unwrap()].width();
        assert_eq!(start(lines[1], "Ding"), start(lines[2], "丁"));
        assert_eq!(start(lines[0], "BLACK"), start(lines[2], "丁"));
    }

    #[test]
    fn short_rows_and_no_trailing_spaces() {
        let mut t = Table::new(["A", "B", "C"]);
        t.row(vec!["x".into()]);
        assert_eq!(t.render(), "A  B  C\nx\n");
    }
}
