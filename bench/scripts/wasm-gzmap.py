#!/usr/bin/env python3
# Measures what each part of a wasm costs after gzip: for each category of
# functions (by name: crate/module) and each data segment, zero its bytes,
# re-gzip (zlib -9) the stripped module and report the difference.
# Needs a build with the name section kept, e.g. `wasm-opt -Oz -g`; see
# BENCHMARKS.md "Bundle size". Usage: wasm-gzmap.py named.wasm [data-segment ...]
import sys, re, zlib, collections
data = bytearray(open(sys.argv[1], 'rb').read())
def leb(b, i):
    r = s = 0
    while True:
        x = b[i]; i += 1; r |= (x & 0x7f) << s; s += 7
        if x < 0x80: return r, i
i = 8; sections = []
while i < len(data):
    sid = data[i]; size, j = leb(data, i + 1); sections.append((sid, j, j + size)); i = j + size
n_imports = 0; names = {}; bodies = []; datas = []; data_names = {}
for sid, s, e in sections:
    if sid == 2:
        cnt, p = leb(data, s)
        for _ in range(cnt):
            l, p = leb(data, p); p += l; l, p = leb(data, p); p += l
            kind = data[p]; p += 1
            if kind == 0: _, p = leb(data, p); n_imports += 1
            elif kind == 1: p += 1; fl, p = leb(data, p); _, p = leb(data, p); p = leb(data, p)[1] if fl & 1 else p
            elif kind == 2: fl, p = leb(data, p); _, p = leb(data, p); p = leb(data, p)[1] if fl & 1 else p
            elif kind == 3: p += 2
    elif sid == 10:
        cnt, p = leb(data, s)
        for k in range(cnt):
            l, p = leb(data, p); bodies.append((n_imports + k, p, p + l)); p += l
    elif sid == 11:
        cnt, p = leb(data, s)
        for k in range(cnt):
            fl, p = leb(data, p)
            if fl == 0:
                while data[p] != 0x0b: p += 1
                p += 1
            elif fl == 2:
                _, p = leb(data, p)
                while data[p] != 0x0b: p += 1
                p += 1
            l, p = leb(data, p); datas.append((k, p, p + l)); p += l
    elif sid == 0:
        l, p = leb(data, s); nm = bytes(data[p:p + l]).decode(); p += l
        if nm != 'name': continue
        while p < e:
            sub = data[p]; sz, q = leb(data, p + 1); end = q + sz
            if sub in (1, 9):
                cnt, q = leb(data, q)
                for _ in range(cnt):
                    idx, q = leb(data, q); l, q = leb(data, q)
                    (names if sub == 1 else data_names)[idx] = bytes(data[q:q + l]).decode('utf8', 'replace'); q += l
            p = end
# Strip custom sections for the baseline.
stripped = bytearray(data[:8]); spans = []
for sid, s, e in sections:
    if sid == 0: continue
    hdr_start = s - 1
    while data[hdr_start] != sid or leb(data, hdr_start + 1)[1] != s: hdr_start -= 1
    off = len(stripped); stripped += data[hdr_start:e]; spans.append((hdr_start, e, off))
def remap(p):
    for a, b, off in spans:
        if a <= p < b: return off + p - a
def gz(b): return len(zlib.compress(bytes(b), 9))
base = gz(stripped)
def cat(name):
    n = re.sub(r'\[[0-9a-f]{16}\]', '', name)
    for pat, c in [(r'rust_stemmers', 'stemmers'), (r'slice::sort', 'sort'), (r'serde_json', 'serde_json'), (r'serde', 'serde'),
                   (r'alloc::collections::btree', 'btree'), (r'fst::|utf8_ranges', 'fst'), (r'js_sys|wasm_bindgen_futures', 'js_sys/futures'),
                   (r'f64|f32|float|flt2dec|dec2flt|core::num', 'float/num'), (r'core::fmt|alloc::fmt', 'fmt'),
                   (r'hashbrown', 'hashbrown'), (r'dlmalloc', 'dlmalloc'), (r'unicode_segmentation', 'unicode_seg'), (r'crc32c', 'crc32c'),
                   (r'memdex::([a-z_]+)', None), (r'^engine_|Engine|CommitHandle|shim', 'wasm glue'), (r'wasm_bindgen', 'wasm_bindgen')]:
        m = re.search(pat, n)
        if m: return c or 'memdex::' + m.group(1)
    return 'other'
groups = collections.defaultdict(list)
for idx, s, e in bodies: groups[cat(names.get(idx, '?'))].append((s, e))
for k, s, e in datas: groups['data:' + data_names.get(k, str(k))[:30]].append((s, e))
res = []
for g, spans_ in groups.items():
    b = bytearray(stripped)
    for s, e in spans_:
        rs = remap(s); b[rs:rs + (e - s)] = bytes(e - s)
    res.append((base - gz(b), sum(e - s for s, e in spans_), len(spans_), g))
print('baseline gz', base, 'raw', len(stripped))
for d, raw, n, g in sorted(res, reverse=True)[:45]: print(f'{d:7d} gz {raw:8d} raw {n:5d} {g}')
print('sum of parts', sum(r[0] for r in res))
if len(sys.argv) > 2:
    for k, s, e in datas:
        nm = data_names.get(k, str(k))
        if nm in sys.argv[2:]:
            print(nm, e - s, bytes(data[s:s+200]))
            txt = re.findall(rb'[ -~]{6,}', bytes(data[s:e]))
            print(len(txt), [t[:40] for t in txt[:30]])
