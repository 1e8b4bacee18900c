//! The terminal: the only module that writes to stdout and stderr. Colour
//! only on a TTY and never with `NO_COLOR`; errors are one line of what
//! failed, the cause chain, then a hint.

use std::io::{IsTerminal, Write};

use console::style;

/// Applies `NO_COLOR` and TTY detection once, at start-up.
pub fn init_terminal() {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    if no_color || !std::io::stderr().is_terminal() {
        console::set_colors_enabled_stderr(false);
    }
    if no_color || !std::io::stdout().is_terminal() {
        console::set_colors_enabled(false);
    }
}

/// True when stdin is a terminal a prompt could be answered on.
pub fn stdin_is_tty() -> bool {
    std::io::stdin().is_terminal()
}

/// A line of normal output (stdout).
pub fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

/// Raw text to stdout (a YAML stream), without a trailing newline added.
pub fn print_raw(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
}

/// A step that finished (stdout).
pub fn done(line: &str) {
    say(&format!("{} {line}", style("✓").green()));
}

/// A warning (stderr): something the user may want to know, not a failure.
pub fn warn(line: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "{} {line}",
        style("warning:").yellow().bold()
    );
}

/// A note (stderr), e.g. where output went when stdout carries data.
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{} {line}", style("note:").cyan());
}

/// Reports a failure: what failed, the causes, and a hint when there is one.
pub fn error(err: &anyhow::Error, hint: Option<&str>) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{} {err}", style("error:").red().bold());
    for cause in err.chain().skip(1) {
        let _ = writeln!(e, "  caused by: {cause}");
    }
    if let Some(h) = hint {
        let _ = writeln!(e, "  {} {h}", style("hint:").cyan());
    }
}
