//! Reading a result back from the JSON volbench wrote (compare, report and chart inputs):
//! blamed by the field that is wrong, not by the format it is not.

use crate::Document;

/// The largest result document read back, from a file or unpacked from a store: far above any
/// real one (a 64-job, 100-point sweep is a few tens of MB), and a bound on what a damaged or
/// hostile input can make a reader allocate.
pub const MAX_DOCUMENT: u64 = 128 << 20;

/// The most values (numbers, strings, keys, arrays, objects) a document read back may hold.
/// Bytes alone do not bound a reader's memory: `[0,0,...]` spends two bytes a value on the
/// page and 32 in the tree parsed from it, so 120 MiB of it took serve 2 GB (issue 63). A
/// real report spends a few tens of bytes of text a value (names, decimals, histograms'
/// keys), so this is reached only by documents far beyond [`MAX_DOCUMENT`]'s real ones, and it
/// keeps the tree under a few hundred MB.
pub const MAX_VALUES: u64 = 4 << 20;

/// Counts a JSON text's values as its bytes go by, without parsing it, so a document too big
/// to parse is refused before any tree is built (and, read from a stream, before the rest
/// of it is inflated).
#[derive(Debug, Default)]
pub struct Census {
    values: u64,
    in_string: bool,
    escaped: bool,
}

impl Census {
    /// Takes the next bytes; refuses once the text holds more than [`MAX_VALUES`] values.
    pub fn feed(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        for &b in bytes {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            // Every value but the first of a container follows a comma; containers and
            // strings (keys among them) are counted as they open.
            match b {
                b'"' => {
                    self.in_string = true;
                    self.values += 1;
                }
                b',' | b'[' | b'{' => self.values += 1,
                _ => {}
            }
        }
        if self.values > MAX_VALUES {
            return Err(format!(
                "holds more than {} million values, more than a result has: it is damaged or not volbench's",
                MAX_VALUES >> 20
            ));
        }
        Ok(())
    }
}

/// A JSON value from text bounded in bytes ([`MAX_DOCUMENT`]) and values ([`MAX_VALUES`]).
pub fn bounded_value(text: &[u8]) -> std::result::Result<serde_json::Value, String> {
    if text.len() as u64 > MAX_DOCUMENT {
        return Err(format!("is larger than {} MiB", MAX_DOCUMENT >> 20));
    }
    Census::default().feed(text)?;
    serde_json::from_slice(text).map_err(|e| format!("not JSON: {e}"))
}

/// A result from JSON volbench wrote. A report with a bad field is blamed by the field's path
/// (`status: unknown variant "weird"`), against the kind of report it most looks like; an
/// unknown schema_version or fio's JSON is named as such.
pub fn from_json(text: &str) -> std::result::Result<Document, String> {
    let mut v = bounded_value(text.as_bytes())?;
    // A file written before secrets were kept out of reports is read without them.
    crate::secrets::scrub_value(&mut v);
    if v.get("fio version").is_some() {
        return Err(
            "is fio's JSON; compare takes volbench's: write --output-format=volbench-json".into(),
        );
    }
    if let Some(n) = v.get("schema_version").and_then(|s| s.as_u64()) {
        if n != crate::SCHEMA_VERSION as u64 {
            return Err(format!(
                "schema_version {n} is not one this build reads ({}): use the volbench that wrote it",
                crate::SCHEMA_VERSION
            ));
        }
    }
    read_as_its_kind(&v)
}

/// Reads the JSON as the kind of report it looks like (a `kind` tag says it, else a kind's
/// own fields), so a bad field is blamed by its path (serde_path_to_error) within that kind.
fn read_as_its_kind(v: &serde_json::Value) -> std::result::Result<Document, String> {
    fn read<T: serde::de::DeserializeOwned>(
        v: &serde_json::Value,
        kind: &str,
    ) -> std::result::Result<T, String> {
        serde_path_to_error::deserialize(v).map_err(|e| {
            let (path, inner) = match within_families(v, e.path()) {
                Some((field, inner)) => (format!("{}.{field}", e.path()), inner),
                None => (e.path().to_string(), e.inner().to_string()),
            };
            format!("as {kind}, field `{path}`: {inner}")
        })
    }
    let has = |k: &str| v.get(k).is_some();
    if has("kind") {
        read(v, "a stored result")
    } else if has("engine") {
        // Before "runs": a db report has its own list of runs.
        read(v, "a db report").map(|r| Document::Db(Box::new(r)))
    } else if has("cases") {
        read(v, "an fsync report").map(|r| Document::Fsync(Box::new(r)))
    } else if has("cycles") {
        read(v, "a durability cycle report").map(|r| Document::Durability(Box::new(r)))
    } else if has("limits") {
        read(v, "an infer report").map(|r| Document::Infer(Box::new(r)))
    } else if has("runs") || has("suite") {
        read(v, "a sweep or suite report").map(|r| Document::Suite(Box::new(r)))
    } else {
        read(v, "a run report").map(|r| Document::Run(Box::new(r)))
    }
}

