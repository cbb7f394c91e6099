//! Reading a file the user gives as input (a job file or one it includes, a suite, a catalog,
//! a JSON result): only a regular file, and only up to a bound, checked before reading, so
//! `/dev/zero`, a FIFO or a huge file costs one clear error instead of memory or a hang.

use std::io::Read;
use std::path::Path;

/// Job files, suites and catalogs: fio's biggest examples are a few KiB.
pub const MAX_TEXT: u64 = 16 << 20;
/// JSON results: a long sweep of many jobs with their histograms is tens of MB.
pub const MAX_JSON: u64 = 512 << 20;

/// The whole of `path` as text, when it is a regular file of at most `max` bytes. The error
/// is one phrase naming the cause (prefix it with what the file was for).
pub fn read_bounded(path: &Path, max: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(io_words)?;
    if !meta.is_file() {
        return Err("is not a regular file (a FIFO, device or directory)".into());
    }
    if meta.len() > max {
        return Err(format!(
            "is {} bytes, more than the {max} an input file may have: is it the right file?",
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(io_words)?;
    if bytes.len() as u64 > max {
        return Err(format!("grew past {max} bytes while being read"));
    }
    String::from_utf8(bytes).map_err(|_| "is not text (UTF-8)".into())
}

/// An I/O error in a person's words, without the OS's "(os error 2)".
pub fn io_words(e: std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => {
            "permission denied (run as a user who may read it)".into()
        }
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a");
        std::fs::write(&f, "x=1\n").unwrap();
        assert_eq!(read_bounded(&f, 10).unwrap(), "x=1\n");
        assert!(read_bounded(&f, 3).unwrap_err().contains("more than the 3"));
        assert!(read_bounded(Path::new("/dev/zero"), 10)
            .unwrap_err()
            .contains("not a regular file"));
        assert!(read_bounded(d.path(), 10)
            .unwrap_err()
            .contains("not a regular file"));
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_bounded(&f, 10).unwrap_err().contains("not text"));
    }
}
