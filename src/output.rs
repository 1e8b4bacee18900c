//! The terminal: the only module that writes to stdout and stderr. Colour
//! only on a TTY and never with `NO_COLOR`; errors are one line of what
//! failed, the cause chain, then a hint. Every write goes through one
//! function, so a test can [`capture`] what a command or step says and run
//! it in-process.

pub mod info;

use std::io::{IsTerminal, Write};

use console::style;

use crate::text::{causes, masked, one_line, visible};

/// What a thread wrote through `output` while [`capture`] held it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    pub stdout: String,
    pub stderr: String,
}

thread_local! {
    static CAPTURE: std::cell::RefCell<Option<Captured>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with everything this thread writes through `output` kept in a
/// buffer instead of the terminal; gives `f`'s result and what it wrote.
/// The seam for in-process tests (tasks spawned on other threads still
/// write to the terminal).
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Captured) {
    let outer = CAPTURE.with(|c| c.replace(Some(Captured::default())));
    let result = f();
    let captured = CAPTURE.with(|c| c.replace(outer)).unwrap_or_default();
    (result, captured)
}

/// The two streams.
#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// The one place that writes: to the capture when a test holds one, else
/// to the stream.
fn emit(stream: Stream, text: &str) {
    let kept = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(buffer) => {
            match stream {
                Stream::Out => buffer.stdout.push_str(text),
                Stream::Err => buffer.stderr.push_str(text),
            }
            true
        }
        None => false,
    });
    if kept {
        return;
    }
    let _ = match stream {
        Stream::Out => std::io::stdout().lock().write_all(text.as_bytes()),
        Stream::Err => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}

/// Applies `NO_COLOR` and TTY detection once, at start-up.
pub fn init_terminal() {
    let no_color = crate::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    if no_color || !std::io::stderr().is_terminal() {
        console::set_colors_enabled_stderr(false);
    }
    if no_color || !std::io::stdout().is_terminal() {
        console::set_colors_enabled(false);
    }
}

/// True when stderr is a terminal, where a live line (a countdown) shows.
pub fn stderr_is_tty() -> bool {
    std::io::stderr().is_terminal()
}

/// True when stdin is a terminal a prompt could be answered on.
pub fn stdin_is_tty() -> bool {
    std::io::stdin().is_terminal()
}

/// A line of normal output (stdout), URL credentials masked like every
/// other line.
pub fn say(line: &str) {
    emit(Stream::Out, &format!("{}\n", visible(&masked(line))));
}

/// Raw text to stdout (a YAML stream), without a trailing newline added.
pub fn print_raw(text: &str) {
    emit(Stream::Out, text);
}

/// How a report is printed for scripts (`-o json|yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structured {
    /// Pretty JSON, ending in a newline.
    Json,
    /// YAML.
    Yaml,
}

/// Prints a report for scripts on stdout: the one way every command
/// prints JSON or YAML.
pub fn print_structured(report: &impl serde::Serialize, format: Structured) {
    let text = match format {
        Structured::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(report).expect("the report serializes")
        ),
        Structured::Yaml => serde_yaml_ng::to_string(report).expect("the report serializes"),
    };
    print_raw(&text);
}

/// A step that finished (stdout).
pub fn done(line: &str) {
    say(&format!("{} {line}", style("✓").green()));
}

/// A warning (stderr): something the user may want to know, not a failure.
pub fn warn(line: &str) {
    emit(
        Stream::Err,
        &format!(
            "{} {}\n",
            style("warning:").yellow().bold(),
            visible(&masked(line))
        ),
    );
}

/// A note (stderr), e.g. where output went when stdout carries data.
pub fn note(line: &str) {
    emit(
        Stream::Err,
        &format!("{} {}\n", style("note:").cyan(), visible(&masked(line))),
    );
}

