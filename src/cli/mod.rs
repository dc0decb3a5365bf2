//! The command-line front end: flags ([`args`]), what a person sees on stderr ([`console`]),
//! and `bench`'s tables and plot ([`bench_report`]). It does no search work itself.

pub mod args;
pub mod bench_report;
pub mod console;
