//! The wizard's questions on a real terminal, through dialoguer.
//!
//! Everything goes to stderr, so `init --dry-run --output-dir -` keeps
//! stdout for the YAML. This is the one writer to the terminal besides
//! [`crate::output`]: while a prompt runs, dialoguer owns the screen (it
//! redraws and clears lines), so the wizard's own lines go through the same
//! `console::Term` to stay in step with it.
//!
//! Ctrl-C: in a prompt the terminal is raw, so console reads the key and
//! raises SIGINT itself. [`InterruptGuard`] catches it: for console's own
//! signal inside a prompt the handler returns and dialoguer hands back an
//! `Interrupted` error, which becomes [`PromptError::Interrupted`]; any
//! other SIGINT (between prompts, during a cluster look-up say, or the
//! terminal's own for a Ctrl-C typed in the instant between two keys, when
//! console has the terminal back in its normal mode) restores the cursor
//! and exits 130 at once. Nothing has been written by then either way.
//!
//! A question's text may quote data (a context of the kubeconfig, a
//! storage class or a runtime name the cluster or the platform gave): every
//! piece is made safe (`safe`: terminal controls escaped, as
//! `crate::output` does) before the wizard styles it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use console::{style, Term};
use dialoguer::theme::{ColorfulTheme, Theme};

use super::{Choice, PromptError, Prompter, Question, SummaryRow, Validator};

/// A piece of a question as it may reach the terminal: its terminal
/// controls (escape sequences, bidi controls, newlines) shown escaped.
fn safe(text: &str) -> String {
    crate::text::one_line(text)
}

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED_EXIT_CODE: i32 = 130;

/// True while dialoguer waits for a key: SIGINT then means "Ctrl-C pressed
/// at a prompt", and the prompt reports it.
static PROMPTING: AtomicBool = AtomicBool::new(false);

/// True when a person can answer: stdin and stderr (where prompts go) are
/// both terminals.
pub fn attended() -> bool {
    std::io::stdin().is_terminal() && Term::stderr().is_term()
}

/// Asks on the terminal (stderr).
pub struct TerminalPrompter {
    term: Term,
    theme: ColorfulTheme,
}

impl Default for TerminalPrompter {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalPrompter {
    /// A prompter on stderr.
    pub fn new() -> Self {
        TerminalPrompter {
            term: Term::stderr(),
            theme: ColorfulTheme::default(),
        }
    }

    fn line(&self, text: &str) {
        let _ = self.term.write_line(text);
    }

    fn explain(&self, q: &Question) {
        if !q.help.is_empty() {
            let help = crate::text::visible(&q.help);
            self.line(&format!("  {}", style(help).dim().for_stderr()));
        }
    }

    /// Runs one dialoguer interaction with Ctrl-C mapped to an error and the
    /// cursor shown again whatever happened.
    fn interact<T>(&self, run: impl FnOnce() -> dialoguer::Result<T>) -> Result<T, PromptError> {
        PROMPTING.store(true, Ordering::SeqCst);
        let result = run();
        PROMPTING.store(false, Ordering::SeqCst);
        result.map_err(|e| {
            let _ = self.term.show_cursor();
            match e {
                dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted => {
                    let _ = self.term.write_line("");
                    PromptError::Interrupted
                }
                dialoguer::Error::IO(io) => PromptError::Terminal(io.to_string()),
            }
        })
    }
}

impl Prompter for TerminalPrompter {
    fn section(&mut self, title: &str) {
        self.line("");
        self.line(&style(safe(title)).bold().for_stderr().to_string());
    }

    fn note(&mut self, text: &str) {
        self.line(&format!("  {}", crate::text::visible(text)));
    }

    fn busy(&mut self, message: &str, work: &mut dyn FnMut()) {
        let spinner = indicatif::ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::term(self.term.clone(), 10),
        );
        spinner.set_style(
            indicatif::ProgressStyle::with_template("  {spinner} {msg}…")
                .expect("a valid template"),
        );
        spinner.set_message(safe(message));
        spinner.enable_steady_tick(std::time::Duration::from_millis(100));
        work();
        spinner.finish_and_clear();
    }

    fn select(
        &mut self,
        q: &Question,
        choices: &[Choice],
        default: usize,
    ) -> Result<usize, PromptError> {
        self.explain(q);
        let labels: Vec<String> = choices.iter().map(|c| safe(&c.label)).collect();
        let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let items: Vec<String> = choices
            .iter()
            .zip(&labels)
            .map(|(c, label)| {
                if c.hint.is_empty() {
                    label.clone()
                } else {
                    format!(
                        "{label:width$}  {}",
                        style(safe(&c.hint)).dim().for_stderr()
                    )
                }
            })
            .collect();
        let prompt = safe(&q.prompt);
        let picked = self.interact(|| {
            dialoguer::Select::with_theme(&self.theme)
                .with_prompt(&prompt)
                .items(&items)
                .default(default)
                .max_length(12)
                .report(false)
                .interact_on(&self.term)
        })?;
        // Report only the label, not its hint.
        let mut shown = String::new();
        let _ = self
            .theme
            .format_select_prompt_selection(&mut shown, &prompt, &labels[picked]);
        self.line(&shown);
        Ok(picked)
    }

