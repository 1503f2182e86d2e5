//! `scream study`: fixed studies that compare controllers cell by cell, each cell a
//! resumable run ([`crate::cells`]). Today one study: [`lte`].

pub mod lte;
