//! tool/images.rs: images from tools to the model. A tool result is text, so a tool that has
//! an image for the model queues it with [`defer_tool_image`]; the runtime takes the queue
//! after the round's tool results ([`Run::take_deferred_images`](crate::tool::Run::take_deferred_images))
//! and sends each image as a user message with its one line of explanation. Only PNG, JPEG,
//! WebP and GIF up to 10 MB are accepted; [`fit_image`] crops and downscales.
//!
//! A small file can declare a huge picture (a "decompression bomb": a 300 kB PNG of
//! 20000×20000 pixels). Every image is therefore measured from its header first and refused
//! over [`MAX_PIXELS`] before any pixel is decoded, then decoded whole under an allocation
//! limit ([`MAX_DECODE_BYTES`]), so a corrupt or truncated image is refused before anything
//! is queued.

use std::fmt;
use std::io::Cursor;

use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::ToolCallContext;

/// The largest image a tool may queue, in bytes.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
/// The longest side [`fit_image`] leaves, in pixels.
pub const MAX_SIDE: u32 = 1000;
/// The most pixels an image may declare (checked on its header, before decoding): 40
/// megapixels, a full-page screenshot of 2560×15600.
pub const MAX_PIXELS: u64 = 40_000_000;
/// The most memory one decode may allocate, in bytes.
pub const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;

/// An encoded image and what it is.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolImage {
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
    pub media_type: &'static str,
    /// The encoded bytes.
    pub data: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl fmt::Debug for ToolImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolImage")
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .field("width", &self.width)
            .field("height", &self.height)
            .finish()
    }
}

/// An image queued for the model, with the tool that queued it and its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeferredImage {
    /// The tool that queued it.
    pub tool: String,
    /// One line saying what it shows.
    pub message: String,
    /// The image.
    pub image: ToolImage,
}

/// Why an image was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageError {
    /// Not PNG, JPEG, WebP or GIF.
    UnsupportedFormat,
    /// Over [`MAX_IMAGE_BYTES`].
    TooLarge(usize),
    /// The bytes do not decode.
    Corrupt(String),
    /// More than [`MAX_PIXELS`] pixels: width and height.
    TooManyPixels(u32, u32),
    /// A crop outside the image.
    BadCrop(String),
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::UnsupportedFormat => {
                write!(f, "not a PNG, JPEG, WebP or GIF image")
            }
            ImageError::TooLarge(n) => {
                write!(
                    f,
                    "the image is {n} bytes, over the {MAX_IMAGE_BYTES}-byte limit"
                )
            }
            ImageError::Corrupt(why) => write!(f, "the image cannot be decoded: {why}"),
            ImageError::TooManyPixels(w, h) => write!(
                f,
                "the image is {w}x{h} pixels, over the limit of {MAX_PIXELS} pixels"
            ),
            ImageError::BadCrop(why) => write!(f, "bad crop: {why}"),
        }
    }
}

impl std::error::Error for ImageError {}

/// A rectangle of an image, in pixels from its top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Crop {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

fn media_type(format: ImageFormat) -> Option<&'static str> {
    match format {
        ImageFormat::Png => Some("image/png"),
        ImageFormat::Jpeg => Some("image/jpeg"),
        ImageFormat::WebP => Some("image/webp"),
        ImageFormat::Gif => Some("image/gif"),
        _ => None,
    }
}

/// Checks `data` (format by its bytes, size, pixel count from its header, that it decodes)
/// and returns it as a [`ToolImage`] unchanged.
pub fn inspect_image(data: Vec<u8>) -> Result<ToolImage, ImageError> {
    let (image, _) = decode(data)?;
    Ok(image)
}

/// Checks `data` as [`inspect_image`] says and decodes it: the pixel count is read from the
/// header and refused over [`MAX_PIXELS`] before any pixel data is decoded, and the decode
/// itself may allocate at most [`MAX_DECODE_BYTES`].
fn decode(data: Vec<u8>) -> Result<(ToolImage, DynamicImage), ImageError> {
    if data.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge(data.len()));
    }
    let format = image::guess_format(&data).map_err(|_| ImageError::UnsupportedFormat)?;
    let media_type = media_type(format).ok_or(ImageError::UnsupportedFormat)?;
    let (width, height) = ImageReader::with_format(Cursor::new(&data), format)
        .into_dimensions()
        .map_err(|e| ImageError::Corrupt(e.to_string()))?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageError::TooManyPixels(width, height));
    }
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    let mut reader = ImageReader::with_format(Cursor::new(&data), format);
    reader.limits(limits);
    let pixels = reader
        .decode()
        .map_err(|e| ImageError::Corrupt(e.to_string()))?;
    let image = ToolImage {
        media_type,
        data,
        width,
        height,
    };
    Ok((image, pixels))
}

/// What [`fit_image`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fitted {
    /// Width and height of the original.
    pub original: (u32, u32),
    /// Width and height sent.
    pub sent: (u32, u32),
}