/// serde names no field inside a flattened struct, and a job's options are flattened families
/// (`workload::family`): a bad option is found by reading the job's object as each family on
/// its own, so the refusal still names it (`jobs[0].do_verify`, not `jobs[0]`).
fn within_families(
    v: &serde_json::Value,
    at: &serde_path_to_error::Path,
) -> Option<(String, String)> {
    use serde_path_to_error::Segment;
    let mut job = v;
    for seg in at.iter() {
        job = match seg {
            Segment::Seq { index } => job.get(index)?,
            Segment::Map { key } => job.get(key)?,
            _ => return None,
        };
    }
    // Only a field the family holds, with a value it refuses (not one it misses: a job with
    // no field of a family is a job the family's defaults fill).
    fn bad<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Option<(String, String)> {
        let e = serde_path_to_error::deserialize::<_, T>(v).err()?;
        let field = e
            .path()
            .iter()
            .next()
            .is_some()
            .then(|| e.path().to_string())?;
        Some((field, e.inner().to_string()))
    }
    use workload::family::*;
    // A job, not another object the error stopped at: it has a job's own fields.
    (job.get("rw").is_some() && job.get("ioengine").is_some()).then_some(())?;
    bad::<Pattern>(job)
        .or_else(|| bad::<Region>(job))
        .or_else(|| bad::<Files>(job))
        .or_else(|| bad::<Timing>(job))
        .or_else(|| bad::<Rates>(job))
        .or_else(|| bad::<EngineOptions>(job))
        .or_else(|| bad::<ProcessOptions>(job))
        .or_else(|| bad::<SyncOptions>(job))
        .or_else(|| bad::<Checking>(job))
        .or_else(|| bad::<Buffers>(job))
        .or_else(|| bad::<OnError>(job))
        .or_else(|| bad::<Reporting>(job))
        .or_else(|| bad::<LatencyLimits>(job))
}

#[cfg(test)]
mod tests {
    use super::{from_json, Census, MAX_VALUES};

    /// Values are counted outside strings only (a comma, bracket or escaped quote in a label
    /// is text), and the bound is on values, whatever the bytes.
    #[test]
    fn the_census_counts_values_not_bytes() {
        let mut c = Census::default();
        c.feed(br#"{"a,[{":"x\\\",y","b":[1,2,{"c":[]}]}"#).unwrap();
        // keys a, b, c and the string: 4; the object, two arrays, one object: 4; commas: 3.
        assert_eq!(c.values, 11);
        let mut big = Census::default();
        let zeros = b"0,".repeat(1 << 16);
        let fed = (0..).find(|_| big.feed(&zeros).is_err()).unwrap();
        assert_eq!(fed as u64 + 1, MAX_VALUES / (1 << 16) + 1);
        assert!(
            from_json(&format!("[{}0]", "0,".repeat(MAX_VALUES as usize)))
                .unwrap_err()
                .contains("million values")
        );
    }

    /// A job's options sit in flattened families, where serde's own path stops at the job:
    /// the refusal must still name the option, in each family (first, middle and last).
    #[test]
    fn a_bad_option_in_a_stored_job_is_named() {
        let run: serde_json::Value =
            serde_json::from_str(include_str!("../tests/data/run.json")).unwrap();
        for key in ["bssplit", "do_verify", "max_latency_ns", "rwmixread"] {
            let mut v = run.clone();
            v["workload"]["jobs"][0][key] = "weird".into();
            let e = from_json(&v.to_string()).unwrap_err();
            assert!(
                e.contains(&format!("workload.jobs[0].{key}`")),
                "{key}: {e}"
            );
        }
    }
}