    fn input(
        &mut self,
        q: &Question,
        default: &str,
        validate: Validator,
    ) -> Result<String, PromptError> {
        self.explain(q);
        let prompt = safe(&q.prompt);
        let answer = self.interact(|| {
            let mut input = dialoguer::Input::<String>::with_theme(&self.theme)
                .with_prompt(&prompt)
                .report(false)
                .validate_with(|s: &String| validate(s.trim()));
            input = if default.is_empty() {
                input.allow_empty(true)
            } else {
                input.default(default.to_string())
            };
            input.interact_text_on(&self.term)
        })?;
        // An empty answer is reported as "none", not as nothing at all.
        let mut shown = String::new();
        let value = if answer.trim().is_empty() {
            "none".to_string()
        } else {
            safe(answer.trim())
        };
        let _ = self
            .theme
            .format_input_prompt_selection(&mut shown, &prompt, &value);
        self.line(&shown);
        Ok(answer)
    }

    fn password(&mut self, q: &Question, validate: Validator) -> Result<String, PromptError> {
        self.explain(q);
        self.interact(|| {
            dialoguer::Password::with_theme(&self.theme)
                .with_prompt(safe(&q.prompt))
                .allow_empty_password(true)
                .validate_with(|s: &String| validate(s.trim()))
                .interact_on(&self.term)
        })
    }

    fn confirm(&mut self, q: &Question, default: bool) -> Result<bool, PromptError> {
        self.explain(q);
        self.interact(|| {
            dialoguer::Confirm::with_theme(&self.theme)
                .with_prompt(safe(&q.prompt))
                .default(default)
                .interact_on(&self.term)
        })
    }

    fn summary(&mut self, rows: &[SummaryRow]) {
        let width = rows
            .iter()
            .map(|r| safe(&r.topic).chars().count())
            .max()
            .unwrap_or(0);
        for r in rows {
            let origin = if r.given {
                format!("  {}", style("(given)").dim().for_stderr())
            } else {
                String::new()
            };
            self.line(&format!(
                "  {:width$}  {}{origin}",
                safe(&r.topic),
                safe(&r.value)
            ));
        }
    }
}

/// Catches SIGINT while the wizard runs (see the module comment); the
/// previous handler is back when the guard is dropped.
pub struct InterruptGuard {
    #[cfg(unix)]
    previous: libc::sigaction,
}

#[cfg(unix)]
extern "C" fn on_interrupt(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // console raises SIGINT itself (tgkill: `SI_TKILL`) when it reads
    // Ctrl-C in a prompt; dialoguer then reports it. A SIGINT from
    // anywhere else during a prompt (the terminal's own, for a Ctrl-C
    // typed while console had the terminal back in its normal mode between
    // two keys, with the key itself discarded; or `kill -INT`) would
    // never reach the prompt, which would wait on: it exits here.
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let raised_by_console = !info.is_null() && unsafe { (*info).si_code } == libc::SI_TKILL;
    if PROMPTING.load(Ordering::SeqCst) && raised_by_console {
        return;
    }
    // Only async-signal-safe calls here: show the cursor, end the line, exit.
    const RESTORE: &[u8] = b"\x1b[?25h\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
    unsafe {
        libc::write(2, RESTORE.as_ptr().cast(), RESTORE.len());
        libc::_exit(INTERRUPTED_EXIT_CODE);
    }
}

impl InterruptGuard {
    /// Installs the handler.
    pub fn install() -> Self {
        #[cfg(unix)]
        {
            // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
            // value; the handler is a plain extern "C" fn.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                libc::sigaction(libc::SIGINT, &action, &mut previous);
                InterruptGuard { previous }
            }
        }
        #[cfg(not(unix))]
        InterruptGuard {}
    }
}

impl Drop for InterruptGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the action saved by `install`.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.previous, std::ptr::null_mut());
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The exit code of a forked child that installs the guard, marks a
    /// prompt as running, and gets SIGINT from `send`; 0 when the handler
    /// let it go on.
    fn child_exit(send: fn()) -> i32 {
        // SAFETY: the child calls only sigaction, kill/raise and _exit
        // (async-signal-safe) and an atomic store before it exits.
        unsafe {
            match libc::fork() {
                0 => {
                    let _guard = InterruptGuard::install();
                    PROMPTING.store(true, Ordering::SeqCst);
                    send();
                    libc::_exit(0);
                }
                pid => {
                    let mut status = 0;
                    assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
                    assert!(libc::WIFEXITED(status), "status {status}");
                    libc::WEXITSTATUS(status)
                }
            }
        }
    }

    /// During a prompt, console's own SIGINT (raised when it reads Ctrl-C)
    /// lets dialoguer report the key; any other SIGINT (the terminal's, for
    /// a Ctrl-C typed while console had it in its normal mode between two
    /// keys, whose key is then gone; or `kill -INT`) ends the run with 130,
    /// since no key will ever reach the prompt.
    #[test]
    fn only_consoles_own_interrupt_is_left_to_the_prompt() {
        // SAFETY: raise/kill of this process's own SIGINT, in the child.
        assert_eq!(
            child_exit(|| unsafe {
                libc::raise(libc::SIGINT);
            }),
            0
        );
        assert_eq!(
            child_exit(|| unsafe {
                libc::kill(libc::getpid(), libc::SIGINT);
            }),
            INTERRUPTED_EXIT_CODE
        );
    }
}
