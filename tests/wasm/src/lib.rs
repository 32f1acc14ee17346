//! Empty: the tests are in `tests/` (see Cargo.toml).
