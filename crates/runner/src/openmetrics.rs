//! The live board as a scrape: OpenMetrics text when the scraper asks for it (Prometheus
//! does), else Prometheus's text format 0.0.4 (what `promtool check metrics` and curl get).
//!
//! Per host, job and direction: I/Os, bytes, errors, in-flight depth, the latency histogram
//! (its buckets are `stats::live`'s), the job's stage, and the run's identity as an info
//! metric; a database run's transactions have families of their own. Label values come from
//! job files and command lines: they are escaped, never
//! trusted.

use crate::board::{JobFigures, Stage, Unit};
use stats::live::{bound_ns, BUCKETS};
use std::fmt::Write as _;

/// The two text formats a scrape can get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    OpenMetrics,
    Prometheus,
}

impl Flavor {
    /// The one the scraper's `Accept` header asks for.
    pub fn from_accept(accept: Option<&str>) -> Flavor {
        match accept {
            Some(a) if a.contains("application/openmetrics-text") => Flavor::OpenMetrics,
            _ => Flavor::Prometheus,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Flavor::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Flavor::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
        }
    }
}

const DIRS: [&str; 2] = ["read", "write"];

/// The scrape's text.
pub fn render(jobs: &[JobFigures], info: &[(String, String)], flavor: Flavor) -> String {
    let mut out = String::with_capacity(4096 + jobs.len() * 8192);
    let mut m = Metrics {
        out: &mut out,
        flavor,
    };
    let (io, tx): (Vec<JobFigures>, Vec<JobFigures>) =
        jobs.iter().cloned().partition(|j| j.unit == Unit::Io);
    m.counters(&io);
    m.gauges(&io);
    m.histograms(&io);
    m.stages(&io);
    if !tx.is_empty() {
        m.transactions(&tx);
    }
    m.info(info);
    if flavor == Flavor::OpenMetrics {
        out.push_str("# EOF\n");
    }
    out
}

struct Metrics<'a> {
    out: &'a mut String,
    flavor: Flavor,
}

