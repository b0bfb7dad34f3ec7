//! The structure of `src/` as a graph of files, and the rules it must keep:
//! no import cycle between files, no hand-written file over 700 lines, no
//! `too_many_arguments` escape.
//!
//! An edge `a -> b` means file `a` names an item of module `b` by path
//! (`use crate::x::y`, `super::z::f(..)`, `crate::x::T` in an expression).
//! A folder's `mod.rs` (and `lib.rs`) declares, composes and re-exports its
//! children, so its paths into them are not edges; a child naming its
//! parent's items is. The rule thus forbids cycles between siblings and
//! across folders, the ones that tangle layers. Paths
//! are resolved to the deepest module file that exists, so `crate::index::Index`
//! is an edge to `src/index/mod.rs` and `crate::index::segment::Segment` one to
//! `src/index/segment.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files generated from data (their generator is named in their header).
const GENERATED: &[&str] = &[
    "src/analysis/stopwords_data.rs",
    "src/analysis/unicode_tables.rs",
];
const MAX_LINES: usize = 700;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Module path of a file: `src/index/mod.rs` -> ["index"], `src/lib.rs` -> [].
fn module_of(rel: &str) -> Vec<String> {
    let rel = rel
        .strip_prefix("src/")
        .unwrap()
        .strip_suffix(".rs")
        .unwrap();
    let mut parts: Vec<String> = rel.split('/').map(String::from).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    if parts.first().map(String::as_str) == Some("bin") {
        return vec![]; // binaries are crate roots of their own
    }
    parts
}

/// The text with comments and string literals blanked (paths in docs and
/// messages are not dependencies).
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            i = end;
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if text[i..].starts_with("r#\"") {
            let end = text[i + 3..]
                .find("\"#")
                .map_or(bytes.len(), |e| i + 3 + e + 2);
            i = end;
            out.push(' ');
        } else {
            let c = text[i..].chars().next().unwrap();
            // Char literals holding a quote or a brace would open a fake
            // string or unbalance the module nesting.
            if c == '\''
                && ["'\"'", "'{'", "'}'"]
                    .iter()
                    .any(|l| text[i..].starts_with(l))
            {
                i += 3;
                out.push(' ');
                continue;
            }
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every module path a file names, with `use` groups expanded one level
/// (`use super::{a, b::C}` names `super::a` and `super::b::C`).
/// Each path comes with the inline modules (`mod tests { .. }`) it sits in.
/// `children` are the modules the file declares (`mod x;`): a path may
/// start with one of them (`use x::T`, `x::f()`), relative to the file.
fn named_paths(code: &str, children: &[String]) -> Vec<(Vec<String>, Vec<String>)> {
    let mut paths = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<char> = code.chars().collect();
    // (module name, brace depth inside it)
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' => {
                depth += 1;
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
            }
            '}' => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            ';' => pending_mod = None,
            _ => {}
        }
        let word_start = i == 0 || !ident(chars[i - 1]);
        if word_start && chars[i..].starts_with(&['m', 'o', 'd', ' ']) {
            let name: String = chars[i + 4..].iter().take_while(|c| ident(**c)).collect();
            if !name.is_empty() {
                pending_mod = Some(name);
            }
        }
        let scope: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
        let at_word_start = i == 0 || !(ident(chars[i - 1]) || chars[i - 1] == ':');
        let rest: String = chars[i..chars.len().min(i + 64)].iter().collect();
        let rooted = ["crate::", "super::", "self::"]
            .iter()
            .any(|r| rest.starts_with(r))
            || children.iter().any(|c| rest.starts_with(&format!("{c}::")));
        if at_word_start && rooted {
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && ident(chars[j]) {
                    j += 1;
                }
                if j == start {
                    break;
                }
                segs.push(chars[start..j].iter().collect::<String>());
                if j + 1 < chars.len() && chars[j] == ':' && chars[j + 1] == ':' {
                    j += 2;
                } else {
                    break;
                }
            }
            if j < chars.len() && chars[j] == '{' {
                let close = chars[j..]
                    .iter()
                    .position(|&c| c == '}')
                    .map_or(chars.len(), |p| j + p);
                let group: String = chars[j + 1..close].iter().collect();
                for item in group.split(',') {
                    let mut full = segs.clone();
                    full.extend(
                        item.trim()
                            .split("::")
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.is_empty()),
                    );
                    paths.push((scope.clone(), full));
                }
                i = close;
            } else {
                paths.push((scope, segs));
                i = j;
            }
        }
        i += 1;
    }
    paths
}

struct Tree {
    /// module path -> file
    files: BTreeMap<Vec<String>, String>,
    /// module path -> item name -> the absolute path it re-exports
    /// (`pub use child::Item` in a folder's module).
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

impl Tree {
    /// The file an absolute path lands in: the deepest module file, or,
    /// when that module re-exports the item, the file the item comes from
    /// (a facade does not hide a dependency on its child).
    fn resolve(&self, path: &[String]) -> Option<&String> {
        self.resolve_within(path, 8)
    }

