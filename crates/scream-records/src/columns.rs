//! Rows turned into columns, for readers that want a data frame rather than a file
//! (the Python package builds its pandas and polars frames from these).
//!
//! The columns come from the rows' own `Serialize` implementations, the ones that write
//! the CSV files, so the names, the order and the values (rounded to
//! [`crate::DECIMALS`] decimals like the CSV) cannot drift from the files: a frame built
//! from [`Columns::from_rows`] equals the CSV read back with an exact float parser.

use serde::Serialize;
use serde::ser::{self, Impossible};

/// One column's values, of the type its first non-empty cell had.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    /// Floats; an empty cell (`None`) is NaN, as a CSV reader gives it.
    F64(Vec<f64>),
    /// Unsigned integers that never were empty.
    U64(Vec<u64>),
    /// Signed integers that never were empty.
    I64(Vec<i64>),
    /// Booleans that never were empty.
    Bool(Vec<bool>),
    /// Text; an empty cell is `None`.
    Text(Vec<Option<String>>),
}

impl ColumnData {
    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::F64(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Text(v) => v.len(),
        }
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The CSV header of the column.
    pub name: String,
    /// Its cells, one per row.
    pub data: ColumnData,
}

/// Rows as columns, in the CSV's column order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    /// The columns, each with one cell per row.
    pub columns: Vec<Column>,
    /// Number of rows.
    pub rows: usize,
}

/// Why rows cannot become columns: a row type this module does not flatten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rows as columns: {0}")]
pub struct ColumnsError(String);

impl ser::Error for ColumnsError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ColumnsError(msg.to_string())
    }
}

/// One cell as a row serialised it.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Empty,
    F64(f64),
    U64(u64),
    I64(i64),
    Bool(bool),
    Text(String),
}

impl Columns {
    /// The columns of `rows`: flat structs whose fields are numbers, booleans, text or
    /// options of those (what the CSV writer accepts too).
    pub fn from_rows<T: Serialize>(rows: &[T]) -> Result<Columns, ColumnsError> {
        let mut names: Vec<&'static str> = Vec::new();
        let mut cells: Vec<Vec<Cell>> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let mut fields = RowFields::default();
            row.serialize(&mut fields)?;
            if i == 0 {
                names = fields.names;
                cells = names
                    .iter()
                    .map(|_| Vec::with_capacity(rows.len()))
                    .collect();
            } else if fields.names != names {
                return Err(ColumnsError(format!(
                    "row {i} has fields {:?}, the first row {names:?}",
                    fields.names
                )));
            }
            for (column, cell) in cells.iter_mut().zip(fields.cells) {
                column.push(cell);
            }
        }
        let columns = names
            .iter()
            .zip(cells)
            .map(|(name, cells)| {
                Ok(Column {
                    name: (*name).to_owned(),
                    data: typed(name, cells)?,
                })
            })
            .collect::<Result<_, ColumnsError>>()?;
        Ok(Columns {
            columns,
            rows: rows.len(),
        })
    }
}

