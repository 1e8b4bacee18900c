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
//! `Interrupted` error, which becomes [`PromptError::Interrupted`]; a
//! SIGINT between prompts (during a cluster look-up, say) restores the
//! cursor and exits 130 at once, and one in a prompt that does not return
//! (the terminal's own for a Ctrl-C typed in the instant between two keys,
//! when console has the terminal back in its normal mode) does so a moment
//! later. Nothing has been written by then either way.
//!
//! A question's text may quote data (a context of the kubeconfig, a
//! storage class or a runtime name the cluster or the platform gave): every
//! piece is made safe (`safe`: terminal controls escaped, as
//! `crate::output` does) before the wizard styles it.

use std::io::IsTerminal;
#[cfg(unix)]
use std::sync::atomic::AtomicI32;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
        set_prompting(true);
        let result = run();
        set_prompting(false);
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

/// How long a SIGINT that arrived during a prompt waits for that prompt to
/// end before it ends the run. console's own signal is followed by the
/// prompt's return within microseconds; any other never is.
#[cfg(unix)]
const STRAY_INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// Prompts ended so far: the watcher compares it at the signal and after
/// [`STRAY_INTERRUPT_GRACE`] to tell whether the prompt ended meanwhile.
static PROMPTS_ENDED: AtomicUsize = AtomicUsize::new(0);

/// The write end of the pipe the handler wakes the watcher through, or -1.
#[cfg(unix)]
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// Marks a prompt as running (true) or ended (false).
fn set_prompting(running: bool) {
    if !running {
        PROMPTS_ENDED.fetch_add(1, Ordering::SeqCst);
    }
    PROMPTING.store(running, Ordering::SeqCst);
}

/// Shows the cursor, ends the line and exits 130; async-signal-safe.
#[cfg(unix)]
fn restore_and_exit() -> ! {
    const RESTORE: &[u8] = b"\x1b[?25h\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
    unsafe {
        libc::write(2, RESTORE.as_ptr().cast(), RESTORE.len());
        libc::_exit(INTERRUPTED_EXIT_CODE)
    }
}

/// Catches SIGINT while the wizard runs (see the module comment); the
/// previous handler is back when the guard is dropped.
///
/// Which SIGINT is console's own is told apart by what follows it, the same
/// way on every Unix: console raises it when it has read Ctrl-C in a
/// prompt, and the prompt then returns at once. Any other SIGINT during a
/// prompt (the terminal's, for a Ctrl-C typed while console had the
/// terminal back in its normal mode between two keys, the key itself
/// discarded; or `kill -INT`) never reaches the prompt, which would wait on:
/// a watcher thread ends the run when the prompt has not returned within
/// 300 ms. (Linux alone tells it from the signal itself,
/// `SI_TKILL`; macOS has no such code.) On Windows console does not raise
/// a signal: Ctrl-C at a prompt is the console's control event, which ends
/// the process as Windows does, before anything is written.
pub struct InterruptGuard {
    #[cfg(unix)]
    previous: libc::sigaction,
}

#[cfg(unix)]
extern "C" fn on_interrupt(_signal: libc::c_int) {
    if !PROMPTING.load(Ordering::SeqCst) {
        restore_and_exit();
    }
    // Wake the watcher with the count of prompts ended at this moment.
    let seen = PROMPTS_ENDED.load(Ordering::SeqCst) as u8;
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; a closed fd only fails.
        unsafe { libc::write(fd, (&seen as *const u8).cast(), 1) };
    }
}

/// Waits for the handler's bytes until the guard closes the pipe; ends the
/// run when the prompt a signal arrived in is still the one running after
/// the grace.
#[cfg(unix)]
fn watch(mut wake: std::os::unix::net::UnixStream) {
    use std::io::Read;
    let mut seen = [0u8; 1];
    while let Ok(1) = wake.read(&mut seen) {
        std::thread::sleep(STRAY_INTERRUPT_GRACE);
        let still_waiting = PROMPTING.load(Ordering::SeqCst)
            && PROMPTS_ENDED.load(Ordering::SeqCst) as u8 == seen[0];
        if still_waiting {
            restore_and_exit();
        }
    }
}

impl InterruptGuard {
    /// Installs the handler (and, on Unix, its watcher thread).
    pub fn install() -> Self {
        #[cfg(unix)]
        {
            use std::os::fd::IntoRawFd;
            if let Ok((read, write)) = std::os::unix::net::UnixStream::pair() {
                WAKE_FD.store(write.into_raw_fd(), Ordering::SeqCst);
                let _ = std::thread::Builder::new()
                    .name("ctrl-c-watch".into())
                    .spawn(move || watch(read));
            }
            // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
            // value; the handler is a plain extern "C" fn.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
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
        // SAFETY: restores the action saved by `install`, then closes the
        // pipe's write end, which ends the watcher.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.previous, std::ptr::null_mut());
            let fd = WAKE_FD.swap(-1, Ordering::SeqCst);
            if fd >= 0 {
                libc::close(fd);
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// What the child run by [`interrupted_child`] does, by the value of
    /// this variable: `prompt-returns` (a SIGINT in a prompt that then
    /// returns, as console's own does), `prompt-waits` (one in a prompt that
    /// never returns: the terminal's between two keys, or `kill -INT`),
    /// `between-prompts`.
    const CHILD_VAR: &str = "CF_RUNNER_INTERRUPT_CHILD";

    /// The exit code of this test binary run again as a child doing `case`.
    fn child_exit(case: &str) -> i32 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "wizard::terminal::tests::interrupted_child"])
            .args(["--ignored", "--nocapture", "--test-threads=1"])
            .env(CHILD_VAR, case)
            .output()
            .unwrap();
        out.status.code().unwrap_or(-1)
    }

    /// The child: installs the guard, gets SIGINT (raised on its own thread
    /// as console does, or process-wide by kill(2) as the terminal's or
    /// `kill -INT` come), and exits 0 when the run went on.
    #[test]
    #[ignore = "run as a child by only_consoles_own_interrupt_is_left_to_the_prompt"]
    fn interrupted_child() {
        let Ok(case) = std::env::var(CHILD_VAR) else {
            return;
        };
        let _guard = InterruptGuard::install();
        set_prompting(case != "between-prompts");
        if case == "prompt-returns" {
            // As console does: raise(3) runs the handler on this thread
            // before it returns; then the prompt returns.
            // SAFETY: raise(3) of this process's own SIGINT.
            assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
            set_prompting(false);
        } else {
            // SAFETY: kill(2) of this process's own SIGINT.
            assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGINT) }, 0);
        }
        std::thread::sleep(STRAY_INTERRUPT_GRACE * 3);
        std::process::exit(0);
    }

    /// During a prompt, console's own SIGINT (raised when it reads Ctrl-C,
    /// and followed at once by the prompt's return) lets dialoguer report
    /// the key; any other SIGINT during a prompt (the terminal's, for a
    /// Ctrl-C typed while console had it in its normal mode between two
    /// keys, whose key is then gone; or `kill -INT`) ends the run with 130,
    /// since no key will ever reach the prompt; so does one between prompts.
    #[test]
    fn only_consoles_own_interrupt_is_left_to_the_prompt() {
        assert_eq!(child_exit("prompt-returns"), 0);
        assert_eq!(child_exit("prompt-waits"), INTERRUPTED_EXIT_CODE);
        assert_eq!(child_exit("between-prompts"), INTERRUPTED_EXIT_CODE);
    }
}
