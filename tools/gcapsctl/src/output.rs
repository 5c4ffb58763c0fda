//! Output helpers shared by the commands: the table/JSON choice, durations for people, stdout
//! and file writes with one-line errors.
use std::io::{ErrorKind, Write as _};
use std::path::Path;

/// `--format` of the commands that print a report (`status`, `stats`).
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
}

/// A duration in ns with three significant digits and a unit (`512 ns`, `2.05 µs`, `16.4 µs`,
/// `1.05 ms`, `3.00 s`).
pub fn human_ns(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        return format!("{ns:.0} ns");
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// Writes `text` to standard output (a closed pipe is not an error).
pub fn write_stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Writes `text` to the file `path` (created or truncated).
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| {
        format!(
            "cannot write {}: {e}",
            path.display().to_string().escape_debug()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_three_digits() {
        let cases = [
            (0.0, "0 ns"),
            (512.0, "512 ns"),
            (1024.0, "1.02 µs"),
            (2048.0, "2.05 µs"),
            (16384.0, "16.4 µs"),
            (131072.0, "131 µs"),
            (1048576.0, "1.05 ms"),
            (3e9, "3.00 s"),
        ];
        for (ns, want) in cases {
            assert_eq!(human_ns(ns), want, "{ns}");
        }
    }

    #[test]
    fn unwritable_file_is_one_line() {
        let e = write_file(Path::new("/nonexistent/dir/x\n.svg"), "x").unwrap_err();
        assert!(
            e.starts_with("cannot write /nonexistent/dir/x\\n.svg: "),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