/// Crops `data` to `crop` when given, then scales it down so its longer side is at most
/// [`MAX_SIDE`] pixels. An image that needs neither is returned as it was; a changed one is
/// re-encoded (JPEG stays JPEG, the others become PNG).
pub fn fit_image(data: Vec<u8>, crop: Option<Crop>) -> Result<(ToolImage, Fitted), ImageError> {
    let (original, mut img) = decode(data)?;
    let size = (original.width, original.height);
    let needs_scale = original.width.max(original.height) > MAX_SIDE;
    if crop.is_none() && !needs_scale {
        return Ok((
            original,
            Fitted {
                original: size,
                sent: size,
            },
        ));
    }
    let format = image::guess_format(&original.data).map_err(|_| ImageError::UnsupportedFormat)?;
    if let Some(c) = crop {
        let fits = c.width > 0
            && c.height > 0
            && c.x.checked_add(c.width).is_some_and(|r| r <= img.width())
            && c.y.checked_add(c.height).is_some_and(|b| b <= img.height());
        if !fits {
            return Err(ImageError::BadCrop(format!(
                "{}x{} at ({}, {}) is not inside the {}x{} image",
                c.width,
                c.height,
                c.x,
                c.y,
                img.width(),
                img.height()
            )));
        }
        img = img.crop_imm(c.x, c.y, c.width, c.height);
    }
    if img.width().max(img.height()) > MAX_SIDE {
        img = img.resize(MAX_SIDE, MAX_SIDE, image::imageops::FilterType::Triangle);
    }
    let (out_format, media_type) = if format == ImageFormat::Jpeg {
        (ImageFormat::Jpeg, "image/jpeg")
    } else {
        (ImageFormat::Png, "image/png")
    };
    let img = if out_format == ImageFormat::Jpeg {
        DynamicImage::ImageRgb8(img.to_rgb8())
    } else {
        img
    };
    let mut bytes = Vec::new();
    img.write_to(&mut Cursor::new(&mut bytes), out_format)
        .map_err(|e| ImageError::Corrupt(e.to_string()))?;
    let sent = (img.width(), img.height());
    let fitted = ToolImage {
        media_type,
        data: bytes,
        width: sent.0,
        height: sent.1,
    };
    if fitted.data.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge(fitted.data.len()));
    }
    Ok((
        fitted,
        Fitted {
            original: size,
            sent,
        },
    ))
}

/// Queues `image` (checked as [`inspect_image`] does) for the model, with `msg` as its one line
/// of explanation, to be sent after the current round's tool results.
///
/// ```
/// use cmdguard::tool::{AgentHandle, ToolCallContext, defer_tool_image};
///
/// let agent = AgentHandle::new("viewer");
/// let ctx = ToolCallContext::new(agent.clone(), "screenshot", ());
/// // A 1×1 PNG.
/// let png = [
///     0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0,
///     0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 13, 0x49, 0x44, 0x41,
///     0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0, 0x05, 0, 0x01, 0xff, 0x89, 0x99,
///     0x3d, 0x1d, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
/// ];
/// defer_tool_image(&ctx, png.to_vec(), "the page after login").unwrap();
/// let queued = agent.run.take_deferred_images();
/// assert_eq!((queued.len(), queued[0].image.media_type), (1, "image/png"));
/// assert!(defer_tool_image(&ctx, b"GIF-ish".to_vec(), "x").is_err());
/// ```
pub fn defer_tool_image<C>(
    ctx: &ToolCallContext<C>,
    image: Vec<u8>,
    msg: &str,
) -> Result<(), ImageError> {
    let image = inspect_image(image)?;
    let message = msg.lines().next().unwrap_or("").to_owned();
    ctx.run().defer_image(DeferredImage {
        tool: ctx.tool_name().to_owned(),
        message,
        image,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut data = Vec::new();
        DynamicImage::new_rgb8(width, height)
            .write_to(&mut Cursor::new(&mut data), ImageFormat::Png)
            .unwrap();
        data
    }

    /// A header that declares too many pixels is refused as such: had it been decoded, the
    /// missing pixel data would have made it "corrupt" instead.
    #[test]
    fn too_many_pixels_are_refused_from_the_header() {
        // A 1x1 PNG whose header then says 20000x20000: its pixel data does not match.
        let mut header = png(1, 1);
        header[16..24].copy_from_slice(&[0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20]); // 20000x20000
        let crc = {
            let mut crc = !0u32;
            for &b in &header[12..29] {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 {
                        (crc >> 1) ^ 0xedb8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        };
        header[29..33].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(
            inspect_image(header),
            Err(ImageError::TooManyPixels(20_000, 20_000))
        );
    }

    #[test]
    fn a_truncated_image_is_corrupt_and_a_whole_one_passes() {
        let whole = png(64, 64);
        assert_eq!(
            inspect_image(whole.clone()).map(|i| (i.width, i.height)),
            Ok((64, 64))
        );
        for cut in [60, whole.len() / 2, whole.len() - 13] {
            let result = inspect_image(whole[..cut].to_vec());
            assert!(
                matches!(result, Err(ImageError::Corrupt(_))),
                "{cut}: {result:?}"
            );
        }
    }
}
