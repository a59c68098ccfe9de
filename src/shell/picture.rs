//! A player's card picture: a 1200x630 PNG (the size link cards show) with the site's mark and
//! name, the player's name, their classification on the site's accent colour, the join date and
//! the badge count. Drawn from the texts alone, with the bundled font subset
//! (`fonts/DejaVuSans-Bold-subset.ttf`, licence beside it): no Roblox call, no avatar.

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use image::{ImageEncoder, Rgb, RgbImage};

use super::head::{IMAGE_HEIGHT, IMAGE_WIDTH};

const FONT: &[u8] = include_bytes!("fonts/DejaVuSans-Bold-subset.ttf");

/// The app's dark background and text colours (Tailwind's slate-950, -100 and -300), as the
/// bundled `/social-card.png` has them (`scripts/social-image`).
const BACKGROUND: Rgb<u8> = Rgb([0x02, 0x06, 0x17]);
const TEXT: Rgb<u8> = Rgb([0xf1, 0xf5, 0xf9]);
const MUTED: Rgb<u8> = Rgb([0xcb, 0xd5, 0xe1]);

const MARGIN: f32 = 80.0;

/// Everything a picture shows; its key (see `pictures`) is made from these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PictureText {
    pub site_name: String,
    pub username: String,
    pub classification: String,
    /// The lines under the classification (join date, badge count).
    pub lines: Vec<String>,
    /// `#rrggbb` (site.toml's default banner): the mark, the classification and the border.
    pub accent: String,
    /// `#rrggbb`: text on the accent colour.
    pub on_accent: String,
}

/// The picture as a PNG.
pub fn draw(text: &PictureText) -> Vec<u8> {
    let font = FontRef::try_from_slice(FONT).expect("the bundled font parses");
    let accent = color(&text.accent);
    let on_accent = color(&text.on_accent);
    let mut img = RgbImage::from_pixel(IMAGE_WIDTH, IMAGE_HEIGHT, BACKGROUND);
    let width = IMAGE_WIDTH as f32;
    let inner = width - 2.0 * MARGIN;

    // The site's mark (its initial on the accent colour) and its name.
    let mark = 88.0;
    rounded_rect(&mut img, MARGIN, 64.0, mark, mark, 20.0, accent);
    let initial: String = text.site_name.chars().next().map(String::from).unwrap_or_default();
    let (initial_px, _) = fit(&font, &initial, 52.0, mark - 16.0, 52.0);
    let initial_width = text_width(&font, initial_px, &initial);
    draw_text(
        &mut img,
        &font,
        initial_px,
        MARGIN + (mark - initial_width) / 2.0,
        64.0 + mark / 2.0 + 19.0,
        on_accent,
        &initial,
    );
    let name_x = MARGIN + mark + 28.0;
    let (name_px, site_name) = fit(&font, &text.site_name, 38.0, width - MARGIN - name_x, 26.0);
    draw_text(&mut img, &font, name_px, name_x, 64.0 + mark / 2.0 + 13.0, MUTED, &site_name);

    // The player's name, as large as fits.
    let (user_px, username) = fit(&font, &text.username, 104.0, inner, 56.0);
    draw_text(&mut img, &font, user_px, MARGIN, 300.0, TEXT, &username);

    // The classification on the accent colour.
    let pad = 28.0;
    let (class_px, classification) = fit(&font, &text.classification, 46.0, inner - 2.0 * pad, 28.0);
    let class_width = text_width(&font, class_px, &classification);
    rounded_rect(&mut img, MARGIN, 348.0, class_width + 2.0 * pad, 76.0, 38.0, accent);
    draw_text(&mut img, &font, class_px, MARGIN + pad, 348.0 + 38.0 + class_px * 0.36, on_accent, &classification);

    for (i, line) in text.lines.iter().take(2).enumerate() {
        let (px, line) = fit(&font, line, 38.0, inner, 24.0);
        draw_text(&mut img, &font, px, MARGIN, 494.0 + 56.0 * i as f32, MUTED, &line);
    }

    // The accent border along the bottom, as on the site's own card.
    fill_rect(&mut img, 0, IMAGE_HEIGHT - 16, IMAGE_WIDTH, 16, accent);
    encode(&img)
}

