//! Where the kept records' histograms wait for the report: a run keeps one per job,
//! direction and record (about 1 KB each, encoded), which over a day of many jobs is more than
//! a process should hold. They go to one unlinked temporary file (in `$TMPDIR`), written once
//! when a record is sealed and read back when the report merges them; the kernel removes the
//! file when the process ends, however it ends. Without a writable temporary directory they
//! stay in memory.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Mutex, OnceLock};

/// An encoded histogram (`LatHist::encode`), in memory or in the spill file.
#[derive(Clone, Debug)]
pub enum Hdr {
    Mem(String),
    Spilled { at: u64, len: u32 },
}

struct Spill {
    file: File,
    /// The file's end: where the next histogram goes.
    end: Mutex<u64>,
}

fn spill() -> Option<&'static Spill> {
    static SPILL: OnceLock<Option<Spill>> = OnceLock::new();
    SPILL
        .get_or_init(|| {
            tempfile::tempfile().ok().map(|file| Spill {
                file,
                end: Mutex::new(0),
            })
        })
        .as_ref()
}

impl Hdr {
    /// Puts `text` in the spill file (in memory if it cannot be written).
    pub fn put(text: String) -> Hdr {
        let Some(s) = spill() else {
            return Hdr::Mem(text);
        };
        let at = {
            let mut end = s.end.lock().unwrap_or_else(|p| p.into_inner());
            let at = *end;
            *end += text.len() as u64;
            at
        };
        match s.file.write_all_at(text.as_bytes(), at) {
            Ok(()) => Hdr::Spilled {
                at,
                len: text.len() as u32,
            },
            Err(_) => Hdr::Mem(text),
        }
    }

    /// The encoded histogram (None: the spill file could not be read back).
    pub fn text(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Hdr::Mem(t) => Some(t.as_str().into()),
            Hdr::Spilled { at, len } => {
                let mut buf = vec![0; *len as usize];
                spill()?.file.read_exact_at(&mut buf, *at).ok()?;
                String::from_utf8(buf).ok().map(Into::into)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is put is read back whole, from any thread, however many went in between.
    #[test]
    fn histograms_come_back_as_they_went() {
        let put: Vec<(String, Hdr)> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|t| {
                    s.spawn(move || {
                        (0..200)
                            .map(|k| {
                                let text = format!("{t}-{k}-").repeat(k % 17 + 1);
                                (text.clone(), Hdr::put(text))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        assert!(put.iter().all(|(_, h)| matches!(h, Hdr::Spilled { .. })));
        for (text, h) in &put {
            assert_eq!(h.text().unwrap(), *text);
        }
    }
}
