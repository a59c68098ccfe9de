//! Writes a photo-like 4096×4096 JPEG of about 5 MiB (smooth gradients with fine noise, like a
//! camera picture) for `scripts/bench`: `cargo run --release --example make_photo -- OUT.jpg`.

use std::io::Cursor;

fn main() {
    let out = std::env::args().nth(1).expect("usage: make_photo OUT.jpg");
    let side = 4096u32;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 64) as i32 - 32
    };
    let img = image::RgbImage::from_fn(side, side, |x, y| {
        let (fx, fy) = (x as f32 / side as f32, y as f32 / side as f32);
        let base = [
            120.0 + 100.0 * (fx * 9.0).sin() * (fy * 4.0).cos(),
            110.0 + 90.0 * (fy * 7.0 + fx * 3.0).sin(),
            100.0 + 80.0 * ((fx - fy) * 11.0).cos(),
        ];
        image::Rgb(base.map(|c| (c as i32 + noise()).clamp(0, 255) as u8))
    });
    // The largest quality that stays within the 5 MiB upload limit.
    for quality in (50..=95).rev() {
        let mut bytes = Cursor::new(Vec::new());
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality).encode_image(&img).unwrap();
        let bytes = bytes.into_inner();
        if bytes.len() <= 5 * 1024 * 1024 {
            std::fs::write(&out, &bytes).unwrap();
            println!("{out}: {side}x{side} JPEG, quality {quality}, {:.2} MiB", bytes.len() as f64 / 1048576.0);
            return;
        }
    }
    panic!("could not get under 5 MiB");
}
