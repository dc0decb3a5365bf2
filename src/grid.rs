//! One puzzle: 81 cells in row-major order, parsed from and formatted to text.
//!
//! A cell holds `0` (blank) or a digit `1..=9`. Parsing accepts `1`-`9` as givens and `0` or `.` as
//! blanks; nothing else. It never panics, whatever the bytes: any problem is a [`ParseError`] that
//! names the 1-based position and the offending byte.

use std::fmt;

/// Number of cells in a grid.
pub const CELLS: usize = 81;

/// The 27 units as cell indices: rows 1-9, then columns 1-9, then boxes 1-9 (each box's cells in
/// row-major order).
pub const UNITS: [[u8; 9]; 27] = {
    let mut units = [[0u8; 9]; 27];
    let mut cell = 0;
    while cell < CELLS {
        let (r, c) = (cell / 9, cell % 9);
        units[r][c] = cell as u8;
        units[9 + c][r] = cell as u8;
        units[18 + r / 3 * 3 + c / 3][(r % 3) * 3 + c % 3] = cell as u8;
        cell += 1;
    }
    units
};

/// A 9x9 grid; `0` marks a blank cell.
///
/// Aligned to 16 bytes (96 in all, the last 15 padding) so that, on x86-64, the parse (six
/// 16-byte stores, the last holding cell 80 and the padding), the compiler's copies of a
/// record, the solver's reading of the givens and its writing of a solution use the same
/// 16-byte pieces: a load that spans pieces stored separately cannot take its bytes from stores
/// still in flight and waits for them (measured: the alignment alone took the whole process to
/// 0.97 of its time on a file of easy puzzles).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(16))]
pub struct Grid {
    cells: [u8; CELLS],
}

const _: () = assert!(std::mem::size_of::<Grid>() == 96 && std::mem::align_of::<Grid>() == 16);

/// Why a text is not a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant's message says what it is
#[non_exhaustive]
pub enum ParseError {
    /// The text does not have exactly 81 cells.
    #[error("expected 81 cells, found {found}")]
    Length { found: usize },
    /// A byte that is neither a digit nor a blank (`0` or `.`).
    #[error("character {} at position {position} is not a digit 1-9 or a blank (0 or .)", show_byte(*.byte))]
    BadByte { position: usize, byte: u8 },
    /// A character outside ASCII (an accented letter, a full-width digit) in a text of 81
    /// characters: its bytes are more than 81, but the count that would mislead is theirs.
    #[error(
        "character '{}' at position {position} is not a digit 1-9 or a blank (0 or .)",
        ch.escape_debug()
    )]
    BadChar { position: usize, ch: char },
}

/// Why a text of other than 81 bytes is not a grid: if it is 81 characters of UTF-8 (some of
/// them outside ASCII), its first character that is not a digit or a blank; else its length,
/// in characters where it is UTF-8 (an accented letter is one cell's worth), else in bytes.
#[cold]
fn length_error(text: &[u8]) -> ParseError {
    if let Ok(s) = std::str::from_utf8(text) {
        let found = s.chars().count();
        if found != CELLS {
            return ParseError::Length { found };
        }
        let (i, ch) = s
            .chars()
            .enumerate()
            .find(|(_, ch)| !matches!(ch, '0'..='9' | '.'))
            .expect("a character outside ASCII");
        return match u8::try_from(ch) {
            Ok(byte) if ch.is_ascii() => ParseError::BadByte {
                position: i + 1,
                byte,
            },
            _ => ParseError::BadChar {
                position: i + 1,
                ch,
            },
        };
    }
    ParseError::Length { found: text.len() }
}

fn show_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("'{}'", byte as char)
    } else {
        format!("0x{byte:02x}")
    }
}

/// A kind of unit: nine cells that must hold each digit once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A row.
    Row,
    /// A column.
    Column,
    /// A 3x3 box.
    Box,
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::Row => "row",
            Unit::Column => "column",
            Unit::Box => "box",
        })
    }
}

