//! The most a compressed Arrow IPC buffer can decompress to, read from its frames' headers
//! without decompressing anything (RFC 8878 for Zstandard, the LZ4 frame format for LZ4).
//!
//! arrow-ipc allocates a buffer's stated uncompressed length before it decompresses, and a
//! failed allocation aborts the process: a file whose length prefix changed by one byte would
//! otherwise ask for tens of gigabytes. Writers state the content size in each frame (Arrow
//! C++ and arrow-rs do for Zstandard), so the bound is then exact; where a frame does not, its
//! blocks bound it (a stored block is its own length, a compressed one at most the codec's
//! block size), which is close for real data. A Zstandard block that regenerates more than that
//! breaks the format (RFC 8878: at most the smaller of the window and 128 KiB): a buffer that
//! would need one to reach its stated length is refused, although libzstd's one-shot decoder
//! does not check the limit.

use std::io::{self, Read, Seek, SeekFrom};

/// The codec of a compressed Arrow buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Codec {
    Lz4Frame,
    Zstd,
}

const ZSTD_MAGIC: u32 = 0xFD2F_B528;
const LZ4_MAGIC: u32 = 0x184D_2204;
/// Skippable frames (either codec) have a magic number from this, its low 4 bits free.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// A Zstandard block regenerates at most this many bytes (and at most the frame's window).
const ZSTD_BLOCK_MAX: u64 = 128 << 10;

/// What the walk makes of a compressed buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Walked {
    /// The most bytes its frames decompress to: the sum over the frames of each one's stated
    /// content size or its blocks' bound, whichever is smaller.
    Bound(u64),
    /// LZ4 this walk does not follow, which the decoder may still read (lz4_flex reads legacy
    /// frames, and frames cut short at a block).
    Unfollowed,
    /// Not Zstandard frames: libzstd as built here (zstd-sys without its `legacy` feature)
    /// reads nothing else (another magic number, a reserved bit or block type, bytes cut short
    /// or left over). A binary linked to a system libzstd built with the formats before 1.0
    /// would read those too; no Arrow writer writes them.
    NotZstd,
}

/// What the walk makes of the bytes `start..end` of `data` as frames of `codec`.
pub(super) fn frames_bound<R: Read + Seek>(
    data: &mut R,
    start: u64,
    end: u64,
    codec: Codec,
) -> io::Result<Walked> {
    let mut frames = Frames {
        data,
        at: start,
        end,
    };
    match frames.walk(codec) {
        Ok(bound) => Ok(Walked::Bound(bound)),
        Err(Stop::Unknown) if codec == Codec::Zstd => Ok(Walked::NotZstd),
        Err(Stop::Unknown) => Ok(Walked::Unfollowed),
        Err(Stop::Io(e)) => Err(e),
    }
}

enum Stop {
    /// Not frames this walk follows (another format, cut short, a reserved field set).
    Unknown,
    Io(io::Error),
}

type Step<T> = Result<T, Stop>;

/// A position in `at..end` of a seekable input.
struct Frames<'a, R> {
    data: &'a mut R,
    at: u64,
    end: u64,
}

