//! The app's routes. The server answers them with the app shell and 200; any
//! other page path gets the same shell with 404 and the app shows its not-found screen.
//!
//! Adding a route = one line here (in the same change that adds its page to the UI router) and
//! one `[[pages]]` entry in `data/site.toml` with its title and description: the server refuses
//! to start while a route has no texts, and the sitemap, the shell's head and the end-to-end
//! accessibility suite pick the route up from there.

pub struct Route {
    pub path: &'static str,
    /// The page's module in `ui/src/pages/` (without `.tsx`): the shell preloads its chunk.
    pub page: &'static str,
    /// The API paths the page fetches first: the shell preloads them.
    pub first_calls: &'static [&'static str],
}

const fn route(path: &'static str, page: &'static str, first_calls: &'static [&'static str]) -> Route {
    Route { path, page, first_calls }
}

pub const ROUTES: &[Route] = &[
    route("/", "Home", &["/api/stats"]),
    route("/commands", "Commands", &["/api/commands"]),
    route("/guides", "Guides", &["/api/guides"]),
    route("/community", "Community", &["/api/stats"]),
    route("/login", "Login", &[]),
    route("/account", "Account", &[]),
    route("/admin", "Admin", &[]),
    route("/admin-access", "AdminAccess", &[]),
    route("/generate-key", "GenerateKey", &[]),
    route("/api-docs", "ApiDocs", &[]),
    route("/advertise", "Advertise", &["/api/stats"]),
    route("/badge-monitor", "BadgeMonitor", &["/api/badge-monitor"]),
    route("/newgen-detector", "NewgenDetector", &[]),
    route("/discord-bot-api", "DiscordBotApi", &[]),
    route("/discord-news", "DiscordNews", &[]),
];

pub fn find(path: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.path == path)
}

/// The route table's own `&'static str` for `path`, when it is one of the app's routes.
pub fn known_route(path: &str) -> Option<&'static str> {
    find(path).map(|r| r.path)
}
