//! Merging segments: live documents of several segments, in order, into one
//! new segment. Postings are merged term by term (an ordered union of the
//! term dictionaries, no re-analysis), so the cost is linear in the size of
//! the merged segments.

use crate::postings::TermPostingsEncoder;
use crate::store::Column;
use crate::termdict::{TermDict, Union};

use super::deletes::DeleteSet;
use super::segment::{Segment, SegmentParts};
use super::surfaces::Surfaces;
use crate::schema::{FilterKind, ResolvedSchema};

const GONE: u32 = u32::MAX;

/// Where each field of the old schema is in the new one, by kind.
pub(crate) struct FieldMoves {
    pub text: Vec<usize>,
    pub filters: Vec<usize>,
    pub vectors: Vec<usize>,
}

impl FieldMoves {
    /// The moves from `old` to `new` (which keeps every field of `old`), or
    /// `None` when segments of `old` are already laid out as `new` wants.
    pub(crate) fn between(old: &ResolvedSchema, new: &ResolvedSchema) -> Option<FieldMoves> {
        let place = |name: &str| -> usize {
            match new.by_name.get(name) {
                Some(crate::schema::FieldRef::Text(i))
                | Some(crate::schema::FieldRef::Filter(i))
                | Some(crate::schema::FieldRef::Vector(i)) => *i,
                _ => usize::MAX,
            }
        };
        let moves = FieldMoves {
            text: old.text.iter().map(|f| place(&f.name)).collect(),
            filters: old.filters.iter().map(|f| place(&f.name)).collect(),
            vectors: old.vectors.iter().map(|f| place(&f.name)).collect(),
        };
        let identity =
            |m: &[usize], n: usize| m.len() == n && m.iter().enumerate().all(|(i, &j)| i == j);
        let same = identity(&moves.text, new.text.len())
            && identity(&moves.filters, new.filters.len())
            && identity(&moves.vectors, new.vectors.len());
        (!same).then_some(moves)
    }
}

/// Merges `parts` (segment and its tombstones), keeping their order.
pub fn merge_segments(
    parts: &[(&Segment, &DeleteSet)],
    n_fields: usize,
    kinds: &[FilterKind],
) -> Segment {
    merge_moved(parts, n_fields, kinds, None)
}

