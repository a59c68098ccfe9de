//! Checking an uploaded ad image by its bytes, re-encoding it so nothing but pixels survives
//! (no EXIF, GPS, comments or appended files), and taking the banner's colours from it.
//! Everything here is CPU work: callers run it on a blocking thread.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, ImageReader, Limits};

pub const MAX_BYTES: usize = 5 * 1024 * 1024;
pub const MAX_SIDE: u32 = 4096;
const MAX_DECODE_ALLOC: u64 = 320 * 1024 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum ImageProblem {
    /// Not PNG, JPEG, WebP or GIF (HTML, SVG, anything else), whatever its name says.
    NotAnImage,
    /// The name's extension promises another format than the bytes hold.
    WrongExtension { named: String, found: &'static str },
    /// More than 5 MiB.
    TooLarge,
    /// Wider or taller than 4096 pixels.
    TooManyPixels { width: u32, height: u32 },
    /// Bytes after the image's end (a second file hidden behind it).
    TrailingData,
    /// Cut off or damaged.
    Unreadable,
    /// Re-encoded without loss it would pass 5 MiB, and its transparency keeps it from JPEG.
    TooLargeReencoded,
    /// Even re-encoded as JPEG it would pass 5 MiB (many pixels that compress poorly).
    TooLargeToStore,
}

impl ImageProblem {
    pub fn sentence(&self) -> String {
        match self {
            Self::NotAnImage => "The image must be a PNG, JPEG, WebP or GIF file.".into(),
            Self::WrongExtension { named, found } => {
                format!("The file is named .{named} but holds a {found} image. Rename it or choose another file.")
            }
            Self::TooLarge => "The image may be at most 5 MB.".into(),
            Self::TooManyPixels { width, height } => {
                format!("The image is {width}×{height} pixels; at most {MAX_SIDE} pixels a side.")
            }
            Self::TrailingData => "The image file carries extra data after the picture. Export it again.".into(),
            Self::Unreadable => "The image could not be read. It may be damaged or cut off.".into(),
            Self::TooLargeReencoded => "Stored without loss, this transparent image would be over 5 MB. \
                Upload it smaller, or as a PNG or JPEG of at most 5 MB."
                .into(),
            Self::TooLargeToStore => "Stored, this image would be over 5 MB: it has too many pixels that do not \
                compress. Upload it with fewer pixels (a banner needs about 1200 across)."
                .into(),
        }
    }
}

/// A checked, re-encoded image and what the banner needs from it.
#[derive(Debug)]
pub struct CleanImage {
    pub bytes: Vec<u8>,
    pub extension: &'static str,
    pub content_type: &'static str,
    pub width: u32,
    pub height: u32,
    pub design: super::colors::Design,
}

fn format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "PNG",
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::WebP => "WebP",
        ImageFormat::Gif => "GIF",
        _ => "other",
    }
}

fn extensions(format: ImageFormat) -> &'static [&'static str] {
    match format {
        ImageFormat::Png => &["png"],
        ImageFormat::Jpeg => &["jpg", "jpeg", "jfif"],
        ImageFormat::WebP => &["webp"],
        ImageFormat::Gif => &["gif"],
        _ => &[],
    }
}

/// Checks `bytes` (named `file_name` by the uploader) and re-encodes them.
pub fn clean(bytes: &[u8], file_name: &str) -> Result<CleanImage, ImageProblem> {
    if bytes.len() > MAX_BYTES {
        return Err(ImageProblem::TooLarge);
    }
    let format = match image::guess_format(bytes) {
        Ok(f @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif)) => f,
        _ => return Err(ImageProblem::NotAnImage),
    };
    if let Some((_, ext)) = file_name.rsplit_once('.') {
        let ext = ext.to_ascii_lowercase();
        if !extensions(format).contains(&ext.as_str()) {
            return Err(ImageProblem::WrongExtension { named: ext, found: format_name(format) });
        }
    }
    if has_trailing_data(bytes, format) {
        return Err(ImageProblem::TrailingData);
    }
    let (width, height) =
        ImageReader::with_format(Cursor::new(bytes), format).into_dimensions().map_err(|_| ImageProblem::Unreadable)?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(ImageProblem::TooManyPixels { width, height });
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|_| ImageProblem::Unreadable)?;
    let design = super::colors::design(&decoded);
    // Every upload, WebP too, is stored from its decoded pixels alone: bytes hidden inside an image
    // chunk (a page, an archive) or its metadata cannot survive, whatever the chunk lengths say.
    let lossy = format == ImageFormat::Jpeg || (format == ImageFormat::WebP && is_lossy_webp(bytes));
    let (bytes, extension, content_type) = reencode(&decoded, lossy, MAX_BYTES)?;
    Ok(CleanImage { bytes, extension, content_type, width, height, design })
}