fn encode(img: &RgbImage) -> Vec<u8> {
    let mut png = Vec::with_capacity(48 * 1024);
    image::codecs::png::PngEncoder::new_with_quality(
        &mut png,
        image::codecs::png::CompressionType::Best,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8)
    .expect("encoding into memory cannot fail");
    png
}

/// `#rrggbb` (validated when site.toml is loaded); anything else is the text colour.
fn color(hex: &str) -> Rgb<u8> {
    let channel = |i: usize| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok());
    match (hex.starts_with('#') && hex.len() == 7, channel(1), channel(3), channel(5)) {
        (true, Some(r), Some(g), Some(b)) => Rgb([r, g, b]),
        _ => TEXT,
    }
}

/// The glyph of `c`, or of `?` when the font subset has none.
fn glyph(font: &FontRef, c: char) -> GlyphId {
    let id = font.glyph_id(c);
    if id.0 == 0 && !c.is_whitespace() { font.glyph_id('?') } else { id }
}

fn text_width(font: &FontRef, px: f32, text: &str) -> f32 {
    let scaled = font.as_scaled(PxScale::from(px));
    let mut width = 0.0;
    let mut previous = None;
    for c in text.chars().filter(|c| !c.is_control()) {
        let id = glyph(font, c);
        if let Some(p) = previous {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        previous = Some(id);
    }
    width
}

/// The size (at most `px`, at least `min_px`) at which `text` fits `max_width`, and the text,
/// cut with an ellipsis when it does not fit even at `min_px`.
fn fit(font: &FontRef, text: &str, px: f32, max_width: f32, min_px: f32) -> (f32, String) {
    let width = text_width(font, px, text);
    if width <= max_width {
        return (px, text.to_string());
    }
    let scaled = (px * max_width / width).floor();
    if scaled >= min_px {
        return (scaled, text.to_string());
    }
    let mut cut: Vec<char> = text.chars().collect();
    while !cut.is_empty() {
        cut.pop();
        let candidate = format!("{}\u{2026}", cut.iter().collect::<String>().trim_end());
        if text_width(font, min_px, &candidate) <= max_width {
            return (min_px, candidate);
        }
    }
    (min_px, String::new())
}

/// Draws `text` with its baseline at `baseline`, blending the glyphs' coverage into the picture.
fn draw_text(img: &mut RgbImage, font: &FontRef, px: f32, x: f32, baseline: f32, color: Rgb<u8>, text: &str) {
    let scale = PxScale::from(px);
    let scaled = font.as_scaled(scale);
    let mut caret = x;
    let mut previous = None;
    for c in text.chars().filter(|c| !c.is_control()) {
        let id = glyph(font, c);
        if let Some(p) = previous {
            caret += scaled.kern(p, id);
        }
        if let Some(outlined) = font.outline_glyph(id.with_scale_and_position(scale, point(caret, baseline))) {
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, coverage| {
                let (px, py) = (bounds.min.x as i64 + gx as i64, bounds.min.y as i64 + gy as i64);
                blend(img, px, py, color, coverage);
            });
        }
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
}

fn blend(img: &mut RgbImage, x: i64, y: i64, color: Rgb<u8>, coverage: f32) {
    if x < 0 || y < 0 || x >= img.width() as i64 || y >= img.height() as i64 {
        return;
    }
    let a = coverage.clamp(0.0, 1.0);
    let pixel = img.get_pixel_mut(x as u32, y as u32);
    for i in 0..3 {
        pixel.0[i] = (pixel.0[i] as f32 * (1.0 - a) + color.0[i] as f32 * a).round() as u8;
    }
}

fn fill_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, color: Rgb<u8>) {
    for py in y..(y + h).min(img.height()) {
        for px in x..(x + w).min(img.width()) {
            img.put_pixel(px, py, color);
        }
    }
}

