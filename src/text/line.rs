//! One line, or lines, of text made safe for a terminal.
//!
//! Data (a cluster object's field, a server's message, a name from the
//! platform, a file's key) may hold anything. What a terminal would act on
//! instead of showing is shown escaped, so it shows as what it is:
//!
//! - the C0 controls (but newline and tab, which [`visible`] keeps for the
//!   layout of a multi-line message), ESC included, so no escape sequence
//!   of data reaches the terminal: not a title, a cursor move, an erase,
//!   nor a colour (`ESC[8m` conceals what follows; cf-runner's own colours
//!   are added by `output` *after* the data was escaped);
//! - DEL and the C1 controls (U+0080–U+009F: U+009B is a CSI of its own on
//!   some terminals);
//! - the Unicode bidirectional controls (U+202A–U+202E, U+2066–U+2069,
//!   U+200E, U+200F, U+061C), which reorder how the rest of a line shows
//!   ("Trojan Source"), and the line and paragraph separators U+2028 and
//!   U+2029, which some terminals and viewers break a line at.

/// True for a character of data that must not reach a terminal as it is
/// (see the module comment): a control character (C0, DEL, C1), a Unicode
/// bidirectional control, or a Unicode line or paragraph separator.
pub fn is_terminal_control(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// True for a Unicode bidirectional control: the embeddings, overrides and
/// their pop (U+202A–U+202E), the isolates (U+2066–U+2069), the marks
/// (U+200E, U+200F) and the Arabic letter mark (U+061C).
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}

/// Text made safe for a terminal: every terminal control of it (see
/// [`is_terminal_control`]) except newline and tab is shown escaped (`\e`,
/// `\r`, `\u{7}`, `\u{202e}`), so a key, a file name, an HTTP body or a
/// cluster object's field can neither set the title, move the cursor,
/// erase a line, hide text with a colour nor reorder what shows. Colour
/// sequences are escaped too: cf-runner styles only after escaping, so
/// every ESC that reaches this function is data.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_terminal_control(c) && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
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
        c if is_terminal_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// A JSON text with the terminal controls that JSON allows raw in a
/// string (DEL, C1, the bidi controls, U+2028, U+2029; serde_json escapes
/// the C0 ones itself) written as `\uXXXX` escapes. Lossless: outside its
/// strings a JSON text holds none of them, and inside a string the escape
/// means the same character, so every parser reads the same value.
pub fn json_escaped(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(is_terminal_control) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        // Newlines and tabs are the pretty printer's layout, never raw in a
        // string (serde_json escapes them there).
        if is_terminal_control(c) && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `word` as one shell word, for a command cf-runner prints for the user to
/// run: as it is when no shell reads any of its characters specially, else
/// single-quoted (a kubeconfig's context name is free text).
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_name_is_one_shell_word() {
        use super::shell_word;
        assert_eq!(shell_word("admin@cf-runner-test"), "admin@cf-runner-test");
        assert_eq!(
            shell_word("arn:aws:eks:eu-1:1:cluster/x"),
            "arn:aws:eks:eu-1:1:cluster/x"
        );
        assert_eq!(shell_word("my ctx; rm -rf /"), "'my ctx; rm -rf /'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        let hostile = "Bad\u{1b}]0;TITLE\u{7}\nerror: x\r";
        assert_eq!(visible(hostile), "Bad\\e]0;TITLE\\u{7}\nerror: x\\r");
        assert_eq!(one_line(hostile), "Bad\\e]0;TITLE\\u{7}\\nerror: x\\r");
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
    }

    #[test]
    fn colours_bidi_controls_del_and_c1_of_data_are_shown_escaped() {
        // A colour of data is data: conceal, and cf-runner's own green.
        let cases = [
            ("a\u{1b}[8mhidden\u{1b}[0m", "a\\e[8mhidden\\e[0m"),
            ("\u{1b}[32mok\u{1b}[0m", "\\e[32mok\\e[0m"),
            ("del\u{7f}", "del\\u{7f}"),
            ("csi\u{9b}31m", "csi\\u{9b}31m"),
            ("nel\u{85}", "nel\\u{85}"),
            ("alice\u{202e}nimda", "alice\\u{202e}nimda"),
            (
                "\u{202a}\u{202b}\u{202c}\u{202d}",
                "\\u{202a}\\u{202b}\\u{202c}\\u{202d}",
            ),
            ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
            ("\u{2067}\u{2068}", "\\u{2067}\\u{2068}"),
            ("\u{200e}\u{200f}\u{61c}", "\\u{200e}\\u{200f}\\u{61c}"),
            ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
        ];
        for (data, shown) in cases {
            assert_eq!(visible(data), shown, "{data:?}");
            assert_eq!(one_line(data), shown, "{data:?}");
        }
        // What is not a control stays as it is: letters of any script.
        assert_eq!(visible("agent-é-ü-日本-עברית"), "agent-é-ü-日本-עברית");
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() {
        let value = serde_json::json!({"holder": "a\u{1b}[8m\u{202e}b\u{7f}\u{9b}\u{2028}"});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let escaped = json_escaped(&text);
        assert!(!escaped.chars().any(|c| is_terminal_control(c) && c != '\n'));
        assert!(escaped.contains("\\u202e"), "{escaped}");
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, value);
    }
}
