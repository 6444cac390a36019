//! The version this build is; where its release lives is the core's `identity`.

/// This build's version; the release tag is `v` and this.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The base address of this release's header pictures.
pub fn pictures() -> String {
    sluiceway_core::identity::pictures(VERSION)
}
