//! Finding many tokens in many texts fast: the declared-token pass of the app asks it
//! of every line of a compaction's region. Pure: the caller reads the texts.

mod anchors;
mod sampled_windows;

pub use anchors::{rare_pieces, SAMPLE_BYTES};
pub use sampled_windows::SampledWindows;
