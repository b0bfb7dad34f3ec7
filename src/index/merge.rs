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
use crate::schema::FilterKind;

const GONE: u32 = u32::MAX;

/// Merges `parts` (segment and its tombstones), keeping their order.
pub fn merge_segments(
    parts: &[(&Segment, &DeleteSet)],
    n_fields: usize,
    kinds: &[FilterKind],
) -> Segment {
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
                .push(seg.docs.id(old).to_string(), seg.docs.stored_bytes(old));
            for f in 0..n_fields {
                out.field_lens.push(seg.field_len(old, f));
            }
        }
        for (value, docs) in &seg.namespaces.values {
            for &d in docs {
                if let Some(&new) = remap.get(d as usize).filter(|&&n| n != GONE) {
                    out.namespaces.push(new, value);
                }
            }
        }
        for (target, source) in out.columns.iter_mut().zip(&seg.columns) {
            merge_column(target, source, remap);
        }
        for (f, col) in seg.vectors.iter().enumerate() {
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
            let Some(&info) = seg.term_infos.get(hit.ordinal as usize) else {
                continue;
            };
            let mut cursor = seg.postings.cursor(info);
            while cursor.doc() != crate::postings::TERMINATED {
                let old = cursor.doc();
                if let Some(&new) = remap.get(old as usize).filter(|&&n| n != GONE) {
                    cursor.read_positions(&mut buf, &mut ranges);
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
        (Column::Links(t), Column::Links(s)) => t.extend(
            s.iter()
                .enumerate()
                .filter(|(d, _)| live(*d))
                .map(|(_, v)| v.clone()),
        ),
        _ => {}
    }
}
