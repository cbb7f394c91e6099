//! Reading a result back from the JSON volbench wrote (compare, report and chart inputs):
//! blamed by the field that is wrong, not by the format it is not.

use crate::Document;

/// The largest result document read back, from a file or unpacked from a store: far above any
/// real one (a 64-job, 100-point sweep is a few tens of MB), and a bound on what a damaged or
/// hostile input can make a reader allocate.
pub const MAX_DOCUMENT: u64 = 128 << 20;

/// A result from JSON volbench wrote. A report with a bad field is blamed by the field's path
/// (`status: unknown variant "weird"`), against the kind of report it most looks like; an
/// unknown schema_version or fio's JSON is named as such.
pub fn from_json(text: &str) -> std::result::Result<Document, String> {
    let mut v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
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
    use super::from_json;

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