/// The cells of one column as one type: the type of the first non-empty cell, integers
/// widened to floats when a cell is empty or a float (as a CSV reader would).
fn typed(name: &str, cells: Vec<Cell>) -> Result<ColumnData, ColumnsError> {
    let first = cells.iter().find(|c| **c != Cell::Empty).cloned();
    let has_empty = cells.contains(&Cell::Empty);
    let mismatch = |c: &Cell| ColumnsError(format!("column {name} mixes {first:?} and {c:?}"));
    let numeric = |c: &Cell| match c {
        Cell::Empty => Ok(f64::NAN),
        Cell::F64(v) => Ok(*v),
        // Precision lost only beyond 2^53, which no count or size reaches.
        #[expect(clippy::cast_precision_loss, reason = "counts stay below 2^53")]
        Cell::U64(v) => Ok(*v as f64),
        #[expect(clippy::cast_precision_loss, reason = "counts stay below 2^53")]
        Cell::I64(v) => Ok(*v as f64),
        other => Err(mismatch(other)),
    };
    let floats_anyway = cells.iter().any(|c| matches!(c, Cell::F64(_)));
    Ok(match first {
        None => ColumnData::F64(vec![f64::NAN; cells.len()]),
        Some(Cell::Text(_)) => ColumnData::Text(
            cells
                .into_iter()
                .map(|c| match c {
                    Cell::Text(s) => Ok(Some(s)),
                    Cell::Empty => Ok(None),
                    other => Err(mismatch(&other)),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(Cell::Bool(_)) if !has_empty => ColumnData::Bool(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Bool(b) => Ok(*b),
                    other => Err(mismatch(other)),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(Cell::U64(_)) if !has_empty && !floats_anyway => ColumnData::U64(
            cells
                .iter()
                .map(|c| match c {
                    Cell::U64(v) => Ok(*v),
                    other => Err(mismatch(other)),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(Cell::I64(_)) if !has_empty && !floats_anyway => ColumnData::I64(
            cells
                .iter()
                .map(|c| match c {
                    Cell::I64(v) => Ok(*v),
                    other => Err(mismatch(other)),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(Cell::Bool(_)) => return Err(mismatch(&Cell::Empty)),
        Some(_) => ColumnData::F64(cells.iter().map(numeric).collect::<Result<_, _>>()?),
    })
}

/// Collects one row's field names and cells.
#[derive(Debug, Default)]
struct RowFields {
    names: Vec<&'static str>,
    cells: Vec<Cell>,
}

impl ser::Serializer for &mut RowFields {
    type Ok = ();
    type Error = ColumnsError;
    type SerializeSeq = Impossible<(), ColumnsError>;
    type SerializeTuple = Impossible<(), ColumnsError>;
    type SerializeTupleStruct = Impossible<(), ColumnsError>;
    type SerializeTupleVariant = Impossible<(), ColumnsError>;
    type SerializeMap = Impossible<(), ColumnsError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), ColumnsError>;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self, ColumnsError> {
        self.names.reserve(len);
        self.cells.reserve(len);
        Ok(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), ColumnsError> {
        Err(not_a_row("a boolean"))
    }
    fn serialize_i8(self, _: i8) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_i16(self, _: i16) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_i32(self, _: i32) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_i64(self, _: i64) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_u8(self, _: u8) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_u16(self, _: u16) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_u32(self, _: u32) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_u64(self, _: u64) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_f32(self, _: f32) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_f64(self, _: f64) -> Result<(), ColumnsError> {
        Err(not_a_row("a number"))
    }
    fn serialize_char(self, _: char) -> Result<(), ColumnsError> {
        Err(not_a_row("a character"))
    }
    fn serialize_str(self, _: &str) -> Result<(), ColumnsError> {
        Err(not_a_row("text"))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), ColumnsError> {
        Err(not_a_row("bytes"))
    }
    fn serialize_none(self) -> Result<(), ColumnsError> {
        Err(not_a_row("an option"))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), ColumnsError> {
        Err(not_a_row("an option"))
    }
    fn serialize_unit(self) -> Result<(), ColumnsError> {
        Err(not_a_row("a unit"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), ColumnsError> {
        Err(not_a_row("a unit struct"))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), ColumnsError> {
        Err(not_a_row("an enum"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), ColumnsError> {
        Err(not_a_row("a newtype"))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), ColumnsError> {
        Err(not_a_row("an enum"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, ColumnsError> {
        Err(not_a_row("a sequence"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, ColumnsError> {
        Err(not_a_row("a tuple"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, ColumnsError> {
        Err(not_a_row("a tuple struct"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, ColumnsError> {
        Err(not_a_row("an enum"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, ColumnsError> {
        Err(not_a_row("a map"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, ColumnsError> {
        Err(not_a_row("an enum"))
    }
}

fn not_a_row(what: &str) -> ColumnsError {
    ColumnsError(format!("a row must be a struct, not {what}"))
}

impl ser::SerializeStruct for &mut RowFields {
    type Ok = ();
    type Error = ColumnsError;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ColumnsError> {
        let cell = value
            .serialize(CellSerializer)
            .map_err(|e| ColumnsError(format!("field {key}: {}", e.0)))?;
        self.names.push(key);
        self.cells.push(cell);
        Ok(())
    }

    fn end(self) -> Result<(), ColumnsError> {
        Ok(())
    }
}

/// Serialises one field into a [`Cell`].
struct CellSerializer;

impl ser::Serializer for CellSerializer {
    type Ok = Cell;
    type Error = ColumnsError;
    type SerializeSeq = Impossible<Cell, ColumnsError>;
    type SerializeTuple = Impossible<Cell, ColumnsError>;
    type SerializeTupleStruct = Impossible<Cell, ColumnsError>;
    type SerializeTupleVariant = Impossible<Cell, ColumnsError>;
    type SerializeMap = Impossible<Cell, ColumnsError>;
    type SerializeStruct = Impossible<Cell, ColumnsError>;
    type SerializeStructVariant = Impossible<Cell, ColumnsError>;

    fn serialize_bool(self, v: bool) -> Result<Cell, ColumnsError> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, ColumnsError> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, ColumnsError> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, ColumnsError> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, ColumnsError> {
        Ok(Cell::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, ColumnsError> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, ColumnsError> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, ColumnsError> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, ColumnsError> {
        Ok(Cell::U64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, ColumnsError> {
        Ok(Cell::F64(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, ColumnsError> {
        Ok(Cell::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, ColumnsError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, ColumnsError> {
        Ok(Cell::Text(v.to_owned()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, ColumnsError> {
        Err(not_a_cell("bytes"))
    }
    fn serialize_none(self) -> Result<Cell, ColumnsError> {
        Ok(Cell::Empty)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Cell, ColumnsError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, ColumnsError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, ColumnsError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, ColumnsError> {
        Ok(Cell::Text(variant.to_owned()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Cell, ColumnsError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, ColumnsError> {
        Err(not_a_cell("an enum with data"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, ColumnsError> {
        Err(not_a_cell("a sequence"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, ColumnsError> {
        Err(not_a_cell("a tuple"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, ColumnsError> {
        Err(not_a_cell("a tuple struct"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, ColumnsError> {
        Err(not_a_cell("an enum with data"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, ColumnsError> {
        Err(not_a_cell("a map"))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, ColumnsError> {
        Err(not_a_cell("a nested struct"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, ColumnsError> {
        Err(not_a_cell("an enum with data"))
    }
}

fn not_a_cell(what: &str) -> ColumnsError {
    ColumnsError(format!(
        "a cell must be a number, boolean or text, not {what}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        t_s: f64,
        name: &'static str,
        count: u64,
        maybe: Option<f64>,
        sometimes: Option<u64>,
        never: Option<f64>,
        on: bool,
    }

    fn rows() -> Vec<Row> {
        vec![
            Row {
                t_s: 0.5,
                name: "a",
                count: 3,
                maybe: None,
                sometimes: Some(7),
                never: None,
                on: true,
            },
            Row {
                t_s: 1.0,
                name: "b",
                count: 4,
                maybe: Some(2.5),
                sometimes: None,
                never: None,
                on: false,
            },
        ]
    }

    #[test]
    fn each_field_becomes_a_column_of_its_own_type_with_nan_for_empty() {
        let c = Columns::from_rows(&rows()).expect("flat rows");
        assert_eq!(c.rows, 2);
        let names: Vec<&str> = c.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["t_s", "name", "count", "maybe", "sometimes", "never", "on"]
        );
        assert_eq!(c.columns[0].data, ColumnData::F64(vec![0.5, 1.0]));
        assert_eq!(
            c.columns[1].data,
            ColumnData::Text(vec![Some("a".into()), Some("b".into())])
        );
        assert_eq!(c.columns[2].data, ColumnData::U64(vec![3, 4]));
        let ColumnData::F64(maybe) = &c.columns[3].data else {
            panic!("floats")
        };
        assert!(maybe[0].is_nan() && maybe[1] == 2.5);
        // An integer column with an empty cell widens to floats, as a CSV reader does.
        let ColumnData::F64(sometimes) = &c.columns[4].data else {
            panic!("floats")
        };
        assert!(sometimes[0] == 7.0 && sometimes[1].is_nan());
        let ColumnData::F64(never) = &c.columns[5].data else {
            panic!("floats")
        };
        assert!(never.iter().all(|v| v.is_nan()));
        assert_eq!(c.columns[6].data, ColumnData::Bool(vec![true, false]));
    }

    #[test]
    fn the_columns_of_a_time_series_are_its_csv_header() {
        let row = crate::Sample::empty(0.02, "f".into(), "s".into(), 0);
        let c = Columns::from_rows(std::slice::from_ref(&row)).expect("a sample is flat");
        let text = crate::csv_text(&[row]).expect("csv");
        let header = text.lines().next().expect("header");
        let names: Vec<&str> = c.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.join(","), header);
    }

    #[test]
    fn no_rows_give_no_columns_and_a_non_struct_row_is_refused() {
        let none: Vec<Row> = Vec::new();
        assert_eq!(
            Columns::from_rows(&none).expect("empty"),
            Columns::default()
        );
        let err = Columns::from_rows(&[1u32]).expect_err("not a struct");
        assert!(err.to_string().contains("must be a struct"), "{err}");
    }
}
