//! Request plumbing shared by every feature: bundled UI, cached JSON, client IP, request ids,
//! security headers, CSRF, JSON extraction.

pub mod assets;
pub mod cached;
pub mod client_ip;
pub mod cookies;
pub mod csrf;
pub mod extract;
pub mod middleware;
pub mod spa;
