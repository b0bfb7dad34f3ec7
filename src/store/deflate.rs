//! Raw deflate (RFC 1951, `miniz_oxide`) continuing a preset dictionary, as
//! zlib's: a stream's matches may reach back into the dictionary, so small
//! units (an id block, a doc store page) pack nearly as well as one stream
//! of the whole segment would. The ids and the doc store pages use it.

/// Deflate cannot expand more than 1032 to 1: a unit claiming more is
/// damaged, and refusing it bounds what a crafted blob can make us allocate.
pub const MAX_EXPANSION: u64 = 1032;

/// Preset dictionaries hold at most deflate's window.
pub const DICT_BYTES: usize = 32 * 1024;

/// Raw deflate of `raw` at `level`, continuing `dict`: the compressor takes
/// the dictionary with a sync flush, whose output is dropped; what follows
/// starts at a byte and a block.
pub fn pack(raw: &[u8], dict: &[u8], level: u8) -> Vec<u8> {
    use miniz_oxide::deflate::core::{
        compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
    };
    if dict.is_empty() {
        return miniz_oxide::deflate::compress_to_vec(raw, level);
    }
    let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(i32::from(level), -15, 0));
    let mut sink = vec![0; dict.len() + 1024];
    let _ = compress(&mut c, dict, &mut sink, TDEFLFlush::Sync);
    let mut out = vec![0; raw.len() + raw.len() / 8 + 1024];
    let (mut read, mut wrote) = (0, 0);
    loop {
        let (status, r, w) = compress(&mut c, &raw[read..], &mut out[wrote..], TDEFLFlush::Finish);
        read += r;
        wrote += w;
        match status {
            // More to write: room runs out, or nothing moved (then room is the cure).
            TDEFLStatus::Okay if wrote == out.len() || (r == 0 && w == 0) => {
                out.resize(out.len() * 2, 0)
            }
            TDEFLStatus::Okay => {}
            _ => break,
        }
    }
    out.truncate(wrote);
    out
}

/// Inflates `packed` ([`pack`]'s output after `dict`) into at most `limit`
/// bytes: `Ok` with all of them when the stream ends within the limit,
/// else `Err` with what came out first (a prefix, when it is not damaged).
pub fn unpack(packed: &[u8], dict: &[u8], limit: usize) -> Result<Vec<u8>, Vec<u8>> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;
    if dict.is_empty() {
        return miniz_oxide::inflate::decompress_to_vec_with_limit(packed, limit)
            .map_err(|e| e.output);
    }
    // The output starts as the dictionary, so matches reach it.
    let mut out = vec![0; dict.len() + limit];
    out[..dict.len()].copy_from_slice(dict);
    let mut r = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, _, wrote) = decompress(&mut r, packed, &mut out, dict.len(), flags);
    out.truncate(dict.len() + wrote);
    out.drain(..dict.len());
    match status {
        TINFLStatus::Done => Ok(out),
        _ => Err(out),
    }
}