/// A digit that appears twice in one unit; `index` is the unit's 1-based number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clash {
    /// The digit that appears twice.
    pub digit: u8,
    /// The kind of unit it appears twice in.
    pub unit: Unit,
    /// Which unit of that kind, 1-based.
    pub index: usize,
}

/// The grid of 81 bytes (`1`-`9` givens, `0` or `.` blanks), or `None` if any byte is
/// something else. Every record of a run passes through here, so on x86-64 it takes the first
/// 80 bytes sixteen at a time with SSE2 (part of the x86-64 baseline, so no run-time check),
/// and stores the grid as six aligned 16-byte pieces, the last (cell 80 and the padding) in one
/// store too: what reads the grid next loads those pieces, and a load that spans a one-byte
/// store in flight waits for it (docs/benchmarks.md, "The record's tag").
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn grid_of(text: &[u8; CELLS]) -> Option<Grid> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi32_si128, _mm_loadu_si128, _mm_min_epu8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_store_si128, _mm_sub_epi8,
    };
    let mut grid = std::mem::MaybeUninit::<Grid>::uninit();
    let (last, ok_last) = cell_of(text[CELLS - 1]);
    // SAFETY: the build enables SSE2 (the cfg above). Each unaligned 16-byte load reads
    // `text[at..at + 16]` with `at + 16 <= 80`; the six aligned stores cover exactly the grid's
    // 96 bytes (asserted at `Grid`, aligned to 16), its padding included, which may hold any
    // byte. So every cell is written before `assume_init`.
    unsafe {
        let out = grid.as_mut_ptr().cast::<__m128i>();
        let mut ok = _mm_set1_epi8(-1);
        for (piece, at) in (0..CELLS - 1).step_by(16).enumerate() {
            let bytes = _mm_loadu_si128(text.as_ptr().add(at).cast::<__m128i>());
            let digit = _mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8));
            // `0`-`9` exactly when the wrapped difference is at most 9 (unsigned).
            let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit);
            let is_dot = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'.' as i8));
            ok = _mm_and_si128(ok, _mm_or_si128(is_digit, is_dot));
            _mm_store_si128(out.add(piece), _mm_and_si128(digit, is_digit));
        }
        // Cell 80 in lane 0, the padding zero.
        _mm_store_si128(out.add(5), _mm_cvtsi32_si128(i32::from(last)));
        (_mm_movemask_epi8(ok) == 0xFFFF && ok_last).then(|| grid.assume_init())
    }
}

/// One byte's cell value (`0` for a blank or a bad byte), and whether it is a cell byte.
#[inline(always)]
fn cell_of(b: u8) -> (u8, bool) {
    let digit = b.wrapping_sub(b'0');
    if digit > 9 {
        (0, b == b'.')
    } else {
        (digit, true)
    }
}

/// The three units of each cell, as unit indices: its row (0-8), column (9-17) and box (18-26).
pub(crate) const CELL_UNITS: [[u8; 3]; CELLS] = {
    let mut t = [[0u8; 3]; CELLS];
    let mut c = 0;
    while c < CELLS {
        t[c] = [
            (c / 9) as u8,
            (9 + c % 9) as u8,
            (18 + c / 27 * 3 + c % 9 / 3) as u8,
        ];
        c += 1;
    }
    t
};

/// Per cell, its three units (`CELL_UNITS`) as bits of one mask.
const CELL_UNIT_BITS: [u32; CELLS] = {
    let mut t = [0; CELLS];
    let mut c = 0;
    while c < CELLS {
        let [row, column, square] = CELL_UNITS[c];
        t[c] = 1 << row | 1 << column | 1 << square;
        c += 1;
    }
    t
};

