//! Writing results to standard output without panicking when the reader
//! goes away (`gcaps ... | head`).

use std::io::{ErrorKind, Write};

/// Writes `text` to stdout. Returns `false` if it could not be written: a
/// closed pipe is silent (the reader chose to stop), any other error is
/// reported on stderr with the `who` prefix.
pub fn write_stdout(who: &str, text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => false,
        Err(e) => {
            eprintln!("{who}: cannot write to standard output: {e}");
            false
        }
    }
}
