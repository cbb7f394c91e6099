//! `volbench chart`: one chart as an SVG file for a post or a slide, drawn with plotters' SVG
//! backend (text as SVG text, so no font files are needed).
//!
//! A sweep or suite gives a line per combination of the other swept values against the chosen
//! parameter (its values labelled at every point, equally spaced, so a doubling sweep reads as
//! a log-2 axis); a run gives its per-second series.

use figures::{fmt_count, fmt_ns};
use plotters::prelude::*;
use report::{Document, JobReport, SuiteReport};
use workload::format_bytes;

/// What a chart plots, from `--metric`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Iops,
    Bw,
    P99,
    LatMean,
}

impl Metric {
    pub fn parse(s: &str) -> Option<Metric> {
        match s {
            "iops" => Some(Metric::Iops),
            "bw" | "bandwidth" => Some(Metric::Bw),
            "p99" => Some(Metric::P99),
            "lat" | "lat_mean" => Some(Metric::LatMean),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::Bw => "bandwidth",
            Metric::P99 => "p99 latency",
            Metric::LatMean => "mean latency",
        }
    }
    fn of(self, j: &JobReport) -> Option<f64> {
        let lat = || j.read.as_ref().or(j.write.as_ref()).map(|d| &d.lat_ns);
        match self {
            Metric::Iops => Some(j.total_iops()),
            Metric::Bw => Some(j.total_bw_bytes()),
            Metric::P99 => lat()?.percentile(99.0).map(|v| v as f64),
            Metric::LatMean => lat().map(|l| l.mean_ns),
        }
    }
    fn fmt(self, v: f64) -> String {
        match self {
            Metric::Iops => fmt_count(v),
            Metric::Bw => format!("{}/s", format_bytes(v)),
            Metric::P99 | Metric::LatMean => fmt_ns(v),
        }
    }
}

/// Lines of (label, values per x) over x labels.
struct Lines {
    title: String,
    x_name: String,
    xs: Vec<String>,
    lines: Vec<(String, Vec<Option<f64>>)>,
}

/// The chart of `metric` against `x` (a swept parameter, or `time` for a run) as SVG text.
pub fn chart(doc: &Document, metric: Metric, x: Option<&str>) -> Result<String, String> {
    let lines = match doc {
        Document::Compare(_) => return Err("a comparison is charted in its HTML page".into()),
        Document::Fsync(_) | Document::Db(_) | Document::Infer(_) | Document::Durability(_) => {
            return Err(
                "fsync and db reports are charted in their HTML report (volbench report ID)".into(),
            )
        }
        Document::Suite(s) => match &s.curve {
            Some(c) => curve_lines(c, metric, x)?,
            None => suite_lines(s, metric, x)?,
        },
        Document::Run(r) => {
            if x.is_some_and(|x| x != "time") {
                return Err("a single run can be charted against time only: --x time".into());
            }
            run_lines(r, metric)?
        }
    };
    draw(&lines, metric)
}

/// A run's figure per second: its samples that cover at least half an interval (the last,
/// cut short by the run's end, would read high or low).
fn run_lines(r: &report::RunReport, metric: Metric) -> Result<Lines, String> {
    let full: Vec<_> = r
        .group
        .series
        .samples
        .iter()
        .filter(|s| s.dt_ms * 2 >= r.group.series.interval_ms.max(1))
        .collect();
    let rate = |v: u64, dt: u64| v as f64 * 1000.0 / dt as f64;
    let all = |v: Vec<Option<f64>>| vec![("all".to_string(), v)];
    let lines = match metric {
        Metric::Iops => all(full
            .iter()
            .map(|s| Some(rate(s.ios[0] + s.ios[1], s.dt_ms)))
            .collect()),
        Metric::Bw => all(full
            .iter()
            .map(|s| Some(rate(s.bytes[0] + s.bytes[1], s.dt_ms)))
            .collect()),
        // Each interval's own p99, per direction it has.
        Metric::P99 => [(0, "read"), (1, "write")]
            .into_iter()
            .filter(|(d, _)| full.iter().any(|s| s.lat_pct.dir(*d).is_some()))
            .map(|(d, name)| {
                let v = full
                    .iter()
                    .map(|s| s.lat_pct.dir(d).map(|q| q.p99_ns as f64));
                (format!("{name} p99"), v.collect())
            })
            .collect(),
        Metric::LatMean => {
            return Err(
                "per second, a run has IOPS, bandwidth and p99: --metric iops, bw or p99".into(),
            )
        }
    };
    Ok(Lines {
        title: format!("{} per second", metric.name()),
        x_name: "time (s)".into(),
        xs: full
            .iter()
            .map(|s| format!("{:.0}", s.t_ms as f64 / 1000.0))
            .collect(),
        lines,
    })
}

