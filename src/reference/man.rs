//! Man pages (section 1), one per command, from the same clap definition:
//! clap_mangen writes the name, synopsis, description, options and
//! subcommands; the examples are written here, because clap_mangen would
//! fill the long help's example lines into one paragraph.

use clap_mangen::Man;

use super::commands::CommandDoc;
use crate::cli::examples_of;

/// One of clap_mangen's section writers.
type Section = fn(&Man, &mut dyn std::io::Write) -> std::io::Result<()>;

/// The roff source of the man page of `doc`.
pub(super) fn page(doc: &CommandDoc) -> String {
    // The examples are ours (below); clap_mangen's copy would be a filled paragraph.
    let cmd = doc.cmd.clone().after_long_help(None::<&'static str>);
    // No version in the footer: the committed pages would change with every
    // release while nothing in them did.
    let man = Man::new(cmd).source("cf-runner").manual("cf-runner manual");
    let mut out: Vec<u8> = Vec::new();
    let mut sections: Vec<Section> = vec![
        Man::render_title,
        Man::render_name_section,
        Man::render_synopsis_section,
        Man::render_description_section,
        Man::render_options_section,
    ];
    // A command without subcommands has no SUBCOMMANDS section.
    if doc.cmd.has_subcommands() {
        sections.push(Man::render_subcommands_section);
    }
    for render in sections {
        // Writing into a Vec cannot fail.
        render(&man, &mut out).expect("write to memory");
    }
    let mut text = String::from_utf8(out).expect("roff is UTF-8");
    text.push_str(&examples_section(doc));
    text.push_str(&see_also(doc));
    text
}

/// `.SH EXAMPLES`: each example's comment as a paragraph, its command line
/// unfilled (as typed, continuation lines included).
fn examples_section(doc: &CommandDoc) -> String {
    let examples = examples_of(&doc.examples_key());
    if doc.path.is_empty() || examples.is_empty() {
        return String::new();
    }
    let mut out = String::from(".SH EXAMPLES\n");
    for example in examples {
        out.push_str(&format!(
            ".PP\n{}\n.PP\n.nf\n.RS 4\n",
            roff_line(example.comment)
        ));
        for line in example.command.lines() {
            out.push_str(&roff_line(line));
            out.push('\n');
        }
        out.push_str(".RE\n.fi\n");
    }
    out
}

/// `.SH SEE ALSO`: the parent command's page (the root's own page lists
/// every command already).
fn see_also(doc: &CommandDoc) -> String {
    let Some((_, parent)) = doc.path.split_last() else {
        return String::new();
    };
    let name = std::iter::once("cf-runner")
        .chain(parent.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("-");
    format!(".SH \"SEE ALSO\"\n{}\n", roff_line(&format!("{name}(1)")))
}

/// One line of text as roff reads it literally: a backslash is `\e`, a
/// hyphen `\-` (so it prints and copies as a minus), and a line that starts
/// with `.` or `'` is not taken for a request.
fn roff_line(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::roff_line;

    #[test]
    fn roff_lines_are_read_literally() {
        assert_eq!(roff_line("--yes \\"), "\\-\\-yes \\e");
        assert_eq!(roff_line(".hidden"), "\\&.hidden");
        assert_eq!(roff_line("'quoted'"), "\\&'quoted'");
    }
}
