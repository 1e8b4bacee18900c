//! The terminal: the only module that writes to stdout and stderr. Colour
//! only on a TTY and never with `NO_COLOR`; errors are one line of what
//! failed, the cause chain, then a hint. Every write goes through one
//! function, so a test can [`capture`] what a command or step says and run
//! it in-process.
//!
//! Every text a caller passes is data: it may quote a cluster object, a
//! server's answer or a name from the platform. Each function here first
//! makes it safe (`shown`: URL credentials masked, every terminal control
//! escaped, colour sequences and bidi controls included, see
//! `text::visible`), and only then adds cf-runner's own styling (a green
//! `✓`, a bold heading). So the only colours that reach the terminal are
//! cf-runner's, and no call site can forget: callers never style, and
//! nothing they pass reaches a stream unescaped, but for [`print_raw`]
//! (machine text, see there) and [`print_structured`] (escaped by its
//! serializer).

pub mod diagnose;
pub mod info;

use std::io::{IsTerminal, Write};

use console::style;

use crate::text::{causes, is_terminal_control, json_escaped, masked, one_line, visible};

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

/// A caller's text as it may reach the terminal: URL credentials masked,
/// then every terminal control escaped (newlines and tabs kept for the
/// layout). The first step of every function here; styling comes after.
fn shown(text: &str) -> String {
    visible(&masked(text)).into_owned()
}

/// [`shown`] for a piece of one line (a table cell, a name in a status
/// line): newlines and tabs escaped too, so it cannot break the layout.
fn shown_in_line(text: &str) -> String {
    one_line(&masked(text))
}

/// A line of normal output (stdout), made safe like every other line
/// (`shown`).
pub fn say(line: &str) {
    styled_line(&shown(line));
}

/// A line already made safe and styled here: to stdout as it is.
fn styled_line(line: &str) {
    emit(Stream::Out, &format!("{line}\n"));
}

/// Raw text to stdout, without a trailing newline added: machine text that
/// cf-runner itself produced (the rendered YAML stream, a completion
/// script, the schema), which a program reads and which must stay byte for
/// byte as produced. Never for text that quotes the cluster or the
/// platform: that is [`print_text`].
pub fn print_raw(text: &str) {
    emit(Stream::Out, text);
}

/// A block of text for a person to read (a diff of live objects), lines
/// kept, to stdout as it is but made safe (`shown`); no newline added.
pub fn print_text(text: &str) {
    emit(Stream::Out, &shown(text));
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
            json_escaped(&serde_json::to_string_pretty(report).expect("the report serializes"))
        ),
        Structured::Yaml => {
            yaml_for_stdout(serde_yaml_ng::to_string(report).expect("the report serializes"))
        }
    };
    print_raw(&text);
}

/// YAML as printed: the YAML emitter escapes the C0 and C1 controls and
/// DEL itself, but writes the bidi controls (and U+2028, U+2029) raw, as
/// printable characters, and YAML has no lossless way to escape them
/// outside a double-quoted string. Piped, a program gets the exact value;
/// on a terminal, where a person reads it, they are shown escaped
/// (`\u{202e}`), and a note says so (`-o json` escapes them losslessly).
fn yaml_for_stdout(yaml: String) -> String {
    if !yaml.chars().any(is_terminal_control_of_data) || !std::io::stdout().is_terminal() {
        return yaml;
    }
    note(
        "the YAML holds Unicode bidi or separator characters of data, shown escaped (\\u{...}) on this \
         terminal; piped output keeps them as they are, and -o json escapes them losslessly",
    );
    visible(&yaml).into_owned()
}

/// A terminal control that is not the layout's newline or tab.
fn is_terminal_control_of_data(c: char) -> bool {
    is_terminal_control(c) && c != '\n' && c != '\t'
}

/// A step that finished (stdout).
pub fn done(line: &str) {
    styled_line(&format!("{} {}", style("✓").green(), shown(line)));
}

/// A warning (stderr): something the user may want to know, not a failure.
pub fn warn(line: &str) {
    emit(
        Stream::Err,
        &format!("{} {}\n", style("warning:").yellow().bold(), shown(line)),
    );
}