/// A curve against its load (`--x load_percent`, the default): its p99 from the due time
/// (with fio's clat beside it), or offered and achieved IOPS, or bandwidth.
fn curve_lines(
    c: &report::curve::CurveReport,
    metric: Metric,
    x: Option<&str>,
) -> Result<Lines, String> {
    if let Some(x) = x.filter(|x| *x != "load_percent") {
        return Err(format!(
            "--x {x}: a curve is charted against its load: --x load_percent"
        ));
    }
    let line = |name: &str, f: &dyn Fn(&report::curve::CurvePoint) -> f64| {
        (
            name.to_string(),
            c.points.iter().map(|p| Some(f(p))).collect(),
        )
    };
    let lines = match metric {
        Metric::P99 => vec![
            line("due p99", &|p| p.lat_due.p99_ns as f64),
            line("clat p99 (wait left out)", &|p| p.clat.p99_ns as f64),
        ],
        Metric::LatMean => {
            return Err("a curve keeps percentiles, not a mean: --metric p99, iops or bw".into())
        }
        Metric::Iops => vec![
            line("offered", &|p| p.offered_iops),
            line("achieved", &|p| p.achieved_iops),
        ],
        Metric::Bw => vec![line("achieved", &|p| p.achieved_bw_bytes)],
    };
    Ok(Lines {
        title: format!("{} against the load (share of the maximum)", metric.name()),
        x_name: "load_percent".into(),
        xs: c
            .points
            .iter()
            .map(|p| format!("{} %", p.share_percent))
            .collect(),
        lines,
    })
}

fn suite_lines(s: &SuiteReport, metric: Metric, x: Option<&str>) -> Result<Lines, String> {
    let keys = crate::table::swept_keys(s);
    let axis = match x {
        Some(x) if keys.iter().any(|k| k == x) => x.to_string(),
        Some(x) if keys.is_empty() => {
            return Err(format!(
                "--x {x}: this result was swept over nothing: use volbench report"
            ))
        }
        Some(x) => {
            return Err(format!(
                "--x {x}: this result was swept over {}",
                keys.join(", ")
            ))
        }
        None => keys
            .last()
            .cloned()
            .ok_or("this result has no swept parameter: use volbench report")?,
    };
    let a = crate::table::along(s, &axis);
    let lines = a
        .lines
        .into_iter()
        .map(|(n, pts)| {
            (
                n,
                pts.into_iter()
                    .map(|j| j.and_then(|j| metric.of(j)))
                    .collect(),
            )
        })
        .collect();
    Ok(Lines {
        title: format!("{} against {axis}", metric.name()),
        x_name: axis,
        xs: a.xs,
        lines,
    })
}

/// Colours and markers that stay apart in grey print: each line has its own marker shape.
const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 95, 168),
    RGBColor(209, 73, 91),
    RGBColor(46, 133, 64),
    RGBColor(237, 174, 73),
    RGBColor(106, 76, 147),
    RGBColor(0, 121, 140),
];

/// The y axis's unit: bandwidth is drawn in one binary unit (MiB/s, GiB/s ...) so that
/// plotters' decimal tick steps land on round figures of that unit, not on 190.7 MiB/s.
fn y_unit(metric: Metric, top: f64) -> (f64, &'static str) {
    const UNITS: [&str; 6] = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"];
    if metric != Metric::Bw {
        return (1.0, "");
    }
    let k = if top >= 1.0 {
        ((top.log2() / 10.0).floor() as usize).min(UNITS.len() - 1)
    } else {
        0
    };
    (1024f64.powi(k as i32), UNITS[k])
}

/// Room above the highest point for the legend box, as a fraction of the data's span: a
/// line of 22 px per series and a margin, out of about 420 px of plot, so no line runs
/// under the legend.
fn legend_headroom(series: usize) -> f64 {
    let px = 22.0 * series as f64 + 24.0;
    px / (420.0 - px).max(100.0)
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;
type DrawError<'b> = DrawingAreaErrorKind<<SVGBackend<'b> as DrawingBackend>::ErrorType>;

/// Line `k` of a chart, in its colour and with its marker (circles, triangles, crosses in
/// turn, so lines stay apart in grey print), named in the legend.
fn line<'b>(
    c: &mut Chart<'_, 'b>,
    k: usize,
    name: &str,
    pts: Vec<(f64, f64)>,
) -> Result<(), DrawError<'b>> {
    let colour = COLOURS[k % COLOURS.len()];
    c.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    match k % 3 {
        0 => c.draw_series(pts.iter().map(|&p| Circle::new(p, 5, colour.filled())))?,
        1 => c.draw_series(
            pts.iter()
                .map(|&p| TriangleMarker::new(p, 6, colour.filled())),
        )?,
        _ => c.draw_series(
            pts.iter()
                .map(|&p| Cross::new(p, 5, colour.stroke_width(2))),
        )?,
    };
    Ok(())
}

