//! integrations: entry points that plug cmdguard into what people already run (CI code
//! scanning, agent hooks, interactive shells). They sit above the core and the config layer;
//! the core never imports them, and none of them decides safety itself: each hands commands to
//! an [`Analyzer`](crate::Analyzer) and reports what it says.

pub mod scan;