impl<R: Read + Seek> Frames<'_, R> {
    fn bytes<const N: usize>(&mut self) -> Step<[u8; N]> {
        let mut bytes = [0u8; N];
        let next = self.at + N as u64;
        if next > self.end {
            return Err(Stop::Unknown);
        }
        self.data.seek(SeekFrom::Start(self.at)).map_err(Stop::Io)?;
        self.data.read_exact(&mut bytes).map_err(Stop::Io)?;
        self.at = next;
        Ok(bytes)
    }

    fn skip(&mut self, n: u64) -> Step<()> {
        match self.at.checked_add(n) {
            Some(next) if next <= self.end => {
                self.at = next;
                Ok(())
            }
            _ => Err(Stop::Unknown),
        }
    }

    fn u32(&mut self) -> Step<u32> {
        self.bytes().map(u32::from_le_bytes)
    }

    fn walk(&mut self, codec: Codec) -> Step<u64> {
        let mut total = 0u64;
        while self.at < self.end {
            let magic = self.u32()?;
            let frame = if magic & !0xF == SKIPPABLE_MAGIC {
                let len = self.u32()?;
                self.skip(u64::from(len))?;
                0
            } else if codec == Codec::Zstd && magic == ZSTD_MAGIC {
                self.zstd_frame()?
            } else if codec == Codec::Lz4Frame && magic == LZ4_MAGIC {
                self.lz4_frame()?
            } else {
                return Err(Stop::Unknown);
            };
            total = total.saturating_add(frame);
        }
        Ok(total)
    }

    /// A Zstandard frame after its magic number: header, blocks, optional checksum.
    fn zstd_frame(&mut self) -> Step<u64> {
        let [descriptor] = self.bytes()?;
        if descriptor & 0x08 != 0 {
            return Err(Stop::Unknown); // reserved bit
        }
        let single_segment = descriptor & 0x20 != 0;
        let window = if single_segment {
            None
        } else {
            let [w] = self.bytes()?;
            let base = 1u64 << (10 + (w >> 3));
            Some(base + base / 8 * u64::from(w & 7))
        };
        self.skip([0, 1, 2, 4][usize::from(descriptor & 3)])?; // dictionary id
        let content = match descriptor >> 6 {
            0 if !single_segment => None,
            0 => Some(u64::from(self.bytes::<1>()?[0])),
            1 => Some(u64::from(u16::from_le_bytes(self.bytes()?)) + 256),
            2 => Some(u64::from(self.u32()?)),
            _ => Some(u64::from_le_bytes(self.bytes()?)),
        };
        // A single-segment frame's window is its content.
        let block_max = window
            .or(content)
            .map_or(ZSTD_BLOCK_MAX, |w| w.min(ZSTD_BLOCK_MAX));
        let mut blocks = 0u64;
        loop {
            let [a, b, c] = self.bytes()?;
            let header = u32::from_le_bytes([a, b, c, 0]);
            let size = u64::from(header >> 3);
            let (regenerated, stored) = match (header >> 1) & 3 {
                0 => (size, size), // raw
                1 => (size, 1),    // one byte repeated
                2 => (block_max, size),
                _ => return Err(Stop::Unknown),
            };
            blocks = blocks.saturating_add(regenerated);
            self.skip(stored)?;
            if header & 1 != 0 {
                break;
            }
        }
        if descriptor & 0x04 != 0 {
            self.skip(4)?; // content checksum
        }
        Ok(content.map_or(blocks, |c| c.min(blocks)))
    }

    /// An LZ4 frame after its magic number: descriptor, blocks, end mark, optional checksum.
    fn lz4_frame(&mut self) -> Step<u64> {
        let [flags, block] = self.bytes()?;
        if flags >> 6 != 1 {
            return Err(Stop::Unknown); // version
        }
        let block_max: u64 = match (block >> 4) & 7 {
            4 => 64 << 10,
            5 => 256 << 10,
            6 => 1 << 20,
            7 => 4 << 20,
            _ => return Err(Stop::Unknown),
        };
        let content = if flags & 0x08 != 0 {
            Some(u64::from_le_bytes(self.bytes()?))
        } else {
            None
        };
        if flags & 0x01 != 0 {
            self.skip(4)?; // dictionary id
        }
        self.skip(1)?; // header checksum
        let mut blocks = 0u64;
        loop {
            let word = self.u32()?;
            if word == 0 {
                break; // end mark
            }
            let size = u64::from(word & 0x7FFF_FFFF);
            let stored_raw = word & 0x8000_0000 != 0;
            blocks = blocks.saturating_add(if stored_raw { size } else { block_max });
            self.skip(size)?;
            if flags & 0x10 != 0 {
                self.skip(4)?; // block checksum
            }
        }
        if flags & 0x04 != 0 {
            self.skip(4)?; // content checksum
        }
        Ok(content.map_or(blocks, |c| c.min(blocks)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn bound(bytes: &[u8], codec: Codec) -> Option<u64> {
        match walked(bytes, codec) {
            Walked::Bound(bound) => Some(bound),
            _ => None,
        }
    }

    fn walked(bytes: &[u8], codec: Codec) -> Walked {
        frames_bound(&mut Cursor::new(bytes), 0, bytes.len() as u64, codec).unwrap()
    }

    /// A Zstandard block header: last flag, type, size.
    fn zstd_block(last: bool, kind: u32, size: u32) -> [u8; 3] {
        let h = (size << 3) | (kind << 1) | u32::from(last);
        [h as u8, (h >> 8) as u8, (h >> 16) as u8]
    }

    #[test]
    fn zstd_frames_are_bounded_by_content_size_or_blocks() {
        // Single segment, 1-byte content size 10, one raw block of 10 bytes.
        let mut f = ZSTD_MAGIC.to_le_bytes().to_vec();
        f.extend([0x20, 10]);
        f.extend(zstd_block(true, 0, 10));
        f.extend([7u8; 10]);
        assert_eq!(bound(&f, Codec::Zstd), Some(10));
        // No content size, window 1 KiB: an RLE block of 300 and a compressed block (at most
        // the window), then a checksum.
        let mut g = ZSTD_MAGIC.to_le_bytes().to_vec();
        g.extend([0x04, 0x00]);
        g.extend(zstd_block(false, 1, 300));
        g.push(b'x');
        g.extend(zstd_block(true, 2, 5));
        g.extend([0u8; 5]);
        g.extend([0u8; 4]);
        assert_eq!(bound(&g, Codec::Zstd), Some(300 + 1024));
        // Two frames and a skippable frame between them add up.
        let mut both = f.clone();
        both.extend((SKIPPABLE_MAGIC | 3).to_le_bytes());
        both.extend(2u32.to_le_bytes());
        both.extend([1, 2]);
        both.extend(&g);
        assert_eq!(bound(&both, Codec::Zstd), Some(10 + 300 + 1024));
        // A 2-byte content size counts from 256; a 4-byte dictionary id comes before it. Then
        // an 8-byte content size with a 1-byte id.
        let mut h = ZSTD_MAGIC.to_le_bytes().to_vec();
        h.extend([0x40 | 0x03, 0x00, 1, 2, 3, 4]);
        h.extend(44u16.to_le_bytes());
        h.extend(zstd_block(true, 1, 300));
        h.push(b'x');
        assert_eq!(bound(&h, Codec::Zstd), Some(300));
        let mut i = ZSTD_MAGIC.to_le_bytes().to_vec();
        i.extend([0xC0 | 0x01, 0x00, 9]);
        i.extend(5u64.to_le_bytes());
        i.extend(zstd_block(true, 0, 5));
        i.extend([0u8; 5]);
        assert_eq!(bound(&i, Codec::Zstd), Some(5));
        // Cut short, a reserved block type, another codec's magic: not followed.
        assert_eq!(bound(&f[..f.len() - 1], Codec::Zstd), None);
        let mut reserved = f.clone();
        reserved[6..9].copy_from_slice(&zstd_block(true, 3, 10));
        assert_eq!(bound(&reserved, Codec::Zstd), None);
        assert_eq!(bound(&f, Codec::Lz4Frame), None);
        // Which of them is no Zstandard at all, and which a decoder may still read.
        assert_eq!(walked(&reserved, Codec::Zstd), Walked::NotZstd);
        assert_eq!(walked(&f[..f.len() - 1], Codec::Zstd), Walked::NotZstd);
        assert_eq!(walked(&f, Codec::Lz4Frame), Walked::Unfollowed);
        // A legacy frame (v0.7) is no frame to this build's decoder either.
        let mut legacy = f.clone();
        legacy[..4].copy_from_slice(&0xFD2F_B527u32.to_le_bytes());
        assert_eq!(walked(&legacy, Codec::Zstd), Walked::NotZstd);
    }

    #[test]
    fn lz4_frames_are_bounded_by_content_size_or_blocks() {
        // 64 KiB blocks, block checksums, no content size: a compressed block of 3 bytes and a
        // stored one of 2, then the end mark.
        let mut f = LZ4_MAGIC.to_le_bytes().to_vec();
        f.extend([0x40 | 0x10, 0x40, 0]);
        f.extend(3u32.to_le_bytes());
        f.extend([0u8; 3 + 4]);
        f.extend((2u32 | 0x8000_0000).to_le_bytes());
        f.extend([0u8; 2 + 4]);
        f.extend(0u32.to_le_bytes());
        assert_eq!(bound(&f, Codec::Lz4Frame), Some((64 << 10) + 2));
        // With a content size of 5, that is the bound.
        let mut g = LZ4_MAGIC.to_le_bytes().to_vec();
        g.extend([0x40 | 0x08, 0x40]);
        g.extend(5u64.to_le_bytes());
        g.push(0);
        g.extend((5u32 | 0x8000_0000).to_le_bytes());
        g.extend([0u8; 5]);
        g.extend(0u32.to_le_bytes());
        assert_eq!(bound(&g, Codec::Lz4Frame), Some(5));
        // A dictionary id, block and content checksums, and a content size of 5.
        let mut h = LZ4_MAGIC.to_le_bytes().to_vec();
        h.extend([0x40 | 0x10 | 0x08 | 0x04 | 0x01, 0x70]);
        h.extend(5u64.to_le_bytes());
        h.extend([1, 2, 3, 4, 0]);
        h.extend(4u32.to_le_bytes());
        h.extend([0u8; 4 + 4]);
        h.extend(0u32.to_le_bytes());
        h.extend([0u8; 4]);
        assert_eq!(bound(&h, Codec::Lz4Frame), Some(5));
        assert_eq!(bound(&h[..h.len() - 1], Codec::Lz4Frame), None);
        // No end mark, or version 0: not followed.
        assert_eq!(bound(&f[..f.len() - 4], Codec::Lz4Frame), None);
        let mut old = g.clone();
        old[4] = 0x08;
        assert_eq!(bound(&old, Codec::Lz4Frame), None);
    }
}