/// A note (stderr), e.g. where output went when stdout carries data.
pub fn note(line: &str) {
    emit(
        Stream::Err,
        &format!("{} {}\n", style("note:").cyan(), shown(line)),
    );
}

/// Reports a failure: what failed, the causes (each said once, see
/// [`causes`]), and a hint when there is one. URL credentials in any of
/// them (a library's error quoting a proxy URL, say) are masked on the way
/// out.
pub fn error(err: &anyhow::Error, hint: Option<&str>) {
    use std::fmt::Write as _;
    let said = causes(err.as_ref());
    let mut e = format!("{} {}\n", style("error:").red().bold(), shown(&said[0]));
    for cause in &said[1..] {
        // A cause is one line; a server's or library's text may hold newlines.
        let _ = writeln!(e, "  caused by: {}", shown_in_line(cause));
    }
    if let Some(h) = hint {
        let _ = writeln!(e, "  {} {}", style("hint:").cyan(), shown(h));
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
                bar.set_prefix(shown_in_line(o));
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
                        bar.finish_with_message(format!("{mark} {}", shown_in_line(detail)));
                    } else {
                        bar.set_message(shown_in_line(detail));
                    }
                }
            }
            None => emit(
                Stream::Err,
                &format!(
                    "  {mark} {:40} {}\n",
                    shown_in_line(object),
                    shown_in_line(detail)
                ),
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
    bar.set_message(shown_in_line(line));
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
    bar.set_message(shown_in_line(line));
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Waiting { bar: Some(bar) }
}

impl Waiting {
    /// Says `line` instead, on a terminal (the time left, say); without one
    /// the first line stays the only one.
    pub fn set(&self, line: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(shown_in_line(line));
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
    let padded = format!("{:10}", shown_in_line(change));
    let word = match change {
        "created" => style(padded).green().to_string(),
        "configured" => style(padded).cyan().to_string(),
        "skipped" => style(padded).yellow().to_string(),
        _ => style(padded).dim().to_string(),
    };
    let at = namespace
        .map(|n| format!(" -n {}", shown_in_line(n)))
        .unwrap_or_default();
    styled_line(&format!("  {word} {}{at}", shown(object)));
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
    let mut lines = vec![format!(
        "{symbol} {:24} {}",
        shown_in_line(name),
        shown(reason)
    )];
    for d in details {
        lines.push(format!("    - {}", shown(d)));
    }
    if let (Some(fix), false) = (fix, mark == Mark::Pass) {
        lines.push(format!("    {} {}", style("fix:").cyan(), shown(fix)));
    }
    styled_line(&lines.join("\n"));
}

/// Asks a yes/no question on the terminal; Enter gives `default`. Only call
/// it when [`stdin_is_tty`] is true.
pub fn confirm(prompt: &str, default: bool) -> std::io::Result<bool> {
    dialoguer::Confirm::new()
        .with_prompt(shown(prompt))
        .default(default)
        .interact()
        .map_err(|e| match e {
            dialoguer::Error::IO(io) => io,
        })
}

/// A heading line (stdout), e.g. a section of `info`.
pub fn heading(line: &str) {
    styled_line(&style(shown(line)).bold().to_string());
}

/// An aligned table (stdout): a dimmed header row (left out when every
/// header is empty), then the rows, each line indented by `indent` spaces.
/// Each cell is one line of data (`shown_in_line`): it may not carry
/// colour, nor break the table with a newline.
pub fn table(indent: usize, headers: &[&str], rows: &[Vec<String>]) {
    let headers: Vec<String> = headers.iter().map(|h| shown_in_line(h)).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| shown_in_line(cell)).collect())
        .collect();
    let columns = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
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
    for row in &rows {
        lines.push(line(row.iter().take(columns).cloned().collect()));
    }
    styled_line(&lines.join("\n"));
}