/// Bit `i` set where cell `i` holds a digit: sparse grids are walked by their givens alone.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn givens_mask(cells: &[u8; CELLS]) -> u128 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
    };
    let mut blanks = u128::from(cells[CELLS - 1] == 0) << (CELLS - 1);
    for at in (0..CELLS - 1).step_by(16) {
        // SAFETY: the build enables SSE2 (the cfg above), and `at + 16 <= 80`, so each
        // unaligned 16-byte load stays inside the 81-byte array.
        let zero = unsafe {
            let bytes = _mm_loadu_si128(cells.as_ptr().add(at).cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128()))
        };
        blanks |= u128::from(zero as u16) << at;
    }
    !blanks & (u128::MAX >> (128 - CELLS))
}

/// The portable form of the above.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
pub(crate) fn givens_mask(cells: &[u8; CELLS]) -> u128 {
    cells
        .iter()
        .enumerate()
        .fold(0, |mask, (i, &v)| mask | u128::from(v != 0) << i)
}

/// The portable form of `grid_of` above: branch-free, so the compiler may vectorize it.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn grid_of(text: &[u8; CELLS]) -> Option<Grid> {
    let mut cells = [0u8; CELLS];
    let mut ok = true;
    for (&b, cell) in text.iter().zip(cells.iter_mut()) {
        let (value, is_cell) = cell_of(b);
        *cell = value;
        ok &= is_cell;
    }
    ok.then_some(Grid { cells })
}

/// Cell values from four bit planes, one cell at a time (see `Grid::set_from_planes`).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn cells_from_planes(planes: [u128; 4]) -> [u8; CELLS] {
    std::array::from_fn(|c| (0..4).map(|p| ((planes[p] >> c & 1) as u8) << p).sum())
}

impl Grid {
    /// The all-blank grid.
    pub const EMPTY: Grid = Grid { cells: [0; CELLS] };

    /// Builds a grid from cell values; any value above 9 is an error naming its position.
    pub fn from_cells(cells: [u8; CELLS]) -> Result<Grid, ParseError> {
        match cells.iter().position(|&v| v > 9) {
            Some(i) => Err(ParseError::BadByte {
                position: i + 1,
                byte: cells[i],
            }),
            None => Ok(Grid { cells }),
        }
    }

    /// [`Grid::from_cells`] for values the caller built to be at most 9 (checked in debug
    /// builds only): the canonical form, whose labels are, costs no scan.
    #[inline]
    pub(crate) fn from_values(cells: [u8; CELLS]) -> Grid {
        debug_assert!(cells.iter().all(|&v| v <= 9));
        Grid { cells }
    }

