//! Text tables whose columns are as wide as their widest cell, so that a long flow or
//! link name pushes its column wider instead of shifting every cell after it.

/// How a column lines up its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers: padded on the left, so that digits line up.
    Right,
}

/// Rows of cells, rendered with each column as wide as its widest cell and one space
/// between columns.
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    aligns: Vec<Align>,
    rows: Vec<Row>,
}

#[derive(Debug, Clone)]
struct Row {
    cells: Vec<String>,
    /// Text after the last cell that does not count towards any column's width (such
    /// as `(10-20 s window)`), so that one remark does not widen a column of numbers.
    note: Option<String>,
}

impl Columns {
    /// A table with one column per entry of `aligns`; cells beyond them align left.
    pub(crate) fn new(aligns: &[Align]) -> Self {
        Self {
            aligns: aligns.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; it may have fewer cells than there are columns.
    pub(crate) fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(Row {
            cells: cells.into_iter().map(Into::into).collect(),
            note: None,
        });
    }

    /// Adds a row followed by `note`, which is not aligned with anything.
    pub(crate) fn row_with_note<S: Into<String>>(
        &mut self,
        cells: impl IntoIterator<Item = S>,
        note: &str,
    ) {
        self.row(cells);
        if let Some(last) = self.rows.last_mut() {
            last.note = Some(note.to_owned());
        }
    }

    /// The table, one line per row, without trailing spaces.
    pub(crate) fn render(&self) -> String {
        let mut widths: Vec<usize> = Vec::new();
        for row in &self.rows {
            for (i, cell) in row.cells.iter().enumerate() {
                // Characters, not bytes: a name such as "Göteborg" is one column wider
                // than its letters otherwise.
                let w = cell.chars().count();
                match widths.get_mut(i) {
                    Some(max) => *max = (*max).max(w),
                    None => widths.push(w),
                }
            }
        }
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::new();
            for (i, cell) in row.cells.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                let width = widths[i];
                match self.aligns.get(i).copied().unwrap_or(Align::Left) {
                    Align::Left => line.push_str(&format!("{cell:<width$}")),
                    Align::Right => line.push_str(&format!("{cell:>width$}")),
                }
            }
            if let Some(note) = &row.note {
                line.push(' ');
                line.push_str(note);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_widens_its_column_and_keeps_the_others_aligned() {
        let mut t = Columns::new(&[Align::Left, Align::Right, Align::Right]);
        t.row(["flow", "tput", "CE"]);
        t.row(["a", "9.81", "0.00"]);
        t.row(["a-very-long-flow-name-indeed", "12.50", "1.25"]);
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "flow                          tput   CE");
        assert_eq!(lines[1], "a                             9.81 0.00");
        assert_eq!(lines[2], "a-very-long-flow-name-indeed 12.50 1.25");
        // Every column ends at the same place on every line.
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
    }

    #[test]
    fn width_counts_characters_not_bytes() {
        let mut t = Columns::new(&[Align::Left, Align::Right]);
        t.row(["Göteborg", "1"]);
        t.row(["Oslo", "10"]);
        assert_eq!(t.render(), "Göteborg  1\nOslo     10\n");
    }

    #[test]
    fn short_rows_and_notes_do_not_widen_columns() {
        let mut t = Columns::new(&[Align::Left, Align::Right, Align::Right]);
        t.row(["flow0", "1.00", "2.00"]);
        t.row_with_note(["", "0.50"], "(10-20 s window)");
        t.row(["", "", ""]);
        assert_eq!(
            t.render(),
            "flow0 1.00 2.00\n      0.50 (10-20 s window)\n\n"
        );
    }
}
