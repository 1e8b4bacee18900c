//! The generated reference: `docs/reference/` (one Markdown page per
//! command, the values, the exit codes, the objects an install creates) and
//! the man pages in `docs/man/`. Every page is built from what the program
//! itself holds (the clap definition with its examples, the values' JSON
//! Schema, the exit-code table below, the renderer), so the reference
//! cannot say something the binary does not do; a test compares the
//! committed files with [`generate`]'s output and fails on drift.
//!
//! Pure: it returns texts and never touches the disk; the test writes them
//! (`UPDATE_REFERENCE=1`), and release packaging may too.

mod commands;
pub mod exit_codes;
mod man;
mod objects;
mod values;

/// One generated file: where it goes (relative to the repository's root,
/// `/`-separated) and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path from the repository's root, e.g. `docs/reference/commands/init.md`.
    pub path: String,
    /// The whole text of the file.
    pub text: String,
}

/// The folders [`generate`] owns: every file in them is generated, so a file
/// there that [`generate`] no longer writes is stale.
pub const GENERATED_DIRS: &[&str] = &["docs/reference", "docs/man"];

/// The line every generated Markdown page starts with: who wrote it, and
/// how to write it again (nobody edits these by hand).
const MARKDOWN_HEADER: &str = "<!-- Generated from the program by src/reference/; do not edit. \
Regenerate: UPDATE_REFERENCE=1 cargo test --test offline reference:: -->\n\n";

/// A values example by name (`local`) and the text of its file, as in
/// `values-examples/<name>.yaml`.
#[derive(Debug, Clone)]
pub struct ValuesExample {
    /// The file's name without `.yaml`.
    pub name: String,
    /// The file's contents.
    pub text: String,
}

/// Every file of the reference and every man page, sorted by path.
/// `examples` are the values examples the objects page renders; an example
/// that does not load or render is an error naming it.
pub fn generate(examples: &[ValuesExample]) -> Result<Vec<GeneratedFile>, String> {
    let root = commands::root_command();
    let all = commands::all_commands(&root);
    let mut files = vec![
        markdown("docs/reference/README.md", index(&all)),
        markdown("docs/reference/values.md", values::page()),
        markdown("docs/reference/exit-codes.md", exit_codes::page()),
        markdown("docs/reference/objects.md", objects::page(examples)?),
    ];
    for command in &all {
        files.push(markdown(
            &format!("docs/reference/commands/{}.md", command.page_name()),
            commands::page(command, &all),
        ));
        files.push(GeneratedFile {
            path: format!("docs/man/{}.1", command.man_name()),
            text: man::page(command),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// A Markdown file with the generated-file header.
fn markdown(path: &str, body: String) -> GeneratedFile {
    GeneratedFile {
        path: path.to_string(),
        text: format!("{MARKDOWN_HEADER}{}\n", body.trim_end()),
    }
}

/// `docs/reference/README.md`: what is here, and every command in a table.
fn index(all: &[commands::CommandDoc]) -> String {
    let mut out = String::from(
        "# cf-runner reference\n\n\
         Generated from the program itself; the guide (`docs/guide/`) explains the tasks, \
         this says exactly what each command, flag and values key is.\n\n\
         - [Values](values.md): every key of a values file, from the JSON Schema \
         `cf-runner schema` prints.\n\
         - [Exit codes](exit-codes.md): what each exit code means, per command.\n\
         - [Objects](objects.md): the Kubernetes objects an install creates, and why.\n\
         - Man pages: `docs/man/` (`man -l docs/man/cf-runner-init.1`).\n\n\
         ## Commands\n\n\
         | command | what it does |\n|---|---|\n",
    );
    for command in all {
        out.push_str(&format!(
            "| [`{}`](commands/{}.md) | {} |\n",
            command.display_path(),
            command.page_name(),
            table_cell(&command.about())
        ));
    }
    out
}

/// Text made safe for one cell of a Markdown table: no line break, no bare
/// `|` (it would end the cell).
fn table_cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// Text made safe for Markdown prose: `<` and `>` outside code would be
/// read as HTML tags (`<context>` vanishes), so they are escaped.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_cell_keeps_its_pipes_and_loses_its_line_breaks() {
        assert_eq!(table_cell("a | b\n  c"), "a \\| b c");
    }

    #[test]
    fn prose_escapes_angle_brackets_outside_code_only() {
        assert_eq!(
            prose("default: <context>/<ns>, see `<x>`"),
            "default: &lt;context&gt;/&lt;ns&gt;, see `<x>`"
        );
    }
}