    /// Sets every cell from four bit planes: bit `c` of `planes[p]` is bit `p` of cell `c`'s
    /// value, which must be at most 9 (bits from 81 up must be clear). The solver reads its
    /// solution out this way: four masks built with a few ORs of its digit masks, where one
    /// store per cell cost it about 500 instructions a puzzle.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline]
    pub(crate) fn set_from_planes(&mut self, planes: [u128; 4]) {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_set_epi64x, _mm_setr_epi8,
            _mm_setzero_si128, _mm_store_si128, _mm_sub_epi8, _mm_unpackhi_epi16,
            _mm_unpackhi_epi32, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
            _mm_unpacklo_epi8,
        };
        debug_assert!(
            planes.iter().all(|&p| p >> CELLS == 0),
            "no cell past the 81st"
        );
        // SAFETY: the build enables SSE2 (the cfg above). The six aligned 16-byte stores cover
        // exactly the grid's 96 bytes (asserted above), its padding included, which may hold any
        // byte; `&mut self` makes them all writable.
        unsafe {
            // Lanes 0-7 of a piece test bits 0-7 of one byte of a plane, lanes 8-15 of the next.
            let bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
            let mut pieces = [_mm_setzero_si128(); 6];
            for &plane in planes.iter().rev() {
                let bytes = _mm_set_epi64x((plane >> 64) as i64, plane as i64);
                // Each of the plane's bytes 0-11 spread over eight lanes: piece `j` (cells
                // 16j..16j+15) needs bytes 2j and 2j+1.
                let low = _mm_unpacklo_epi8(bytes, bytes);
                let high = _mm_unpackhi_epi8(bytes, bytes);
                let quads = [
                    _mm_unpacklo_epi16(low, low),
                    _mm_unpackhi_epi16(low, low),
                    _mm_unpacklo_epi16(high, high),
                ];
                for (j, piece) in pieces.iter_mut().enumerate() {
                    let spread = match j % 2 {
                        0 => _mm_unpacklo_epi32(quads[j / 2], quads[j / 2]),
                        _ => _mm_unpackhi_epi32(quads[j / 2], quads[j / 2]),
                    };
                    // All ones (-1) where the cell's bit is set: value = 2 * value + bit, the
                    // highest plane first.
                    let set = _mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit);
                    *piece = _mm_sub_epi8(_mm_add_epi8(*piece, *piece), set);
                }
            }
            let out = (self as *mut Grid).cast::<__m128i>();
            for (j, piece) in pieces.into_iter().enumerate() {
                _mm_store_si128(out.add(j), piece);
            }
        }
    }

    /// The portable form of `set_from_planes` above.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline]
    pub(crate) fn set_from_planes(&mut self, planes: [u128; 4]) {
        self.cells = cells_from_planes(planes);
    }

    /// [`Grid::parse`] of exactly 81 bytes, `None` where it would be an error: the per-record
    /// loop's parse of a bare puzzle line, inlined there so that the grid is stored where the
    /// loop answers it, not returned and copied.
    #[inline(always)]
    pub(crate) fn parse_exact(text: &[u8; CELLS]) -> Option<Grid> {
        grid_of(text)
    }

    /// Parses exactly 81 bytes: `1`-`9` are givens, `0` and `.` are blanks.
    pub fn parse(text: &[u8]) -> Result<Grid, ParseError> {
        if text.len() != CELLS {
            return Err(length_error(text));
        }
        let text: &[u8; CELLS] = text.try_into().expect("81 bytes");
        match grid_of(text) {
            Some(grid) => Ok(grid),
            // The slow walk only runs to name the bad byte.
            None => {
                let position = text
                    .iter()
                    .position(|&b| !matches!(b, b'0'..=b'9' | b'.'))
                    .expect("a bad byte was seen");
                // 81 bytes of UTF-8 with a character outside ASCII are fewer characters.
                if !text.is_ascii() && std::str::from_utf8(text).is_ok() {
                    return Err(length_error(text));
                }
                Err(ParseError::BadByte {
                    position: position + 1,
                    byte: text[position],
                })
            }
        }
    }

    /// The cell values, row-major; `0` is blank.
    pub fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }

    /// The value at `row`, `col` (both `0..9`).
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * 9 + col]
    }

    /// Number of givens (non-blank cells).
    pub fn givens(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// Writes the 81 cells as ASCII digits (`0` for blanks) into `out`.
    pub fn write_digits(&self, out: &mut [u8; CELLS]) {
        for (o, &v) in out.iter_mut().zip(self.cells.iter()) {
            *o = b'0' + v;
        }
    }

    /// Appends the 81 cells as ASCII digits (`0` for blanks) and a line end: every answer line
    /// of a run passes through here, so the digits go straight into the vector's spare room
    /// (filling the line first and then writing the digits over it, through `write_digits`,
    /// measured 9 instructions more per line).
    #[inline]
    pub fn write_line(&self, out: &mut Vec<u8>) {
        out.reserve(CELLS + 1);
        let start = out.len();
        let line = &mut out.spare_capacity_mut()[..CELLS + 1];
        for (o, &v) in line.iter_mut().zip(self.cells.iter()) {
            o.write(b'0' + v);
        }
        line[CELLS].write(b'\n');
        // SAFETY: the 82 bytes past `start` were reserved and have just been written.
        unsafe { out.set_len(start + CELLS + 1) };
    }

    /// The grid as an 81-digit line (`0` for blanks), without a newline.
    pub fn to_line(&self) -> String {
        let mut out = [0u8; CELLS];
        self.write_digits(&mut out);
        out.iter().map(|&b| b as char).collect()
    }

    /// True if no digit appears twice in a row, column or box (blanks allowed).
    pub fn is_consistent(&self) -> bool {
        self.first_clash().is_none()
    }

    /// The first digit (in row-major order of cells) that appears twice in a unit.
    pub fn first_clash(&self) -> Option<Clash> {
        // Most grids have no clash: one pass over the givens alone says so, and only a grid
        // with a clash is walked again to name it.
        // Per digit, the units it was seen in, one bit each (`CELL_UNIT_BITS`).
        let mut seen = [0u32; 10];
        let givens = givens_mask(&self.cells);
        for (base, mut half) in [(0, givens as u64), (64, (givens >> 64) as u64)] {
            while half != 0 {
                let i = base + half.trailing_zeros() as usize;
                half &= half - 1;
                let units = CELL_UNIT_BITS[i];
                let seen = &mut seen[usize::from(self.cells[i])];
                if *seen & units != 0 {
                    return self.name_first_clash();
                }
                *seen |= units;
            }
        }
        None
    }

    /// [`Grid::first_clash`] on a grid that has one: names it, cell by cell.
    #[cold]
    fn name_first_clash(&self) -> Option<Clash> {
        let mut seen = [0u16; 27];
        for (i, &v) in self.cells.iter().enumerate() {
            if v == 0 {
                continue;
            }
            let bit = 1u16 << v;
            let units = [
                (Unit::Row, i / 9),
                (Unit::Column, i % 9),
                (Unit::Box, (i / 27) * 3 + (i % 9) / 3),
            ];
            for (k, (unit, index)) in units.into_iter().enumerate() {
                let slot = &mut seen[9 * k + index];
                if *slot & bit != 0 {
                    return Some(Clash {
                        digit: v,
                        unit,
                        index: index + 1,
                    });
                }
                *slot |= bit;
            }
        }
        None
    }

    /// True if every cell is filled and no digit repeats in a unit.
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&v| v != 0) && self.is_consistent()
    }

    /// True if `self` is a complete valid grid that keeps every given of `puzzle`.
    pub fn solves(&self, puzzle: &Grid) -> bool {
        self.is_complete()
            && puzzle
                .cells
                .iter()
                .zip(self.cells.iter())
                .all(|(&p, &s)| p == 0 || p == s)
    }
}

