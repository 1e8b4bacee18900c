//! The exit codes, as data: what each means, and where a command gives a
//! code a meaning of its own. `app::outcome::Outcome::finish` is the one
//! place that turns an outcome into a code; this table is what a user reads
//! about it (`docs/reference/exit-codes.md`), and tests run the binary to
//! hold the table to what it does.

/// One exit code and what it means for every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitCodeDoc {
    /// A name tests look a row up by (`bad-input`); not shown.
    pub key: &'static str,
    /// The code.
    pub code: u8,
    /// What it means, in a few words.
    pub meaning: &'static str,
    /// When a command gives it.
    pub when: &'static str,
}

/// Every exit code cf-runner gives, in order.
pub const EXIT_CODES: &[ExitCodeDoc] = &[
    ExitCodeDoc {
        key: "ok",
        code: 0,
        meaning: "success",
        when: "The command did what was asked (`diff`: there is nothing to change).",
    },
    ExitCodeDoc {
        key: "failed",
        code: 1,
        meaning: "failure",
        when: "Something failed on the way: the cluster or the platform answered with an error, \
               a wait reached its `--timeout`, another run held the install's lock \
               (`--no-wait-for-lock`). The message says what failed and what to do. Part of an \
               install may already be applied; running the command again finishes it.",
    },
    ExitCodeDoc {
        key: "bad-input",
        code: 2,
        meaning: "bad input or usage",
        when: "A flag, a values file, a values key or a file in the way is wrong; the message \
               names it. Nothing was applied. Usage errors (an unknown flag, a missing argument) \
               give it too.",
    },
    ExitCodeDoc {
        key: "refused",
        code: 3,
        meaning: "a check failed",
        when: "A preflight check failed (`check`, and the preflight of `init`), a `check --probe` \
               build could not start, the dind certificate expires within 30 days (`check`), or \
               a command refused before any write because what it would do is unsafe (e.g. \
               `delete` of an agent that still serves attached runtimes).",
    },
    ExitCodeDoc {
        key: "sigint",
        code: 130,
        meaning: "stopped by Ctrl-C (SIGINT)",
        when: "At a prompt, before anything was written; or later, and then the report says \
               what was and was not applied.",
    },
    ExitCodeDoc {
        key: "sigterm",
        code: 143,
        meaning: "stopped by SIGTERM",
        when: "The report says what was and was not applied.",
    },
];

/// Commands whose codes mean something else than the table above, or say
/// more: the command, and what each of its codes means.
pub const PER_COMMAND: &[(&str, &str)] = &[
    (
        "diff",
        "Like `kubectl diff`: 0 no changes, 1 changes (no error is printed), 2 any error \
         (a missing permission, an unreachable cluster).",
    ),
    (
        "check",
        "0 every check passed (warnings allowed); 3 a check failed, an unreachable API server \
         included; 2 bad input.",
    ),
    (
        "info --wait",
        "0 once the install is healthy; 1 when it is not at `--timeout`.",
    ),
    (
        "images --check",
        "1 when a registry does not hold an image.",
    ),
    (
        "init --probe",
        "1 when the probe after the install fails (the install itself stays).",
    ),
];

/// The code of the row named `key`, for tests that hold the table to the
/// binary; `None` for a key the table does not have.
pub fn code_of(key: &str) -> Option<u8> {
    EXIT_CODES.iter().find(|c| c.key == key).map(|c| c.code)
}

/// `docs/reference/exit-codes.md`.
pub(super) fn page() -> String {
    let mut out = String::from(
        "# Exit codes\n\nEvery command exits with one of these codes.\n\n\
         | code | meaning | when |\n|---|---|---|\n",
    );
    for row in EXIT_CODES {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            row.code,
            row.meaning,
            super::table_cell(row.when)
        ));
    }
    out.push_str("\n## Per command\n\n| command | codes |\n|---|---|\n");
    for (command, codes) in PER_COMMAND {
        out.push_str(&format!("| `{command}` | {} |\n", super::table_cell(codes)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_c_at_a_prompt_exits_with_the_code_the_table_gives() {
        assert_eq!(
            code_of("sigint").map(i32::from),
            Some(crate::wizard::terminal::INTERRUPTED_EXIT_CODE)
        );
    }

    #[test]
    fn codes_and_keys_are_listed_once_in_order() {
        let codes: Vec<u8> = EXIT_CODES.iter().map(|c| c.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
        let mut keys: Vec<&str> = EXIT_CODES.iter().map(|c| c.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), EXIT_CODES.len());
    }
}