/// [`merge_segments`] of parts written under an older schema, whose
/// fields `moves` places in the new one (a schema upgrade; `None`: the
/// same schema). Columns of fields the parts lack are left missing.
pub(crate) fn merge_moved(
    parts: &[(&Segment, &DeleteSet)],
    n_fields: usize,
    kinds: &[FilterKind],
    moves: Option<&FieldMoves>,
) -> Segment {
    let text = |f: usize| moves.map_or(f, |m| m.text[f]);
    // Old local doc -> new doc id, per part.
    let mut remaps: Vec<Vec<u32>> = Vec::with_capacity(parts.len());
    let mut next = 0u32;
    for (seg, deletes) in parts {
        let remap = (0..seg.n_docs)
            .map(|d| {
                if deletes.contains(d) {
                    GONE
                } else {
                    next += 1;
                    next - 1
                }
            })
            .collect();
        remaps.push(remap);
    }

    let mut out = SegmentParts::new(n_fields, kinds);
    for ((seg, _), remap) in parts.iter().zip(&remaps) {
        for (old, &new) in remap.iter().enumerate() {
            if new == GONE {
                continue;
            }
            let old = old as u32;
            out.docs
                .push(seg.docs.id(old).to_string(), &seg.docs.stored_bytes(old));
            let row = out.field_lens.len();
            out.field_lens.resize(row + n_fields, 0);
            for f in 0..seg.n_fields {
                out.field_lens[row + text(f)] = seg.field_len(old, f);
            }
        }
        for (value, docs) in &seg.namespaces.values {
            for &d in docs {
                if let Some(&new) = remap.get(d as usize).filter(|&&n| n != GONE) {
                    out.namespaces.push(new, value);
                }
            }
        }
        for (f, source) in seg.columns.iter().enumerate() {
            if let Some(target) = out.columns.get_mut(moves.map_or(f, |m| m.filters[f])) {
                merge_column(target, source, remap);
            }
        }
        for column in out.columns.iter_mut() {
            pad_column(column, out.docs.len());
        }
        for (f, col) in seg.vectors.iter().enumerate() {
            let f = moves.map_or(f, |m| m.vectors[f]);
            for (i, &d) in col.docs.iter().enumerate() {
                if let Some(&new) = remap.get(d as usize).filter(|&&n| n != GONE) {
                    out.push_vector(f, new, col.row(i));
                }
            }
        }
    }

    let dicts: Vec<&TermDict> = parts.iter().map(|(seg, _)| &seg.terms).collect();
    let mut union = Union::new(&dicts);
    let mut terms = Vec::new();
    let mut buf = Vec::new();
    let mut ranges = Vec::new();
    // Per part: old term ordinal -> merged ordinal (GONE if dropped), and
    // the merged terms' document frequencies, for the surface words.
    let mut term_remaps: Vec<Vec<u32>> = parts
        .iter()
        .map(|(seg, _)| vec![GONE; seg.terms.len()])
        .collect();
    let mut doc_freqs = Vec::new();
    while let Some((term, hits)) = union.next_term() {
        let mut encoder = TermPostingsEncoder::new(n_fields);
        for hit in hits {
            let (seg, _) = parts[hit.dict];
            let remap = &remaps[hit.dict];
            let Some(info) = seg.term_info(hit.ordinal) else {
                continue;
            };
            let mut cursor = seg.cursor(info);
            while cursor.doc() != crate::postings::TERMINATED {
                let old = cursor.doc();
                if let Some(&new) = remap.get(old as usize).filter(|&&n| n != GONE) {
                    cursor.read_positions(&mut buf, &mut ranges);
                    if moves.is_some() {
                        move_ranges(&mut ranges, text);
                    }
                    let lens_start = new as usize * n_fields;
                    encoder.push(
                        new,
                        &buf,
                        &ranges,
                        &out.field_lens[lens_start..lens_start + n_fields],
                    );
                }
                cursor.advance();
            }
        }
        if encoder.doc_freq() > 0 {
            for hit in hits {
                if let Some(slot) = term_remaps[hit.dict].get_mut(hit.ordinal as usize) {
                    *slot = terms.len() as u32;
                }
            }
            doc_freqs.push(encoder.doc_freq());
            terms.push((String::from_utf8_lossy(term).into_owned(), encoder));
        }
    }
    // Segments without surface words (format v2) contribute their terms.
    let stand_ins: Vec<Option<Surfaces>> = parts
        .iter()
        .map(|(seg, _)| {
            (seg.surfaces.words.is_empty() && !seg.terms.is_empty()).then(|| {
                Surfaces::of_terms(&seg.terms, |ord| {
                    seg.term_infos.get(ord as usize).map_or(0, |i| i.doc_freq)
                })
            })
        })
        .collect();
    let surfaces: Vec<&Surfaces> = parts
        .iter()
        .zip(&stand_ins)
        .map(|((seg, _), stand_in)| stand_in.as_ref().unwrap_or(&seg.surfaces))
        .collect();
    let surfaces = Surfaces::merge(&surfaces, &term_remaps, &doc_freqs);
    let mut segment = Segment::assemble(out, terms);
    segment.surfaces = surfaces;
    segment
}

/// Renumbers the fields of a document's position ranges, keeping them
/// sorted by field (at most 32: an insertion sort, no new slice-sort
/// instantiation in the wasm).
fn move_ranges(ranges: &mut [(usize, usize, usize)], text: impl Fn(usize) -> usize) {
    for range in ranges.iter_mut() {
        range.0 = text(range.0);
    }
    for i in 1..ranges.len() {
        let mut j = i;
        while j > 0 && ranges[j - 1].0 > ranges[j].0 {
            ranges.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Fills a dense column up to `n_docs` documents with missing values (a
/// field the merged parts lack).
fn pad_column(column: &mut Column, n_docs: usize) {
    match column {
        Column::Keyword(_) => {}
        Column::Number(v) => v.resize(n_docs, f64::NAN),
        Column::Boolean(v) => v.resize(n_docs, 2),
        Column::Links(v) => v.pad(n_docs),
    }
}

fn merge_column(target: &mut Column, source: &Column, remap: &[u32]) {
    let live = |d: usize| remap.get(d).is_some_and(|&n| n != GONE);
    match (target, source) {
        (Column::Keyword(t), Column::Keyword(s)) => {
            for (value, docs) in &s.values {
                for &d in docs {
                    if live(d as usize) {
                        t.push(remap[d as usize], value);
                    }
                }
            }
        }
        (Column::Number(t), Column::Number(s)) => t.extend(
            s.iter()
                .enumerate()
                .filter(|(d, _)| live(*d))
                .map(|(_, v)| *v),
        ),
        (Column::Boolean(t), Column::Boolean(s)) => t.extend(
            s.iter()
                .enumerate()
                .filter(|(d, _)| live(*d))
                .map(|(_, v)| *v),
        ),
        (Column::Links(t), Column::Links(s)) => {
            for d in (0..s.len()).filter(|&d| live(d)) {
                t.push(s.get(d as u32).to_vec());
            }
        }
        _ => {}
    }
}
