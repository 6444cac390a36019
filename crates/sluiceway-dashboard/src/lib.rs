//! The dashboard issue body: rendered from a view of the scan, read back from its markers,
//! and kept under GitHub's limits. Pure: no I/O, the clock is handed in.

pub mod body;
pub mod comment;
pub mod escape;
pub mod facts;
pub mod header;
pub mod in_sync_list;
pub mod marker;
pub mod outside;
pub mod page;
pub mod pictures;
pub mod preview_page;
pub mod preview_reader;
pub mod reader;
mod rows;
pub mod shipped;
pub mod summary;
pub mod updates;
pub mod view;
