//! The per-route part of the shell's `<head>`: title, description, canonical URL, link-card
//! tags (Open Graph, Twitter), robots, preload hints and the site settings as a JSON data
//! block. Every value is escaped here, whatever its source.

use std::fmt::Write;

/// What one variant of the shell says about its page.
pub struct Head<'a> {
    pub document_title: &'a str,
    /// The page title without the site name (link cards show the site name beside it).
    pub card_title: &'a str,
    pub description: &'a str,
    pub site_name: &'a str,
    /// Absolute URL of the page; `None` for the not-found page or an unknown origin.
    pub canonical: Option<&'a str>,
    /// Absolute URL of the link-card image.
    pub image: Option<&'a str>,
    pub image_alt: &'a str,
    pub index: bool,
    /// Same-origin paths of scripts to `modulepreload`.
    pub module_preloads: &'a [String],
    /// Same-origin API paths to preload (fetched by the app with credentials).
    pub fetch_preloads: &'a [&'a str],
    /// The body of `GET /api/site`.
    pub site_json: &'a [u8],
}

/// The id of the JSON data block the app seeds its query cache from.
pub const SITE_DATA_ID: &str = "fanhub-site";

/// Social images are rendered at this size (the size link cards expect).
pub const IMAGE_WIDTH: u32 = 1200;
pub const IMAGE_HEIGHT: u32 = 630;

pub fn render(h: &Head) -> String {
    let mut out = String::with_capacity(2048 + h.site_json.len());
    let _ = writeln!(out, "<title>{}</title>", attr(h.document_title));
    meta_name(&mut out, "description", h.description);
    if !h.index {
        meta_name(&mut out, "robots", "noindex");
    }
    if let Some(url) = h.canonical {
        let _ = writeln!(out, "<link rel=\"canonical\" href=\"{}\" />", attr(url));
    }
    meta_property(&mut out, "og:type", "website");
    meta_property(&mut out, "og:site_name", h.site_name);
    meta_property(&mut out, "og:title", h.card_title);
    meta_property(&mut out, "og:description", h.description);
    if let Some(url) = h.canonical {
        meta_property(&mut out, "og:url", url);
    }
    meta_name(&mut out, "twitter:title", h.card_title);
    meta_name(&mut out, "twitter:description", h.description);
    if let Some(image) = h.image {
        meta_property(&mut out, "og:image", image);
        meta_property(&mut out, "og:image:width", &IMAGE_WIDTH.to_string());
        meta_property(&mut out, "og:image:height", &IMAGE_HEIGHT.to_string());
        meta_property(&mut out, "og:image:alt", h.image_alt);
        meta_name(&mut out, "twitter:card", "summary_large_image");
        meta_name(&mut out, "twitter:image", image);
        meta_name(&mut out, "twitter:image:alt", h.image_alt);
    } else {
        meta_name(&mut out, "twitter:card", "summary");
    }
    for path in h.module_preloads {
        let _ = writeln!(out, "<link rel=\"modulepreload\" crossorigin href=\"{}\" />", attr(path));
    }
    for path in h.fetch_preloads {
        let _ = writeln!(
            out,
            "<link rel=\"preload\" as=\"fetch\" crossorigin=\"use-credentials\" href=\"{}\" />",
            attr(path)
        );
    }
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"{SITE_DATA_ID}\">{}</script>",
        json_in_script(h.site_json)
    );
    out
}

fn meta_name(out: &mut String, name: &str, content: &str) {
    let _ = writeln!(out, "<meta name=\"{}\" content=\"{}\" />", attr(name), attr(content));
}

fn meta_property(out: &mut String, property: &str, content: &str) {
    let _ = writeln!(out, "<meta property=\"{}\" content=\"{}\" />", attr(property), attr(content));
}

/// Escapes text for element content, a quoted attribute value or XML text.
pub fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside `<script>`: no `<`, `>` or `&` can end the element or open a comment,
/// and the two line separators JavaScript once treated as newlines are escaped too. JSON
/// itself only has these characters inside strings, where `\uXXXX` means the same.
pub fn json_in_script(json: &[u8]) -> String {
    let s = String::from_utf8_lossy(json);
    let mut out = String::with_capacity(s.len() + 64);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head<'a>(site_json: &'a [u8], canonical: Option<&'a str>, index: bool) -> Head<'a> {
        Head {
            document_title: "Commands & more | \"Hub\" <b>",
            card_title: "Commands & more",
            description: "All the <commands> you 'need'",
            site_name: "Hub",
            canonical,
            image: Some("https://fans.example.org/social-card.png?v=1"),
            image_alt: "Hub",
            index,
            module_preloads: &[],
            fetch_preloads: &["/api/commands"],
            site_json,
        }
    }

    #[test]
    fn escapes_every_text_and_url() {
        let html = render(&head(b"{}", Some("https://x.org/a\"><script>alert(1)</script>"), true));
        assert!(html.contains("<title>Commands &amp; more | &quot;Hub&quot; &lt;b&gt;</title>"), "{html}");
        assert!(html.contains("content=\"All the &lt;commands&gt; you &#39;need&#39;\""), "{html}");
        assert!(html.contains("href=\"https://x.org/a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""), "{html}");
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("noindex"));
        assert!(html.contains("<meta property=\"og:url\" content=\"https://x.org/a&quot;"));
        assert!(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\" />"));
        assert!(
            html.contains(
                "<link rel=\"preload\" as=\"fetch\" crossorigin=\"use-credentials\" href=\"/api/commands\" />"
            )
        );
    }

    #[test]
    fn noindex_pages_and_pages_without_an_origin() {
        let html = render(&head(b"{}", None, false));
        assert!(html.contains("<meta name=\"robots\" content=\"noindex\" />"));
        assert!(!html.contains("canonical") && !html.contains("og:url"));
    }

    #[test]
    fn json_block_cannot_close_the_script_or_open_a_comment() {
        let json =
            serde_json::to_vec(&serde_json::json!({"a": "</script><script>alert(1)</script><!-- & \u{2028}"})).unwrap();
        let html = render(&head(&json, None, true));
        let start = html.find(&format!("id=\"{SITE_DATA_ID}\">")).unwrap();
        let block = &html[start..];
        assert_eq!(block.matches("</script>").count(), 1, "only the block's own end tag: {block}");
        assert!(!block.contains("<!--") && !block.contains('\u{2028}'));
        let inner = &block[block.find('>').unwrap() + 1..block.find("</script>").unwrap()];
        let back: serde_json::Value = serde_json::from_str(inner).unwrap();
        assert_eq!(back["a"], "</script><script>alert(1)</script><!-- & \u{2028}");
    }
}
