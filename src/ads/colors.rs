//! The sponsored banner's colours, taken from the ad's image: the background from its dominant
//! colour (darkened or lightened until the text meets WCAG AA, 4.5:1), the border from its
//! second colour, the text white or near-black, whichever reads better.

use image::DynamicImage;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Design {
    pub background_color: String,
    pub text_color: String,
    pub border_color: String,
}

type Rgb = [f64; 3];

pub fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0].round() as u8, c[1].round() as u8, c[2].round() as u8)
}

pub fn parse_hex(s: &str) -> Option<Rgb> {
    if s.len() != 7 || !s.starts_with('#') {
        return None;
    }
    let v = u32::from_str_radix(&s[1..], 16).ok()?;
    Some([((v >> 16) & 0xff) as f64, ((v >> 8) & 0xff) as f64, (v & 0xff) as f64])
}

fn luminance(c: Rgb) -> f64 {
    let lin = |v: f64| {
        let s = v / 255.0;
        if s <= 0.04045 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
}

fn ratio(a: Rgb, b: Rgb) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// The WCAG contrast ratio of two `#rrggbb` colours (1 when either is not one).
pub fn contrast(a: &str, b: &str) -> f64 {
    match (parse_hex(a), parse_hex(b)) {
        (Some(a), Some(b)) => ratio(a, b),
        _ => 1.0,
    }
}

fn mix(c: Rgb, toward: Rgb, amount: f64) -> Rgb {
    [0, 1, 2].map(|i| c[i] + (toward[i] - c[i]) * amount)
}

const WHITE: Rgb = [255.0, 255.0, 255.0];
const INK: Rgb = [15.0, 23.0, 42.0];
const AA: f64 = 4.5;

/// The two most common colours of the image (transparent pixels ignored), most common first.
fn dominant_colors(img: &DynamicImage) -> (Rgb, Option<Rgb>) {
    let small = img.thumbnail(64, 64).to_rgba8();
    // 4 bits a channel: 4096 buckets, each keeping the sum of its pixels for an average.
    let mut buckets = vec![(0u32, [0f64; 3]); 4096];
    for p in small.pixels() {
        if p[3] < 128 {
            continue;
        }
        let idx = ((p[0] as usize >> 4) << 8) | ((p[1] as usize >> 4) << 4) | (p[2] as usize >> 4);
        let b = &mut buckets[idx];
        b.0 += 1;
        for i in 0..3 {
            b.1[i] += f64::from(p[i]);
        }
    }
    let mut ranked: Vec<(u32, Rgb)> =
        buckets.into_iter().filter(|b| b.0 > 0).map(|(n, sum)| (n, sum.map(|s| s / f64::from(n)))).collect();
    ranked.sort_by_key(|b| std::cmp::Reverse(b.0));
    let first = ranked.first().map(|b| b.1).unwrap_or([124.0, 58.0, 237.0]);
    // The second colour must look different from the first, not a neighbouring shade.
    let second = ranked.iter().skip(1).map(|b| b.1).find(|c| ratio(*c, first) > 1.4 || distance(*c, first) > 60.0);
    (first, second)
}

fn distance(a: Rgb, b: Rgb) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The banner design for an image.
pub fn design(img: &DynamicImage) -> Design {
    let (base, second) = dominant_colors(img);
    design_from(base, second)
}

fn design_from(base: Rgb, second: Option<Rgb>) -> Design {
    // Text: whichever of white and ink reads better on the dominant colour.
    let text = if ratio(base, WHITE) >= ratio(base, INK) { WHITE } else { INK };
    // Move the background away from the text until AA holds (toward black under white text,
    // toward white under ink), keeping the hue.
    let away = if text == WHITE { [0.0; 3] } else { WHITE };
    let mut background = base;
    let mut step = 0.0;
    while ratio(background, text) < AA && step < 1.0 {
        step += 0.05;
        background = mix(base, away, step);
    }
    let border = match second {
        Some(c) if distance(c, background) > 40.0 => c,
        _ => mix(background, text, 0.35),
    };
    Design { background_color: hex(background), text_color: hex(text), border_color: hex(border) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_always_meets_aa_on_the_background() {
        for base in [
            [255.0, 255.0, 0.0],
            [128.0, 128.0, 128.0],
            [124.0, 58.0, 237.0],
            [0.0, 0.0, 0.0],
            [250.0; 3],
            [40.0, 200.0, 120.0],
        ] {
            let d = design_from(base, None);
            assert!(contrast(&d.background_color, &d.text_color) >= AA, "{base:?} -> {d:?}");
        }
    }

    #[test]
    fn the_dominant_colour_leads() {
        let img = image::RgbImage::from_fn(100, 100, |x, _| {
            if x < 80 { image::Rgb([20, 40, 160]) } else { image::Rgb([250, 200, 30]) }
        });
        let d = design(&DynamicImage::ImageRgb8(img));
        let bg = parse_hex(&d.background_color).unwrap();
        assert!(bg[2] > bg[0] && bg[2] > bg[1], "a blue image gives a blue banner: {d:?}");
        assert_eq!(d.text_color, "#ffffff");
        let border = parse_hex(&d.border_color).unwrap();
        assert!(border[0] > 200.0 && border[1] > 150.0, "the second colour frames it: {d:?}");
    }
}
