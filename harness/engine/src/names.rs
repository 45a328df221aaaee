//! The names of an option's values as error messages list them, built from
//! the enum's own variant names (strum's `VariantNames`) so that a new
//! value cannot be left out of the message.

/// `a`, `a or b`, `a, b or c`: the names as a message offers them.
pub fn either(names: &[&str]) -> String {
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_as_a_sentence() {
        assert_eq!(either(&[]), "");
        assert_eq!(either(&["jit"]), "jit");
        assert_eq!(either(&["jit", "interp"]), "jit or interp");
        assert_eq!(either(&["a", "b", "c"]), "a, b or c");
    }
}
