//! A page's first screen in its shell: the UI build renders the app's first frame of a route with
//! every site setting it shows written as a token (`⟦hero.title⟧`, `⟦shortName|initial⟧`; see
//! `ui/src/prerender/firstScreen.tsx`), and this fills the tokens with the running site's values,
//! escaped. The browser paints it before any script runs and the app hydrates it in place.

use serde_json::Value;

const OPEN: char = '\u{27e6}';
const CLOSE: char = '\u{27e7}';

/// `template` with every token replaced by its setting in `site` (the `/api/site` JSON).
/// An unknown setting, a list or an object, or an unknown filter is an error: the shell is then
/// served without a first screen rather than with a wrong one.
pub fn fill(template: &str, site: &Value) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 1024);
    let mut rest = template;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len_utf8()..];
        let end = after.find(CLOSE).ok_or_else(|| "a token is not closed".to_string())?;
        let token = &after[..end];
        let (path, filter) = match token.split_once('|') {
            Some((path, filter)) => (path, Some(filter)),
            None => (token, None),
        };
        let value = path
            .split('.')
            .try_fold(site, |v, key| v.get(key))
            .ok_or_else(|| format!("the site has no setting `{path}`"))?;
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return Err(format!("the setting `{path}` is not text or a number")),
        };
        let text = match filter {
            None => text,
            Some("initial") => text.chars().next().map(String::from).unwrap_or_default(),
            Some(other) => return Err(format!("unknown filter `{other}` in `{token}`")),
        };
        out.push_str(&super::head::attr(&text));
        rest = &after[end + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_are_filled_escaped_with_text_numbers_and_initials() {
        let site = json!({"shortName": "Élan <Hub>", "hero": {"title": "Build \"&\" vote", "tools": 6}, "links": {"game": "https://x.example/?a=1&b='2'"}});
        let html = fill(
            "<span>⟦shortName|initial⟧</span><h1>⟦hero.title⟧</h1><li>⟦hero.tools⟧ tools</li><a href=\"⟦links.game⟧\">⟦shortName⟧</a>",
            &site,
        )
        .unwrap();
        assert_eq!(
            html,
            "<span>É</span><h1>Build &quot;&amp;&quot; vote</h1><li>6 tools</li>\
             <a href=\"https://x.example/?a=1&amp;b=&#39;2&#39;\">Élan &lt;Hub&gt;</a>"
        );
    }

    #[test]
    fn an_unknown_or_unusable_token_is_refused() {
        let site = json!({"name": "x", "features": [], "hero": {}});
        assert!(fill("⟦nope⟧", &site).unwrap_err().contains("nope"));
        assert!(fill("⟦features⟧", &site).is_err(), "a list");
        assert!(fill("⟦hero⟧", &site).is_err(), "an object");
        assert!(fill("⟦name|upper⟧", &site).is_err(), "an unknown filter");
        assert!(fill("⟦name", &site).is_err(), "not closed");
        assert_eq!(fill("no tokens", &site).unwrap(), "no tokens");
    }
}
