//! The pages `serve` makes itself: the history table (a form that filters it, boxes that pick
//! results for a comparison) and error pages. Rendered by minijinja with HTML escaping on, so
//! a label or a target path cannot inject markup. No script or style from the network.

use figures::{fmt_bytes, fmt_count};
use minijinja::{context, Environment};
use serde::Serialize;
use store::{Filter, Row};

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right}td.t{white-space:nowrap}th{background:#f4f4f4}form.f input{width:9em}nav{margin-bottom:1em}\
.bad{color:#a00}";

const HISTORY: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>volbench results: {{ store }}</title>
<style>{{ style }}</style></head><body>
<h1>volbench results</h1>
<p>{{ rows|length }} result{% if rows|length != 1 %}s{% endif %} in <code>{{ store }}</code>{% if hosts > 1 %} from {{ hosts }} hosts{% endif %}.</p>
<form class="f" method="get" action="/">
{% for f in fields %}<label>{{ f[0] }} <input name="{{ f[0] }}" value="{{ f[1] }}"></label> {% endfor %}
<button type="submit">Filter</button> <a href="/">all</a>
</form>
<form method="get" action="/compare" id="pick">
<p><button type="submit" id="compare">Compare selected</button> <span id="picked">(pick two or more)</span>
<a id="share" href="">link to this selection</a></p>
<table id="history"><thead><tr><th></th><th>id</th><th>started</th><th>kind</th><th>label</th><th>workload</th><th>IOPS</th><th>bandwidth</th><th>host</th><th>machine</th><th>target</th><th>status</th></tr></thead><tbody>
{% for r in rows %}<tr><td><input type="checkbox" name="id" value="{{ r.id }}"></td><td><a href="/result/{{ r.id }}">#{{ r.id }}</a></td><td class="t">{{ r.started_at }}</td><td>{{ r.kind }}</td><td>{{ r.label }}</td><td>{{ r.what }}</td><td class="n">{{ r.iops }}</td><td class="n">{{ r.bw }}</td><td>{{ r.hostname }}</td><td>{{ r.machine }}</td><td>{{ r.target }}</td><td{% if r.status != "complete" %} class="bad"{% endif %}>{{ r.status }}</td></tr>
{% endfor %}</tbody></table></form>
<script>{{ script }}</script>
</body></html>
"#;

/// The history page's one script, kept apart so its hash is known when the server is built
/// (the page's Content-Security-Policy allows it and nothing else).
pub const HISTORY_JS: &str = r#"
// The selection as a shareable address (/?pick=3,7 ticks those boxes) and the comparison it
// opens; the form works without this script.
(function () {
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[name=id]'));
  var form = document.getElementById('pick');
  var pick = new URLSearchParams(location.search).get('pick');
  if (pick) {
    var want = pick.split(',');
    boxes.forEach(function (b) { if (want.indexOf(b.value) >= 0) b.checked = true; });
  }
  function update() {
    var ids = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
    form.dataset.compare = ids.length >= 2 ? '/compare?' + ids.map(function (i) { return 'id=' + i; }).join('&') : '';
    document.getElementById('compare').disabled = ids.length < 2;
    document.getElementById('picked').textContent = ids.length >= 2 ? '(' + ids.length + ' picked)' : '(pick two or more)';
    document.getElementById('share').href = '/?pick=' + ids.join(',');
  }
  boxes.forEach(function (b) { b.addEventListener('change', update); });
  update();
})();
"#;

const ERROR: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ status }}</title><style>{{ style }}</style></head>
<body><nav><a href="/">history</a></nav><h1>{{ status }}</h1><p class="bad">{{ message }}</p></body></html>
"#;

/// One row as the page shows it: rates in units, a db result's rate in tps.
#[derive(Serialize)]
struct Shown<'a> {
    id: i64,
    started_at: &'a str,
    kind: &'a str,
    label: &'a str,
    what: &'a str,
    iops: String,
    bw: String,
    hostname: &'a str,
    machine: &'a str,
    target: &'a str,
    status: &'a str,
}

fn shown(r: &Row) -> Shown<'_> {
    Shown {
        id: r.id,
        started_at: &r.started_at,
        kind: &r.kind,
        label: r.label.as_deref().unwrap_or(""),
        what: &r.what,
        iops: r.iops.map_or(String::new(), |v| {
            if r.kind == "db" {
                format!("{} tps", fmt_count(v))
            } else {
                fmt_count(v)
            }
        }),
        bw: r
            .bw_bytes
            .map_or(String::new(), |b| format!("{}/s", fmt_bytes(b))),
        hostname: &r.hostname,
        machine: &r.machine,
        target: &r.target,
        status: &r.status,
    }
}

fn env() -> Environment<'static> {
    let mut env = Environment::new();
    // Names ending in .html are escaped on output.
    env.add_template("history.html", HISTORY)
        .expect("the template parses");
    env.add_template("error.html", ERROR)
        .expect("the template parses");
    env
}

pub fn history(rows: &[Row], f: &Filter, store: &str) -> anyhow::Result<String> {
    let v = |o: &Option<String>| o.clone().unwrap_or_default();
    let fields = [
        ("label", v(&f.label)),
        ("host", v(&f.host)),
        ("machine", v(&f.machine)),
        ("kind", v(&f.kind)),
        ("target", v(&f.target)),
        ("suite", v(&f.suite)),
        ("since", v(&f.since)),
        ("until", v(&f.until)),
    ];
    let mut hosts: Vec<&str> = rows.iter().map(|r| r.hostname.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let shown: Vec<Shown> = rows.iter().map(shown).collect();
    Ok(env().get_template("history.html")?.render(context! {
        rows => shown, fields => fields, store => store, style => STYLE, hosts => hosts.len(),
        script => minijinja::Value::from_safe_string(HISTORY_JS.to_string()),
    })?)
}

pub fn error(status: u16, message: &str) -> String {
    env()
        .get_template("error.html")
        .and_then(|t| t.render(context! { status => status, message => message, style => STYLE }))
        .unwrap_or_else(|_| format!("{status}"))
}

/// A report page with a way back to the history at its top.
pub fn with_nav(html: Vec<u8>, title: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(&html);
    let nav = format!(
        "<nav style=\"font:14px system-ui,sans-serif;margin:0 0 1em\"><a href=\"/\">&larr; history</a> &middot; {}</nav>",
        minijinja::HtmlEscape(title)
    );
    match text
        .find("<body")
        .and_then(|i| text[i..].find('>').map(|j| i + j + 1))
    {
        Some(at) => format!("{}{nav}{}", &text[..at], &text[at..]).into_bytes(),
        None => html,
    }
}
