//! The model explored when no MODEL is given: two dining philosophers
//! (`beem/examples/phils2.dve`, compiled into the binary).

pub const EMBEDDED_NAME: &str = "phils2.dve";
pub const EMBEDDED_SOURCE: &str = include_str!("../../../../beem/examples/phils2.dve");
