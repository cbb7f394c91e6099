//! Cloud block volumes: the providers' published models as data (`catalog`), a configured
//! volume's caps, burst and price (`model`), the cheapest product for a target (`cheapest`),
//! measured vs advertised (`check`), a burst found in a series (`step`; `experiment`'s infer
//! probes with it), and a volume's caps emulated on a local device (`emulate`, with
//! `bucket` as its credit model).

pub mod bucket;
pub mod catalog;
pub mod cheapest;
pub mod check;
pub mod emulate;
pub mod instance;
pub mod measured;
pub mod model;
pub mod step;
pub mod writeback;

pub use catalog::{Catalog, Product};
pub use model::{model, Model, Params};