type Encoded = (Vec<u8>, &'static str, &'static str);

/// Only pixels are written. Lossy input without transparency (JPEG, lossy WebP) stays lossy as
/// JPEG (quality 85); the rest becomes PNG (lossless). A PNG over `max_bytes` (a small lossy or
/// palette image can grow about tenfold) becomes JPEG when it has no transparency, else the
/// image is refused: the stored file is never over the upload limit.
fn reencode(img: &DynamicImage, lossy: bool, max_bytes: usize) -> Result<Encoded, ImageProblem> {
    let opaque = is_opaque(img);
    let encoded = if lossy && opaque {
        jpeg(img)
    } else {
        let png = png(img)?;
        if png.0.len() <= max_bytes {
            return Ok(png);
        }
        if !opaque {
            return Err(ImageProblem::TooLargeReencoded);
        }
        jpeg(img)
    }?;
    if encoded.0.len() > max_bytes {
        return Err(ImageProblem::TooLargeToStore);
    }
    Ok(encoded)
}

fn jpeg(img: &DynamicImage) -> Result<Encoded, ImageProblem> {
    let mut out = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&img.to_rgb8())
        .map_err(|_| ImageProblem::Unreadable)?;
    Ok((out.into_inner(), "jpg", "image/jpeg"))
}

fn png(img: &DynamicImage) -> Result<Encoded, ImageProblem> {
    let mut out = Cursor::new(Vec::new());
    let encoder = image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    );
    img.write_with_encoder(encoder).map_err(|_| ImageProblem::Unreadable)?;
    Ok((out.into_inner(), "png", "image/png"))
}

fn is_opaque(img: &DynamicImage) -> bool {
    use image::GenericImageView;
    !img.color().has_alpha() || img.pixels().all(|(_, _, p)| p.0[3] == u8::MAX)
}

/// Whether a WebP file holds a lossy (`VP8 `) bitstream rather than a lossless (`VP8L`) one,
/// walking its RIFF chunks.
fn is_lossy_webp(bytes: &[u8]) -> bool {
    let mut at = 12;
    while let Some(header) = bytes.get(at..at + 8) {
        match &header[..4] {
            b"VP8 " => return true,
            b"VP8L" => return false,
            _ => {}
        }
        let size = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        at = at.saturating_add(8).saturating_add(size).saturating_add(size & 1);
    }
    false
}

#[cfg(test)]
fn push_chunk(body: &mut Vec<u8>, kind: &[u8], payload: &[u8]) {
    body.extend_from_slice(kind);
    body.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    body.extend_from_slice(payload);
    if payload.len() % 2 == 1 {
        body.push(0);
    }
}

/// Whether bytes follow the image's own end marker (a polyglot: an image with an HTML page or a
/// ZIP archive appended).
fn has_trailing_data(bytes: &[u8], format: ImageFormat) -> bool {
    match format {
        ImageFormat::Png => png_end(bytes).is_some_and(|end| end < bytes.len()),
        // A JPEG ends with EOI (FF D9); some encoders pad with zeros after it.
        ImageFormat::Jpeg => {
            let trimmed = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            !bytes[..trimmed].ends_with(&[0xFF, 0xD9])
        }
        // RIFF's size field counts everything after the first 8 bytes (padded to even).
        ImageFormat::WebP => {
            let Some(size) = bytes.get(4..8).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize) else {
                return true;
            };
            bytes.len() > 8 + size + (size & 1)
        }
        // A GIF ends with its trailer byte (0x3B).
        ImageFormat::Gif => bytes.last() != Some(&0x3B),
        _ => true,
    }
}