/// The chart's axes: the x values named at whole positions, the y values in `unit` (or the
/// metric's own format where it has none).
fn mesh<'b>(
    c: &mut Chart<'_, 'b>,
    l: &Lines,
    metric: Metric,
    unit: &str,
) -> Result<(), DrawError<'b>> {
    let y_fmt = |v: &f64| {
        if unit.is_empty() {
            metric.fmt(*v)
        } else {
            format!("{} {unit}", fmt_count(*v))
        }
    };
    let x_fmt = |v: &f64| {
        let i = v.round();
        match (v - i).abs() < 1e-6 && i >= 0.0 {
            true => l.xs.get(i as usize).cloned().unwrap_or_default(),
            false => String::new(),
        }
    };
    c.configure_mesh()
        .light_line_style(WHITE)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .x_desc(&l.x_name)
        .y_desc(metric.name())
        .x_labels(l.xs.len().max(2))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()
}

fn draw(l: &Lines, metric: Metric) -> Result<String, String> {
    let mut svg = String::new();
    let top = l
        .lines
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b));
    let (div, unit) = y_unit(metric, top);
    let top = top / div;
    let y_max = (top * (1.05 + legend_headroom(l.lines.len()))).max(1.0);
    let n = l.xs.len().max(2);
    {
        let root = SVGBackend::with_string(&mut svg, (900, 540)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut c = ChartBuilder::on(&root)
            .caption(&l.title, ("sans-serif", 24))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(-0.3f64..(n as f64 - 0.7), 0f64..y_max)
            .map_err(e)?;
        mesh(&mut c, l, metric, unit).map_err(e)?;
        for (k, (name, vals)) in l.lines.iter().enumerate() {
            let pts: Vec<(f64, f64)> = vals
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i as f64, v / div)))
                .collect();
            line(&mut c, k, name, pts).map_err(e)?;
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of `attr="N"` in every `<tag ...>` of the SVG.
    fn attr(svg: &str, tag: &str, name: &str) -> Vec<f64> {
        svg.split(&format!("<{tag} "))
            .skip(1)
            .filter_map(|t| {
                let v = t.split(&format!(" {name}=\"")).nth(1)?;
                v.split('"').next()?.parse().ok()
            })
            .collect()
    }

    /// Six lines all peaking at the right edge, where the legend sits: every point stays
    /// below the legend's box, and the bandwidth axis steps in whole MiB/s.
    #[test]
    fn legend_sits_above_every_line_and_bandwidth_ticks_are_round() {
        let lines = (0..6)
            .map(|k| {
                let top = 200e6 + k as f64 * 10e6;
                (
                    format!("line {k}"),
                    vec![Some(top / 4.0), Some(top / 2.0), Some(top)],
                )
            })
            .collect();
        let l = Lines {
            title: "t".into(),
            x_name: "bs".into(),
            xs: vec!["4k".into(), "64k".into(), "1m".into()],
            lines,
        };
        let svg = draw(&l, Metric::Bw).unwrap();
        let (ys, hs) = (attr(&svg, "rect", "y"), attr(&svg, "rect", "height"));
        let legend_bottom = ys.last().unwrap() + hs.last().unwrap();
        let circles = attr(&svg, "circle", "cy");
        assert_eq!(circles.len(), 6, "two lines of six have circles");
        for cy in circles {
            assert!(
                cy - 5.0 > legend_bottom,
                "a point at y={cy} under the legend ending at {legend_bottom}"
            );
        }
        let labels: Vec<&str> = svg
            .split("<text")
            .filter_map(|t| t.split_once('>')?.1.split("</text>").next().map(str::trim))
            .filter(|t| t.ends_with("MiB/s"))
            .collect();
        assert!(labels.len() >= 4, "{labels:?}");
        for l in labels {
            let n: f64 = l.trim_end_matches(" MiB/s").parse().unwrap();
            assert_eq!(n % 25.0, 0.0, "{l} is not a round step");
        }
    }
}
