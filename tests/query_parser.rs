use memdex::query::parser::{parse_lenient, parse_strict};
const F: &[&str] = &["title", "text"];
#[test]
fn scratch() {
    for q in [
        "deploy",
        "a b",
        "a b AND c OR d",
        "+a -b NOT c",
        "title:(a b)^2",
        "\"dry run\"~2^1.5",
        "foo~ bar~2 baz* x^3",
        "http://x",
        "C++ --release -5",
        "(((",
        "a AND",
        "\"unclosed a b",
        "title:\"x y\"",
        "a OR b OR c",
        "NOT NOT a",
        "e^x ~/.bashrc",
        "-",
        "a)",
        "(a)^2",
        "f(x, y)",
        "title:",
        "foo:bar",
        "12:30",
        "((a b) c)",
        "a && b || !c",
        "",
        "-AND",
        "text:(a title:b)",
    ] {
        println!(
            "{q:30} => {}   | strict: {:?}",
            parse_lenient(q, F),
            parse_strict(q, F).map(|q| q.to_string())
        );
    }
}