/// The offset just past the IEND chunk, walking the chunk list.
fn png_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
        let kind = &bytes[at + 4..at + 8];
        let next = at.checked_add(12)?.checked_add(len)?;
        if kind == b"IEND" {
            return Some(next.min(bytes.len()));
        }
        at = next;
    }
    None
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use image::{Rgb, RgbImage, Rgba, RgbaImage};

    pub fn png(width: u32, height: u32) -> Vec<u8> {
        let img = RgbaImage::from_fn(width, height, |x, _| {
            if x < width * 3 / 4 { Rgba([200, 30, 40, 255]) } else { Rgba([250, 220, 40, 255]) }
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(img).write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    pub fn jpeg_with_exif(width: u32, height: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(width, height, |x, y| Rgb([(x % 256) as u8, (y % 256) as u8, 90]));
        let mut out = Cursor::new(Vec::new());
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90).encode_image(&img).unwrap();
        let mut bytes = out.into_inner();
        // An APP1 "Exif" segment with a GPS-looking text right after SOI.
        let payload = b"Exif\0\0GPSLatitude 48.8584 secret-comment";
        let mut app1 = vec![0xFF, 0xE1];
        app1.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
        app1.extend_from_slice(payload);
        bytes.splice(2..2, app1);
        bytes
    }

    #[test]
    fn a_clean_png_is_reencoded_with_its_colours() {
        let img = clean(&png(40, 20), "banner.PNG").unwrap();
        assert_eq!((img.extension, img.content_type, img.width, img.height), ("png", "image/png", 40, 20));
        assert_eq!(image::guess_format(&img.bytes).unwrap(), ImageFormat::Png);
        assert!(super::super::colors::contrast(&img.design.background_color, &img.design.text_color) >= 4.5);
    }

    #[test]
    fn metadata_does_not_survive() {
        let bytes = jpeg_with_exif(64, 48);
        assert!(bytes.windows(11).any(|w| w == b"GPSLatitude"));
        let img = clean(&bytes, "photo.jpeg").unwrap();
        assert_eq!(img.extension, "jpg");
        assert!(!img.bytes.windows(11).any(|w| w == b"GPSLatitude"));
        assert!(!img.bytes.windows(4).any(|w| w == b"Exif"));
    }

    #[test]
    fn hostile_files_are_refused() {
        let good = png(8, 8);
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
        assert_eq!(clean(svg, "x.png").unwrap_err(), ImageProblem::NotAnImage);
        assert_eq!(clean(b"<!doctype html><script>alert(1)</script>", "x.gif").unwrap_err(), ImageProblem::NotAnImage);
        let mut html_tail = good.clone();
        html_tail.extend_from_slice(b"<html><script>alert(1)</script></html>");
        assert_eq!(clean(&html_tail, "x.png").unwrap_err(), ImageProblem::TrailingData);
        let mut zip_tail = good.clone();
        zip_tail.extend_from_slice(b"PK\x03\x04rest-of-a-zip");
        assert_eq!(clean(&zip_tail, "x.png").unwrap_err(), ImageProblem::TrailingData);
        let truncated = &good[..good.len() / 2];
        assert!(matches!(
            clean(truncated, "x.png").unwrap_err(),
            ImageProblem::Unreadable | ImageProblem::TrailingData
        ));
        assert!(matches!(clean(&good, "x.gif").unwrap_err(), ImageProblem::WrongExtension { .. }));
        assert_eq!(clean(&vec![0u8; MAX_BYTES + 1], "x.png").unwrap_err(), ImageProblem::TooLarge);
    }

    #[test]
    fn a_huge_header_with_a_tiny_body_is_refused_before_decoding() {
        let mut bomb = png(1, 1);
        // IHDR's width and height sit at bytes 16..24; the CRC no longer matches, which the
        // dimension check must not need to get past.
        bomb[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        let e = clean(&bomb, "bomb.png").unwrap_err();
        assert!(matches!(e, ImageProblem::TooManyPixels { width: 60_000, .. } | ImageProblem::Unreadable), "{e:?}");
    }

    #[test]
    fn a_reencoded_image_never_outgrows_the_limit() {
        let noise = |alpha: u8| {
            let mut seed = 0x2545_f491_u32;
            DynamicImage::ImageRgba8(RgbaImage::from_fn(256, 256, |_, _| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let [r, g, b, _] = seed.to_le_bytes();
                Rgba([r, g, b, alpha])
            }))
        };
        let opaque = noise(255);
        let (bytes, ext, _) = reencode(&opaque, false, 10_000_000).unwrap();
        assert_eq!(ext, "png", "lossless input within the limit stays lossless");
        let limit = bytes.len() / 2;
        let (bytes, ext, content_type) = reencode(&opaque, false, limit).unwrap();
        assert_eq!((ext, content_type), ("jpg", "image/jpeg"), "too large as PNG: lossy instead");
        assert!(bytes.len() <= limit);
        assert_eq!(reencode(&opaque, true, 10_000_000).unwrap().1, "jpg", "lossy input stays lossy");
        assert_eq!(reencode(&noise(128), false, limit).unwrap_err(), ImageProblem::TooLargeReencoded);
        assert_eq!(reencode(&noise(128), true, 10_000_000).unwrap().1, "png", "transparency needs PNG");
        assert_eq!(reencode(&opaque, false, 1_000).unwrap_err(), ImageProblem::TooLargeToStore);
    }

    #[test]
    fn a_webp_is_stored_from_its_pixels_without_anything_hidden_in_its_chunks() {
        let img =
            RgbaImage::from_fn(
                300,
                100,
                |x, _| if x < 150 { Rgba([10, 90, 200, 255]) } else { Rgba([250, 250, 250, 255]) },
            );
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(img).write_to(&mut out, ImageFormat::WebP).unwrap();
        let plain = out.into_inner();
        // The bitstream's chunk declared longer than its bitstream, with HTML and a ZIP signature
        // in the extra bytes, behind a VP8X header declaring EXIF and an EXIF chunk with a location.
        let (kind, declared) = (&plain[12..16], u32::from_le_bytes(plain[16..20].try_into().unwrap()) as usize);
        let mut stuffed = plain[20..20 + declared].to_vec();
        stuffed.extend_from_slice(b"<html><script>alert(1)</script>PK\x03\x04");
        let mut body = b"WEBP".to_vec();
        push_chunk(&mut body, b"VP8X", &[0x08, 0, 0, 0, 43, 1, 0, 99, 0, 0]);
        push_chunk(&mut body, kind, &stuffed);
        push_chunk(&mut body, b"EXIF", b"Exif\0\0GPSLatitude 48.8584");
        let mut tagged = b"RIFF".to_vec();
        tagged.extend_from_slice(&(body.len() as u32).to_le_bytes());
        tagged.extend_from_slice(&body);

        let Ok(clean) = clean(&tagged, "banner.webp") else { return }; // refused outright is fine too
        assert_eq!((clean.width, clean.height), (300, 100));
        assert_ne!(clean.extension, "webp", "written anew from pixels (PNG or JPEG)");
        for hidden in [&b"GPSLatitude"[..], b"<html>", b"<script>", b"PK\x03\x04"] {
            assert!(
                !clean.bytes.windows(hidden.len()).any(|w| w == hidden),
                "{:?} survived",
                String::from_utf8_lossy(hidden)
            );
        }
        assert_eq!(image::load_from_memory(&clean.bytes).unwrap().width(), 300, "it still decodes");
    }

    #[test]
    fn lossy_webp_is_told_from_lossless() {
        let riff = |chunks: &[(&[u8; 4], usize)]| {
            let mut b = b"RIFF\0\0\0\0WEBP".to_vec();
            for (kind, len) in chunks {
                b.extend_from_slice(*kind);
                b.extend_from_slice(&(*len as u32).to_le_bytes());
                b.extend(std::iter::repeat_n(0u8, len + (len & 1)));
            }
            b
        };
        assert!(is_lossy_webp(&riff(&[(b"VP8 ", 10)])));
        assert!(!is_lossy_webp(&riff(&[(b"VP8L", 10)])));
        assert!(is_lossy_webp(&riff(&[(b"VP8X", 10), (b"ALPH", 5), (b"VP8 ", 10)])));
        assert!(!is_lossy_webp(&riff(&[(b"VP8X", 10), (b"VP8L", 10)])));
        assert!(!is_lossy_webp(b"RIFF"));
    }
}
