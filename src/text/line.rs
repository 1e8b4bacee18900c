//! One line, or lines, of text made safe for a terminal.

/// Text made safe for a terminal: every control character except newline
/// and tab is shown escaped (`\e`, `\r`, `\u{7}`), so a key, a file name,
/// an HTTP body or a cluster object's field can neither set the title, move
/// the cursor nor erase a line. Colour (SGR) sequences are kept: cf-runner
/// colours its own output, and a colour cannot forge text.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\u{1b}' {
            if let Some(len) = sgr_len(&text[i..]) {
                out.push_str(&text[i..i + len]);
                for _ in 1..text[i..i + len].chars().count() {
                    chars.next();
                }
                continue;
            }
        }
        push_visible(&mut out, c, true);
    }
    std::borrow::Cow::Owned(out)
}

/// Text for one line of a message: like [`visible`], and newlines and tabs
/// escaped too, so a value cannot start a fake line of its own.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c, false);
    }
    out
}

fn push_visible(out: &mut String, c: char, keep_lines: bool) {
    match c {
        '\n' | '\t' if keep_lines => out.push(c),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{1b}' => out.push_str("\\e"),
        c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// The length of a colour sequence (`ESC [ digits;… m`) at the start of `text`.
fn sgr_len(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("\u{1b}[")?;
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
    (rest.as_bytes()[end] == b'm').then_some(2 + end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        let hostile = "Bad\u{1b}]0;TITLE\u{7}\nerror: x\r";
        assert_eq!(visible(hostile), "Bad\\e]0;TITLE\\u{7}\nerror: x\\r");
        assert_eq!(one_line(hostile), "Bad\\e]0;TITLE\\u{7}\\nerror: x\\r");
        let coloured = format!("{}", console::style("ok").green().force_styling(true));
        assert_eq!(visible(&coloured), coloured);
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
    }
}