impl Metrics<'_> {
    /// A metric family's header. `kind` is OpenMetrics's; Prometheus's text has no info or
    /// stateset (gauges there) and names a counter family with its `_total`.
    fn family(&mut self, name: &str, kind: &str, unit: Option<&str>, help: &str) {
        let om = self.flavor == Flavor::OpenMetrics;
        let (name, kind) = match (om, kind) {
            (true, _) => (name.to_string(), kind),
            (false, "counter") => (format!("{name}_total"), kind),
            (false, "info") => (format!("{name}_info"), "gauge"),
            (false, "stateset") => (name.to_string(), "gauge"),
            (false, _) => (name.to_string(), kind),
        };
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
        if let (true, Some(u)) = (om, unit) {
            let _ = writeln!(self.out, "# UNIT {name} {u}");
        }
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.out.push_str(name);
        self.out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            let _ = write!(self.out, "{k}=\"{}\"", escape(v));
        }
        let _ = writeln!(self.out, "}} {value}");
    }

    fn counters(&mut self, jobs: &[JobFigures]) {
        let io = "I/Os completed in measured windows (ramps and drains are not counted)";
        self.family("volbench_io", "counter", None, io);
        self.per_dir(jobs, "volbench_io_total", |f, d| f.ios[d]);
        self.family(
            "volbench_io_bytes",
            "counter",
            Some("bytes"),
            "Bytes of those I/Os",
        );
        self.per_dir(jobs, "volbench_io_bytes_total", |f, d| f.bytes[d]);
        let err = "I/Os that failed (a job without continue_on_error stops at its first)";
        self.family("volbench_io_errors", "counter", None, err);
        for j in jobs {
            let l = [("host", j.host.as_str()), ("job", j.job.as_str())];
            self.sample("volbench_io_errors_total", &l, j.figures.errors);
        }
    }

    fn per_dir(
        &mut self,
        jobs: &[JobFigures],
        name: &str,
        v: impl Fn(&crate::board::Figures, usize) -> u64,
    ) {
        for j in jobs {
            for (d, rw) in DIRS.iter().enumerate() {
                let l = [
                    ("host", j.host.as_str()),
                    ("job", j.job.as_str()),
                    ("rw", rw),
                ];
                self.sample(name, &l, v(&j.figures, d));
            }
        }
    }

    fn gauges(&mut self, jobs: &[JobFigures]) {
        let help = "I/Os in flight as the job last waited for completions (all its clones)";
        self.family("volbench_inflight", "gauge", None, help);
        for j in jobs {
            let l = [("host", j.host.as_str()), ("job", j.job.as_str())];
            self.sample("volbench_inflight", &l, j.figures.inflight);
        }
    }

    fn histograms(&mut self, jobs: &[JobFigures]) {
        let name = "volbench_io_latency_seconds";
        let help = "Latency from issue to completion, counted as each interval closes";
        self.family(name, "histogram", Some("seconds"), help);
        for j in jobs {
            for (d, rw) in DIRS.iter().enumerate() {
                let counts = &j.figures.buckets[d];
                if counts.is_empty() {
                    continue;
                }
                let labels = [
                    ("host", j.host.as_str()),
                    ("job", j.job.as_str()),
                    ("rw", rw),
                ];
                self.buckets(name, &labels, counts, j.figures.lat_sum_ns[d]);
            }
        }
    }

    fn buckets(&mut self, name: &str, labels: &[(&str, &str)], counts: &[u64], sum_ns: u64) {
        let mut cum = 0u64;
        for (k, c) in counts.iter().enumerate().take(BUCKETS + 1) {
            cum += c;
            let le = match k {
                BUCKETS => "+Inf".to_string(),
                _ => format!("{}", bound_ns(k) / 1e9),
            };
            let mut l = labels.to_vec();
            l.push(("le", &le));
            self.sample(&format!("{name}_bucket"), &l, cum);
        }
        self.sample(&format!("{name}_count"), labels, cum);
        self.sample(&format!("{name}_sum"), labels, sum_ns as f64 / 1e9);
    }

    fn stages(&mut self, jobs: &[JobFigures]) {
        let help = "The job's stage: ramp, measure, drain, verify or idle";
        self.family("volbench_job_stage", "stateset", None, help);
        for j in jobs {
            for st in Stage::ALL {
                let l = [
                    ("host", j.host.as_str()),
                    ("job", j.job.as_str()),
                    ("volbench_job_stage", st.name()),
                ];
                self.sample("volbench_job_stage", &l, u8::from(j.figures.stage == st));
            }
        }
    }

    /// A database run's (`volbench db`): commits, failures and the transaction's latency.
    fn transactions(&mut self, jobs: &[JobFigures]) {
        let help = "Transactions committed (pgbench's count: retried ones once)";
        self.family("volbench_db_transactions", "counter", None, help);
        for j in jobs {
            let l = [("host", j.host.as_str()), ("job", j.job.as_str())];
            self.sample("volbench_db_transactions_total", &l, j.figures.ios[0]);
        }
        let help = "Transactions that failed after their retries";
        self.family("volbench_db_transaction_errors", "counter", None, help);
        for j in jobs {
            let l = [("host", j.host.as_str()), ("job", j.job.as_str())];
            self.sample("volbench_db_transaction_errors_total", &l, j.figures.errors);
        }
        let name = "volbench_db_transaction_latency_seconds";
        let help = "A committed transaction's latency, its retries included, as each commits";
        self.family(name, "histogram", Some("seconds"), help);
        for j in jobs.iter().filter(|j| !j.figures.buckets[0].is_empty()) {
            let l = [("host", j.host.as_str()), ("job", j.job.as_str())];
            self.buckets(name, &l, &j.figures.buckets[0], j.figures.lat_sum_ns[0]);
        }
    }

    fn info(&mut self, info: &[(String, String)]) {
        let help = "What is running: the command, workload, label and stored result's id";
        self.family("volbench_run", "info", None, help);
        let l: Vec<(&str, &str)> = info.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.sample("volbench_run_info", &l, 1);
    }
}

/// A label value as both text formats want it: backslash, quote and newline escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Figures;

    fn one() -> Vec<JobFigures> {
        let mut f = Figures {
            ios: [10, 0],
            ..Figures::default()
        };
        f.buckets[0] = vec![0; BUCKETS + 1];
        f.buckets[0][3] = 7;
        f.buckets[0][BUCKETS] = 3;
        f.lat_sum_ns[0] = 2_000_000_000;
        vec![JobFigures {
            host: "h".into(),
            job: "a \"quoted\"\nname\\".into(),
            unit: Unit::Io,
            figures: f,
        }]
    }

    /// Buckets are cumulative and end at +Inf with the count; hostile names stay inside
    /// their quotes; OpenMetrics ends with # EOF and Prometheus's text does not.
    #[test]
    fn a_scrape_is_cumulative_escaped_and_ends_right() {
        let info = [("workload".to_string(), "x\"}".to_string())];
        let om = render(&one(), &info, Flavor::OpenMetrics);
        assert!(om.ends_with("# EOF\n"));
        assert!(om.contains("job=\"a \\\"quoted\\\"\\nname\\\\\""), "{om}");
        assert!(om.contains("le=\"+Inf\"} 10\n"));
        assert!(om.contains("volbench_io_latency_seconds_count{host=\"h\",job="));
        assert!(om.contains("volbench_io_latency_seconds_sum{host=\"h\",job=\"a \\\"quoted\\\"\\nname\\\\\",rw=\"read\"} 2\n"));
        assert!(om.contains("workload=\"x\\\"}\""));
        let third = format!("le=\"{}\"}} 7\n", bound_ns(3) / 1e9);
        assert!(om.contains(&third), "{om}");
        let p = render(&one(), &info, Flavor::Prometheus);
        assert!(!p.contains("# EOF") && !p.contains("# UNIT"));
        assert!(p.contains("# TYPE volbench_io_total counter"));
        assert!(p.contains("# TYPE volbench_run_info gauge"));
    }
}
