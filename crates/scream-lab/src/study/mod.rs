//! `scream study`: fixed studies that compare controllers cell by cell (each cell a
//! resumable run that leaves its result in [`crate::CELL_JSON`]). Today one study: [`lte`].

pub mod lte;
