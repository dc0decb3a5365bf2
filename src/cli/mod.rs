//! The command-line front end: flags ([`args`]), what a person sees on stderr ([`console`]),
//! `bench`'s tables and plot ([`bench_report`]), signal handling ([`signals`]) and the long
//! version text ([`version`]). It does no search work itself.

pub mod args;
pub mod bench_report;
pub mod console;
pub mod signals;
pub mod version;
