//! Dataset tools: canonical form (minlex), isomorph transforms, difficulty rating, and the table
//! of classes that `dedupe` keeps.

pub mod canon;
pub mod dedupe;
pub mod rate;
pub mod symmetry;
