//! Diagnostics: an error message tied to a place in a source file, rendered
//! with file, line, column and the offending line with a caret underline.

use crate::ast::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
        }
    }
}

/// One or more diagnostics for one source file, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    pub file: String,
    pub source: String,
    pub items: Vec<Diagnostic>,
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let mut off = offset;
    while !source.is_char_boundary(off) {
        off -= 1;
    }
    let before = &source[..off];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = source[line_start..off].chars().count() + 1;
    (line, col)
}

impl Diagnostics {
    pub fn new(file: impl Into<String>, source: impl Into<String>, items: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics {
            file: file.into(),
            source: source.into(),
            items,
        }
    }

    /// Line and column of the first diagnostic.
    pub fn first_position(&self) -> Option<(usize, usize)> {
        self.items.first().map(|d| line_col(&self.source, d.span.start))
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, d) in self.items.iter().enumerate() {
            if n > 0 {
                writeln!(f)?;
            }
            let (line, col) = line_col(&self.source, d.span.start);
            writeln!(f, "{}:{}:{}: error: {}", self.file, line, col, d.message)?;
            let text = self.source.lines().nth(line - 1).unwrap_or("");
            // Keep binary garbage from flooding the terminal.
            let shown: String = text
                .chars()
                .take(200)
                .map(|c| if c.is_control() && c != '\t' { '?' } else { c })
                .collect();
            let width = {
                let end = d.span.end.max(d.span.start + 1);
                let (eline, ecol) = line_col(&self.source, end);
                if eline == line && ecol > col {
                    ecol - col
                } else {
                    1
                }
            };
            writeln!(f, "{:>5} | {}", line, shown)?;
            let pad: String = shown
                .chars()
                .take(col - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "      | {}{}", pad, "^".repeat(width.min(80)))?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