/// One deleted object's line (stdout).
pub fn removed(object: &str, namespace: Option<&str>) {
    let at = namespace
        .map(|n| format!(" -n {}", shown_in_line(n)))
        .unwrap_or_default();
    styled_line(&format!(
        "  {} {}{at}",
        style(format!("{:10}", "deleted")).red(),
        shown(object)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::chain;

    /// Data as a hostile cluster object or server could write it: a
    /// conceal colour, a title change, a C1 CSI, DEL, a fake line, and a
    /// right-to-left override.
    const HOSTILE: &str =
        "a\u{1b}[8mhid\u{1b}]0;T\u{7}\u{9b}2J\u{7f}\nerror: fake\u{202e}kcatta\u{2066}";

    /// What no captured output may hold raw: the controls of [`HOSTILE`]
    /// (cf-runner's own colours, when on, are the only ESC sequences left
    /// once `strip_ansi_codes` removed them, and there must be none).
    fn assert_safe(said: &str, case: &str) {
        let plain = console::strip_ansi_codes(said);
        assert!(
            !said.contains("\u{1b}[8m"),
            "{case}: a conceal of data reached the terminal: {said:?}"
        );
        for c in plain.chars() {
            assert!(
                !crate::text::is_terminal_control(c) || c == '\n',
                "{case}: {c:?} reached the terminal raw: {said:?}"
            );
        }
        assert!(plain.contains("\\e[8mhid"), "{case}: {plain:?}");
        assert!(
            plain.contains("\\u{202e}kcatta\\u{2066}"),
            "{case}: {plain:?}"
        );
        assert!(plain.contains("\\u{9b}2J\\u{7f}"), "{case}: {plain:?}");
    }

    #[test]
    fn every_way_to_the_terminal_escapes_the_controls_of_data() {
        let err = anyhow::Error::new(chain(&[HOSTILE, &format!("server said: {HOSTILE}")]));
        let hint = HOSTILE.to_string();
        type Case<'a> = (&'a str, Box<dyn Fn() + 'a>);
        let cases: Vec<Case> = vec![
            ("say", Box::new(|| say(HOSTILE))),
            ("done", Box::new(|| done(HOSTILE))),
            ("warn", Box::new(|| warn(HOSTILE))),
            ("note", Box::new(|| note(HOSTILE))),
            ("heading", Box::new(|| heading(HOSTILE))),
            ("print_text", Box::new(|| print_text(HOSTILE))),
            (
                "applied",
                Box::new(|| applied("created", HOSTILE, Some(HOSTILE))),
            ),
            ("removed", Box::new(|| removed(HOSTILE, Some(HOSTILE)))),
            (
                "check_line",
                Box::new(|| {
                    check_line(
                        Mark::Fail,
                        HOSTILE,
                        HOSTILE,
                        &[HOSTILE.into()],
                        Some(HOSTILE),
                    )
                }),
            ),
            (
                "table",
                Box::new(|| table(2, &["NAME", HOSTILE], &[vec![HOSTILE.into(), "x".into()]])),
            ),
            ("error", Box::new(|| error(&err, Some(&hint)))),
            (
                "Outcome::finish",
                Box::new(|| {
                    let failed = crate::app::Outcome::Failed(
                        anyhow::anyhow!("{HOSTILE}"),
                        Some(HOSTILE.to_string()),
                    );
                    let _ = failed.finish();
                }),
            ),
        ];
        for (case, run) in &cases {
            let ((), said) = capture(run);
            assert_safe(&format!("{}{}", said.stdout, said.stderr), case);
        }
        // A table cell is one line: its newline is shown, not a new row.
        let ((), said) = capture(|| table(0, &["A"], &[vec![HOSTILE.into()]]));
        assert_eq!(console::strip_ansi_codes(&said.stdout).lines().count(), 2);
    }

    #[test]
    fn json_for_scripts_escapes_controls_losslessly() {
        let report = serde_json::json!({ "holder": HOSTILE });
        let ((), said) = capture(|| print_structured(&report, Structured::Json));
        assert!(
            !said.stdout.chars().any(is_terminal_control_of_data),
            "{:?}",
            said.stdout
        );
        let back: serde_json::Value = serde_json::from_str(&said.stdout).unwrap();
        assert_eq!(back, report, "the value a script reads is unchanged");
    }

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
