//! Test attributes that depend on the machine the tests are built on.
//!
//! `#[needs_shell("zsh")]` above a `#[test]` marks it as ignored (with the
//! Debian package to install) when this crate's build script did not find
//! the shell on `PATH`, so `cargo test` reports it as ignored, never as
//! passed. Under CI the build script ignores nothing, and the test fails.
//! `ignored_shells!()` is the list of shells made ignored, for the test
//! that checks CI ignores none.

use proc_macro::{TokenStream, TokenTree};

/// The shells the build script found missing (outside CI), one a line.
const IGNORED: &str = include_str!(concat!(env!("OUT_DIR"), "/ignored_shells.txt"));

/// The shell named by the attribute's one string argument.
fn shell_name(attr: TokenStream) -> String {
    let mut tokens = attr.into_iter();
    match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Literal(lit)), None) => lit.to_string().trim_matches('"').to_string(),
        _ => panic!("needs_shell takes one shell name in quotes: #[needs_shell(\"bash\")]"),
    }
}

/// Marks a test as ignored when the named shell is missing on this machine
/// (outside CI); otherwise leaves it as it is.
#[proc_macro_attribute]
pub fn needs_shell(attr: TokenStream, item: TokenStream) -> TokenStream {
    let shell = shell_name(attr);
    if !IGNORED.lines().any(|line| line == shell) {
        return item;
    }
    let reason = format!("{shell} is not installed (Debian package {shell})");
    let mut out: TokenStream = format!("#[ignore = {reason:?}]")
        .parse()
        .expect("an ignore attribute parses");
    out.extend(item);
    out
}

/// The shells whose tests are built ignored, as a `&[&str]` expression.
#[proc_macro]
pub fn ignored_shells(_input: TokenStream) -> TokenStream {
    let names: Vec<String> = IGNORED.lines().map(|s| format!("{s:?}")).collect();
    format!("&[{}] as &[&str]", names.join(", "))
        .parse()
        .expect("a list of strings parses")
}