/// Reports a failure: what failed, the causes (each said once, see
/// [`causes`]), and a hint when there is one. URL credentials in any of
/// them (a library's error quoting a proxy URL, say) are masked on the way
/// out.
pub fn error(err: &anyhow::Error, hint: Option<&str>) {
    use std::fmt::Write as _;
    let said = causes(err.as_ref());
    let mut e = format!(
        "{} {}\n",
        style("error:").red().bold(),
        visible(&masked(&said[0]))
    );
    for cause in &said[1..] {
        // A cause is one line; a server's or library's text may hold newlines.
        let _ = writeln!(e, "  caused by: {}", one_line(&masked(cause)));
    }
    if let Some(h) = hint {
        let _ = writeln!(e, "  {} {}", style("hint:").cyan(), visible(&masked(h)));
    }
    emit(Stream::Err, &e);
}

/// Live status lines for workloads: spinners on a TTY, plain lines (one per
/// change) otherwise, so CI logs stay readable.
pub struct StatusBoard {
    /// The spinners (kept alive by the MultiProgress), one per object; `None` without a TTY.
    bars: Option<(indicatif::MultiProgress, Spinners)>,
}

type Spinners = std::sync::Mutex<Vec<(String, indicatif::ProgressBar)>>;

impl StatusBoard {
    /// A board for `objects`; spinners only when stderr is a terminal.
    pub fn new(objects: &[String]) -> Self {
        if !std::io::stderr().is_terminal() {
            return StatusBoard { bars: None };
        }
        let multi = indicatif::MultiProgress::new();
        let style = indicatif::ProgressStyle::with_template("  {spinner} {prefix:40} {msg}")
            .expect("a valid template");
        let bars = objects
            .iter()
            .map(|o| {
                let bar = multi.add(indicatif::ProgressBar::new_spinner());
                bar.set_style(style.clone());
                bar.set_prefix(o.clone());
                bar.set_message("waiting");
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                (o.clone(), bar)
            })
            .collect();
        StatusBoard {
            bars: Some((multi, std::sync::Mutex::new(bars))),
        }
    }

    /// Shows a workload's new state.
    pub fn update(&self, object: &str, ready: bool, detail: &str) {
        let mark = if ready {
            style("✓").green().to_string()
        } else {
            style("…").yellow().to_string()
        };
        match &self.bars {
            Some((_, bars)) => {
                let bars = bars.lock().expect("not poisoned");
                if let Some((_, bar)) = bars.iter().find(|(o, _)| o == object) {
                    if ready {
                        bar.finish_with_message(format!("{mark} {}", one_line(detail)));
                    } else {
                        bar.set_message(one_line(detail));
                    }
                }
            }
            None => emit(
                Stream::Err,
                &format!("  {mark} {object:40} {}\n", one_line(detail)),
            ),
        }
    }

    /// Stops every spinner, leaving the last line of each on screen.
    pub fn finish(&self) {
        if let Some((_, bars)) = &self.bars {
            for (_, bar) in bars.lock().expect("not poisoned").iter() {
                if !bar.is_finished() {
                    bar.abandon();
                }
            }
        }
    }
}

/// Says what the run waits for, until dropped: a spinner on stderr when it
/// is a terminal (cleared when dropped), else one note line.
pub struct Waiting {
    bar: Option<indicatif::ProgressBar>,
}

/// Starts saying `line` (see [`Waiting`]).
pub fn waiting(line: &str) -> Waiting {
    if !std::io::stderr().is_terminal() {
        note(line);
        return Waiting { bar: None };
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("a valid template"),
    );
    bar.set_message(one_line(&masked(line)));
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Waiting { bar: Some(bar) }
}

/// Starts a line that counts down (see [`Waiting::set`]): a spinner and
/// `line` on stderr when it is a terminal, else `line` as one note.
pub fn countdown(line: &str) -> Waiting {
    if !std::io::stderr().is_terminal() {
        note(line);
        return Waiting { bar: None };
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
    );
    bar.set_message(one_line(&masked(line)));
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Waiting { bar: Some(bar) }
}

