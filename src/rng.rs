//! SplitMix64 (Steele, Lea and Flood): the one small generator behind every seeded choice in the
//! crate (generation, random isomorphs, ratings). Fixed forever here, so that seeds give the same
//! results in every version.

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The generator's finaliser: spreads nearby inputs over the whole range.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 stream whose state is the wrapped value.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix64(self.0)
    }
}