impl Default for Grid {
    fn default() -> Self {
        Grid::EMPTY
    }
}

impl fmt::Display for Grid {
    /// The 81-digit line form, `0` for blanks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

impl std::str::FromStr for Grid {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Grid, ParseError> {
        Grid::parse(s.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_cover_every_cell_three_times() {
        let mut seen = [0; CELLS];
        for unit in UNITS.iter() {
            for &c in unit {
                seen[c as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 3));
        assert_eq!(UNITS[18 + 4], [30, 31, 32, 39, 40, 41, 48, 49, 50]);
    }

    #[test]
    fn parse_accepts_dots_and_zeros() {
        let text = format!("1.3{}", "0".repeat(78));
        let g = Grid::parse(text.as_bytes()).unwrap();
        assert_eq!(g.get(0, 0), 1);
        assert_eq!(g.get(0, 1), 0);
        assert_eq!(g.get(0, 2), 3);
        assert_eq!(g.givens(), 2);
        assert_eq!(g.to_line(), format!("103{}", "0".repeat(78)));
    }

    /// Every byte value at every position, against a one-byte-at-a-time reading of the rule:
    /// the vector parse handles its 16-byte chunks and its last byte alike, in `parse` and in
    /// the per-record loop's `parse_exact`.
    #[test]
    fn parse_agrees_with_the_rule_for_every_byte_at_every_position() {
        let base =
            b"53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        for position in 0..CELLS {
            for byte in 0..=255u8 {
                let mut text = *base;
                text[position] = byte;
                let expected = match byte {
                    b'0'..=b'9' | b'.' => {
                        let mut cells = [0u8; CELLS];
                        for (cell, &b) in cells.iter_mut().zip(text.iter()) {
                            *cell = if b == b'.' { 0 } else { b - b'0' };
                        }
                        Ok(cells)
                    }
                    _ => Err(ParseError::BadByte {
                        position: position + 1,
                        byte,
                    }),
                };
                assert_eq!(
                    Grid::parse_exact(&text).map(|g| g.cells),
                    expected.ok(),
                    "byte {byte} at {position}, the per-record loop's parse"
                );
                assert_eq!(
                    Grid::parse(&text).map(|g| g.cells),
                    expected,
                    "byte {byte} at {position}"
                );
            }
        }
    }

    #[test]
    fn set_from_planes_writes_each_cells_value() {
        let mut rng = crate::rng::SplitMix64(7);
        for round in 0..500 {
            let mut cells = [0u8; CELLS];
            for cell in &mut cells {
                *cell = (rng.next_u64() % 10) as u8;
            }
            if round == 0 {
                cells = [9; CELLS];
            }
            let mut planes = [0u128; 4];
            for (c, &v) in cells.iter().enumerate() {
                for (p, plane) in planes.iter_mut().enumerate() {
                    *plane |= u128::from(v >> p & 1) << c;
                }
            }
            let mut grid = Grid::parse(&[b'5'; CELLS]).unwrap();
            grid.set_from_planes(planes);
            assert_eq!(grid.cells(), &cells);
            assert_eq!(cells_from_planes(planes), cells);
            assert_eq!(grid, Grid::from_cells(cells).unwrap());
        }
    }

    #[test]
    fn write_line_appends_digits_and_a_line_end() {
        let g = Grid::parse(
            b"534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .unwrap();
        // Appended after what the buffer holds, whether or not it has room already.
        for room in [0, 1, CELLS, CELLS + 1, 4096] {
            let mut out = Vec::with_capacity(3 + room);
            out.extend_from_slice(b"ab\n");
            g.write_line(&mut out);
            g.write_line(&mut out);
            let line = format!("{}\n", g.to_line());
            assert_eq!(out, format!("ab\n{line}{line}").as_bytes());
        }
    }

    #[test]
    fn parse_errors_name_position_and_byte() {
        assert_eq!(Grid::parse(b"123"), Err(ParseError::Length { found: 3 }));
        let mut text = vec![b'.'; 81];
        text[40] = 0;
        assert_eq!(
            Grid::parse(&text),
            Err(ParseError::BadByte {
                position: 41,
                byte: 0
            })
        );
        let msg = Grid::parse(&text).unwrap_err().to_string();
        assert!(msg.contains("position 41") && msg.contains("0x00"), "{msg}");
        // 81 characters, one of them two or three bytes: that character is named, not the bytes
        // counted; other lengths stay lengths.
        for ch in ['é', '５'] {
            let text = format!("{}{ch}{}", ".".repeat(40), ".".repeat(40));
            assert_eq!(
                Grid::parse(text.as_bytes()),
                Err(ParseError::BadChar { position: 41, ch })
            );
            let msg = Grid::parse(text.as_bytes()).unwrap_err().to_string();
            assert!(msg.contains(&format!("'{ch}' at position 41")), "{msg}");
            // Characters that print as nothing are escaped.
            let hidden = text.replace(ch, "\u{a0}");
            let msg = Grid::parse(hidden.as_bytes()).unwrap_err().to_string();
            assert!(msg.contains("'\\u{a0}' at position 41"), "{msg}");
            // The first bad character is named, ASCII or not.
            let earlier = format!("x{}", &text[1..]);
            assert_eq!(
                Grid::parse(earlier.as_bytes()),
                Err(ParseError::BadByte {
                    position: 1,
                    byte: b'x'
                })
            );
            // Other lengths are counted in characters: 82 here, and 80 for 81 bytes of which
            // the last two are one character.
            let longer = format!("{text}.");
            assert_eq!(
                Grid::parse(longer.as_bytes()),
                Err(ParseError::Length { found: 82 })
            );
            let short = format!("{}{ch}", ".".repeat(CELLS - ch.len_utf8()));
            assert_eq!(short.len(), CELLS);
            assert_eq!(
                Grid::parse(short.as_bytes()),
                Err(ParseError::Length {
                    found: CELLS + 1 - ch.len_utf8()
                })
            );
            // Whichever bad character comes first.
            let first_x = format!("x{}{ch}", ".".repeat(CELLS - 1 - ch.len_utf8()));
            assert_eq!(
                Grid::parse(first_x.as_bytes()),
                Err(ParseError::Length {
                    found: CELLS + 1 - ch.len_utf8()
                })
            );
            // Bytes that are not UTF-8 are counted as bytes, and an 81st is named as one.
            let mut latin1 = vec![b'.'; CELLS];
            latin1[40] = 0xe9;
            assert_eq!(
                Grid::parse(&latin1),
                Err(ParseError::BadByte {
                    position: 41,
                    byte: 0xe9
                })
            );
            latin1.push(b'.');
            assert_eq!(Grid::parse(&latin1), Err(ParseError::Length { found: 82 }));
        }
    }

    #[test]
    fn first_clash_names_the_first_repeat_in_cell_order() {
        // Random grids from one given to full (up to 400 random placements): the mask of givens,
        // whether there is a clash, and which one is named, against a check of every earlier
        // cell of each cell's units.
        let mut rng = crate::rng::SplitMix64(7);
        for case in 0..20_000u64 {
            let mut cells = [0u8; CELLS];
            for _ in 0..case % 400 + 1 {
                let i = (rng.next_u64() % CELLS as u64) as usize;
                cells[i] = (rng.next_u64() % 10) as u8;
            }
            let expected_mask = (0..CELLS).fold(0u128, |m, i| m | u128::from(cells[i] != 0) << i);
            assert_eq!(givens_mask(&cells), expected_mask, "{cells:?}");
            let units = |i: usize| [i / 9, i % 9, i / 27 * 3 + i % 9 / 3];
            let expected = (0..CELLS).filter(|&i| cells[i] != 0).find_map(|i| {
                let kinds = [Unit::Row, Unit::Column, Unit::Box];
                (0..3).find_map(|k| {
                    let repeated =
                        (0..i).any(|e| cells[e] == cells[i] && units(e)[k] == units(i)[k]);
                    repeated.then(|| Clash {
                        digit: cells[i],
                        unit: kinds[k],
                        index: units(i)[k] + 1,
                    })
                })
            });
            assert_eq!(
                Grid::from_cells(cells).unwrap().first_clash(),
                expected,
                "{cells:?}"
            );
        }
    }

    #[test]
    fn consistency_detects_clashes_in_each_unit() {
        let mut row = [0u8; 81];
        row[0] = 5;
        row[8] = 5;
        assert!(!Grid::from_cells(row).unwrap().is_consistent());
        let mut col = [0u8; 81];
        col[0] = 5;
        col[72] = 5;
        assert!(!Grid::from_cells(col).unwrap().is_consistent());
        let mut bx = [0u8; 81];
        bx[0] = 5;
        bx[20] = 5;
        assert!(!Grid::from_cells(bx).unwrap().is_consistent());
        let mut ok = [0u8; 81];
        ok[0] = 5;
        ok[30] = 5;
        assert!(Grid::from_cells(ok).unwrap().is_consistent());
    }
}