impl Waiting {
    /// Says `line` instead, on a terminal (the time left, say); without one
    /// the first line stays the only one.
    pub fn set(&self, line: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(one_line(&masked(line)));
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// One applied object's line.
pub fn applied(change: &str, object: &str, namespace: Option<&str>) {
    let word = match change {
        "created" => style(format!("{change:10}")).green().to_string(),
        "configured" => style(format!("{change:10}")).cyan().to_string(),
        "skipped" => style(format!("{change:10}")).yellow().to_string(),
        _ => style(format!("{change:10}")).dim().to_string(),
    };
    let at = namespace.map(|n| format!(" -n {n}")).unwrap_or_default();
    say(&format!("  {word} {object}{at}"));
}

/// How a preflight check ended, as its mark shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Pass,
    Warn,
    Fail,
}

/// One preflight check (stdout): `✓`, `!` or `✗`, its name and reason, then
/// its details, and the fix under a warning or failure.
pub fn check_line(mark: Mark, name: &str, reason: &str, details: &[String], fix: Option<&str>) {
    let symbol = match mark {
        Mark::Pass => style("✓").green(),
        Mark::Warn => style("!").yellow().bold(),
        Mark::Fail => style("✗").red().bold(),
    };
    let mut lines = vec![format!("{symbol} {name:24} {reason}")];
    for d in details {
        lines.push(format!("    - {d}"));
    }
    if let (Some(fix), false) = (fix, mark == Mark::Pass) {
        lines.push(format!("    {} {fix}", style("fix:").cyan()));
    }
    say(&lines.join("\n"));
}

/// Asks a yes/no question on the terminal; Enter gives `default`. Only call
/// it when [`stdin_is_tty`] is true.
pub fn confirm(prompt: &str, default: bool) -> std::io::Result<bool> {
    dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(default)
        .interact()
        .map_err(|e| match e {
            dialoguer::Error::IO(io) => io,
        })
}

/// A heading line (stdout), e.g. a section of `info`.
pub fn heading(line: &str) {
    say(&style(line).bold().to_string());
}

/// An aligned table (stdout): a dimmed header row (left out when every
/// header is empty), then the rows, each line indented by `indent` spaces.
/// Cells may carry colour.
pub fn table(indent: usize, headers: &[&str], rows: &[Vec<String>]) {
    let columns = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(console::measure_text_width(cell));
        }
    }
    let pad = " ".repeat(indent);
    let line = |cells: Vec<String>| {
        let mut text = pad.clone();
        for (i, cell) in cells.iter().enumerate() {
            text.push_str(cell);
            if i + 1 < cells.len() {
                let gap = widths[i].saturating_sub(console::measure_text_width(cell)) + 2;
                text.push_str(&" ".repeat(gap));
            }
        }
        text.trim_end().to_string()
    };
    let mut lines = Vec::new();
    if headers.iter().any(|h| !h.is_empty()) {
        lines.push(line(
            headers
                .iter()
                .map(|h| style(h.to_string()).dim().to_string())
                .collect(),
        ));
    }
    for row in rows {
        lines.push(line(row.iter().take(columns).cloned().collect()));
    }
    say(&lines.join("\n"));
}

/// One deleted object's line (stdout).
pub fn removed(object: &str, namespace: Option<&str>) {
    let at = namespace.map(|n| format!(" -n {n}")).unwrap_or_default();
    say(&format!(
        "  {} {object}{at}",
        style(format!("{:10}", "deleted")).red()
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::chain;

    #[test]
    fn an_error_report_says_each_cause_once() {
        let err = anyhow::Error::new(chain(&[
            "auth error: unable to run auth exec: No such file or directory (os error 2)",
            "unable to run auth exec: No such file or directory (os error 2)",
            "No such file or directory (os error 2)",
        ]))
        .context("connecting to the cluster failed");
        let ((), said) = capture(|| error(&err, Some("install it")));
        assert_eq!(
            console::strip_ansi_codes(&said.stderr),
            "error: connecting to the cluster failed\n  \
             caused by: auth error: unable to run auth exec: No such file or directory (os error 2)\n  \
             hint: install it\n"
        );
    }
}
