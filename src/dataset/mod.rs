//! Dataset tools: canonical form (minlex), isomorph transforms, difficulty rating, and the
//! filter that `dedupe` applies.

pub(crate) mod canon;
pub(crate) mod dedupe;
pub(crate) mod rate;
pub(crate) mod symmetry;