/// A filled rectangle with round corners of radius `r`, their edges smoothed.
fn rounded_rect(img: &mut RgbImage, x: f32, y: f32, w: f32, h: f32, r: f32, color: Rgb<u8>) {
    let r = r.min(w / 2.0).min(h / 2.0);
    for py in y.floor() as i64..(y + h).ceil() as i64 {
        for px in x.floor() as i64..(x + w).ceil() as i64 {
            // The signed distance from the pixel's centre to the shape's edge (negative inside).
            let (cx, cy) = (px as f32 + 0.5, py as f32 + 0.5);
            let qx = (cx - (x + w / 2.0)).abs() - (w / 2.0 - r);
            let qy = (cy - (y + h / 2.0)).abs() - (h / 2.0 - r);
            let distance = (qx.max(0.0).powi(2) + qy.max(0.0).powi(2)).sqrt() + qx.max(qy).min(0.0) - r;
            let coverage = (0.5 - distance).clamp(0.0, 1.0);
            blend(img, px, py, color, coverage);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(username: &str) -> PictureText {
        PictureText {
            site_name: "Élan Hub".into(),
            username: username.into(),
            classification: "ELC Veteran".into(),
            lines: vec!["Joined Roblox May 2009 · OG era".into(), "4 of 6 ELC badges".into()],
            accent: "#7c3aed".into(),
            on_accent: "#ffffff".into(),
        }
    }

    #[test]
    fn a_picture_is_a_1200x630_png_with_the_accent_border_and_text() {
        let png = draw(&sample("OldBuilder2009"));
        let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (1200, 630));
        assert_eq!(*img.get_pixel(600, 625), Rgb([0x7c, 0x3a, 0xed]), "the bottom border");
        assert_eq!(*img.get_pixel(1190, 20), BACKGROUND);
        // The name's row holds light text; the same row far right (past a short name) does not.
        let bright = |x0: u32, x1: u32, y0: u32, y1: u32| {
            (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .filter(|&(x, y)| img.get_pixel(x, y).0[0] > 0xc0)
                .count()
        };
        assert!(bright(80, 700, 220, 300) > 2000, "the username is drawn");
        assert!(bright(900, 1120, 220, 300) == 0, "nothing right of a short name");
        assert!(png.len() < 120 * 1024, "{} bytes", png.len());
    }

    #[test]
    fn long_texts_shrink_then_are_cut_and_unknown_characters_are_drawn() {
        let font = FontRef::try_from_slice(FONT).unwrap();
        let (px, text) = fit(&font, "abcdefghijklmnopqrst", 104.0, 1040.0, 56.0);
        assert!((56.0..104.0).contains(&px) && text == "abcdefghijklmnopqrst", "{px} {text}");
        let (px, text) = fit(&font, &"W".repeat(200), 46.0, 400.0, 28.0);
        assert_eq!(px, 28.0);
        assert!(text.ends_with('\u{2026}') && text_width(&font, px, &text) <= 400.0, "{text}");
        assert_eq!(glyph(&font, '漢'), font.glyph_id('?'), "outside the subset");
        assert_ne!(glyph(&font, 'É'), font.glyph_id('?'), "Latin-1 is in the subset");
        assert_ne!(glyph(&font, '\u{2014}'), font.glyph_id('?'), "the em dash is in the subset");
        let png = draw(&PictureText { username: "漢字".repeat(30), ..sample("x") });
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn colours_are_read_from_hex() {
        assert_eq!(color("#7c3aed"), Rgb([0x7c, 0x3a, 0xed]));
        assert_eq!(color("nope"), TEXT);
    }
}