    fn resolve_within(&self, path: &[String], hops: u32) -> Option<&String> {
        let n = (0..=path.len())
            .rev()
            .find(|n| self.files.contains_key(&path[..*n]))?;
        if let (Some(item), true) = (path.get(n), hops > 0) {
            if let Some(source) = self.reexports.get(&path[..n]).and_then(|r| r.get(item)) {
                let mut through = source.clone();
                through.extend(path[n + 1..].iter().cloned());
                return self.resolve_within(&through, hops - 1);
            }
        }
        self.files.get(&path[..n])
    }
}

/// File -> the files it names.
type Edges = BTreeMap<String, BTreeSet<String>>;
/// (path, lines, text) of every source file.
type Sources = Vec<(String, usize, String)>;

/// One parsed source file.
struct Source {
    name: String,
    here: Vec<String>,
    text: String,
    /// Every path it names, absolute.
    paths: Vec<Vec<String>>,
    /// The absolute paths of its `pub use` items.
    reexports: BTreeMap<String, Vec<String>>,
}

/// A path as the file at module `here` (inside inline modules `scope`)
/// names it, made absolute.
fn absolute(here: &[String], scope: Vec<String>, named: &[String]) -> Vec<String> {
    let mut base = here.to_vec();
    base.extend(scope);
    let supers = named.iter().take_while(|s| *s == "super").count();
    let mut absolute = match named[0].as_str() {
        "crate" => vec![],
        "self" => base,
        "super" => {
            base.truncate(base.len().saturating_sub(supers));
            base
        }
        // A child module of this file.
        _ => {
            base.push(named[0].clone());
            base
        }
    };
    absolute.extend(named[supers.max(1)..].iter().cloned());
    absolute
}

fn parse(name: String, text: String) -> Source {
    let here = module_of(&name);
    let code = code_only(&text);
    let children: Vec<String> = code
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(|n| n.trim().to_string())
        })
        .collect();
    let paths = named_paths(&code, &children)
        .into_iter()
        .map(|(scope, named)| absolute(&here, scope, &named))
        .collect();
    let mut reexports = BTreeMap::new();
    // Statements, not lines: rustfmt spreads a long `use` group over many.
    for statement in code.split(';') {
        // The statement starts on the last line that opens with `pub use`.
        let Some(rest) = statement.lines().rev().find_map(|l| {
            let start = statement.find(l)?;
            let l = l.trim_start();
            l.strip_prefix("pub use ")
                .or_else(|| l.strip_prefix("pub(crate) use "))
                .map(|_| statement[start..].trim_start())
        }) else {
            continue;
        };
        let rest = rest.split_once("use ").map_or(rest, |(_, r)| r);
        for (scope, named) in named_paths(rest, &children) {
            let path = absolute(&here, scope, &named);
            if let Some(item) = path.last().filter(|i| *i != "*") {
                reexports.insert(item.clone(), path.clone());
            }
        }
    }
    Source {
        name,
        here,
        text,
        paths,
        reexports,
    }
}

fn graph() -> (Edges, Sources) {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let sources: Vec<Source> = files
        .iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            parse(name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    // Binaries are crate roots of their own.
    let library = || sources.iter().filter(|s| !s.name.starts_with("src/bin/"));
    let tree = Tree {
        files: library()
            .map(|s| (s.here.clone(), s.name.clone()))
            .collect(),
        reexports: library()
            .map(|s| (s.here.clone(), s.reexports.clone()))
            .collect(),
    };
    let mut edges = Edges::new();
    for source in library() {
        for path in &source.paths {
            let Some(target) = tree.resolve(path) else {
                continue;
            };
            // A folder's module composes and re-exports its children:
            // naming their items is its interface, not a dependency.
            let t = module_of(target);
            let descendant = t.len() > source.here.len() && t.starts_with(&source.here);
            if *target != source.name && !descendant {
                edges
                    .entry(source.name.clone())
                    .or_default()
                    .insert(target.clone());
            }
        }
    }
    let facts = sources
        .into_iter()
        .map(|s| (s.name, s.text.lines().count(), s.text))
        .collect();
    (edges, facts)
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(out) = s.edges.get(v) {
            for w in out {
                if !s.index.contains_key(w.as_str()) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w.as_str()]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w.as_str()) {
                    let low = s.low[v].min(s.index[w.as_str()]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_import_cycle_between_source_files() {
    let (edges, _) = graph();
    let found = cycles(&edges);
    let report: Vec<String> = found
        .iter()
        .map(|c| {
            let members: BTreeSet<&String> = c.iter().collect();
            let inner: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    edges[a]
                        .iter()
                        .filter(|b| members.contains(b))
                        .map(move |b| format!("    {a} -> {b}"))
                })
                .collect();
            format!("  cycle of {} files:\n{}", c.len(), inner.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles in src/ (move the shared items down a layer):\n{}",
        report.join("\n")
    );
}

#[test]
fn no_hand_written_file_is_too_long_or_takes_too_many_arguments() {
    let (_, facts) = graph();
    let too_long: Vec<String> = facts
        .iter()
        .filter(|(name, lines, _)| *lines > MAX_LINES && !GENERATED.contains(&name.as_str()))
        .map(|(name, lines, _)| format!("{name}: {lines} lines"))
        .collect();
    assert!(
        too_long.is_empty(),
        "files over {MAX_LINES} lines (split them by concern): {too_long:?}"
    );
    let escapes: Vec<&String> = facts
        .iter()
        .filter(|(_, _, text)| text.contains("too_many_arguments"))
        .map(|(name, _, _)| name)
        .collect();
    assert!(
        escapes.is_empty(),
        "`too_many_arguments` allowed in {escapes:?}: pass a struct"
    );
}

#[test]
fn the_checker_sees_a_cycle_it_is_given() {
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    edges.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    edges.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    edges.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        cycles(&edges),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
    let paths = named_paths(
        "use super::{budget::Steps, options};\nmod tests { use super::*; }\nlet x = crate::filter::Filter::new();\nuse child::T;",
        &["child".to_string()],
    );
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        paths,
        vec![
            (vec![], s(&["super", "budget", "Steps"])),
            (vec![], s(&["super", "options"])),
            (s(&["tests"]), s(&["super"])),
            (vec![], s(&["crate", "filter", "Filter", "new"])),
            (vec![], s(&["child", "T"])),
        ]
    );
}
