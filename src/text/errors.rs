//! What an error chain says: each cause once, the innermost on its own.

/// What an error chain says, each thing once: the error's own text, then
/// each cause whose text is not already part of something said before it.
/// Libraries wrap an error and quote it whole ("auth error: unable to run
/// auth exec: No such file …" over "unable to run auth exec: No such file …"
/// over "No such file …"); such a cause adds nothing and is dropped. The one
/// rule for every place that shows a chain: `output::error`, [`chain_text`].
pub fn causes(err: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut said: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !said_before(&said, &text) {
            said.push(text);
        }
        source = cause.source();
    }
    said
}

/// The rule of [`causes`]: a text adds nothing when something already said
/// holds it.
fn said_before(said: &[String], text: &str) -> bool {
    said.iter().any(|s| s.contains(text))
}

/// The innermost cause of an error when it adds to the error's own text
/// (the short form: what failed, and why), by the rule of [`causes`].
pub fn new_root_cause(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    err.source()?;
    let root = root_cause(err);
    (!said_before(&[err.to_string()], &root)).then_some(root)
}

/// An error and its causes as one line (`what: cause: cause`), each said
/// once (see [`causes`]).
pub fn chain_text(err: &(dyn std::error::Error + 'static)) -> String {
    causes(err).join(": ")
}

/// The innermost cause of an error ("Connection refused (os error 111)"):
/// what a user can act on, where the layers above it only repeat "client
/// error".
pub fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An error of `texts[0]`, caused by one of `texts[1]`, and so on.
    #[derive(Debug)]
    pub(crate) struct Layer(String, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as _)
        }
    }

    pub(crate) fn chain(texts: &[&str]) -> Layer {
        texts
            .iter()
            .rev()
            .fold(None, |inner, t| {
                Some(Layer(t.to_string(), inner.map(Box::new)))
            })
            .unwrap()
    }

    #[test]
    fn a_cause_that_repeats_what_was_said_is_dropped() {
        // The chain kube-rs gives for a missing exec plugin.
        let err = chain(&[
            "could not build a client for context eks-ci",
            "auth error: unable to run auth exec: No such file or directory (os error 2)",
            "unable to run auth exec: No such file or directory (os error 2)",
            "No such file or directory (os error 2)",
        ]);
        assert_eq!(
            causes(&err),
            [
                "could not build a client for context eks-ci",
                "auth error: unable to run auth exec: No such file or directory (os error 2)",
            ]
        );
        assert_eq!(
            chain_text(&err),
            "could not build a client for context eks-ci: auth error: unable to run auth exec: \
             No such file or directory (os error 2)"
        );
        // The innermost cause is still there for whoever wants only it,
        // and in the short form only when it is news.
        assert_eq!(root_cause(&err), "No such file or directory (os error 2)");
        assert_eq!(
            new_root_cause(&err).as_deref(),
            Some("No such file or directory (os error 2)")
        );
        assert_eq!(
            new_root_cause(&chain(&["reading x failed: EOF", "EOF"])),
            None
        );
        let err = chain(&[
            "deleting Secret/x failed",
            "ServiceError: refused",
            "refused",
        ]);
        assert_eq!(new_root_cause(&err).as_deref(), Some("refused"));
        assert_eq!(new_root_cause(&chain(&["alone"])), None);
    }

    #[test]
    fn causes_that_say_something_new_are_all_kept() {
        let err = chain(&[
            "applying Secret/x failed",
            "client error",
            "Connection refused",
        ]);
        assert_eq!(
            causes(&err),
            [
                "applying Secret/x failed",
                "client error",
                "Connection refused"
            ]
        );
        // The same text twice, or a cause quoted by an earlier layer than
        // its parent, is said once; an empty cause says nothing.
        let err = chain(&["timed out: EOF", "stream", "stream", "EOF", ""]);
        assert_eq!(causes(&err), ["timed out: EOF", "stream"]);
    }
}
