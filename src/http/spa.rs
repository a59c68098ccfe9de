//! The app's routes (spec section 2). The server answers them with the app shell and 200; any
//! other page path gets the same shell with 404 and the app shows its not-found screen.
//! A route joins this list in the same change that adds its page to the UI router.

pub const ROUTES: &[&str] = &[
    "/",
    "/commands",
    "/guides",
    "/community",
    "/login",
    "/admin",
    "/admin-access",
    "/generate-key",
    "/api-docs",
    "/advertise",
];

pub fn is_known_route(path: &str) -> bool {
    ROUTES.contains(&path)
}

/// The route table's own `&'static str` for `path`, when it is one of the app's routes.
pub fn known_route(path: &str) -> Option<&'static str> {
    ROUTES.iter().copied().find(|r| *r == path)
}
