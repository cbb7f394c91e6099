//! The pages `serve` makes itself: the history table (a form that filters it, boxes that pick
//! results for a comparison) and error pages. Rendered by minijinja with HTML escaping on, so
//! a label or a target path cannot inject markup. No script or style from the network.

use figures::{fmt_bytes, fmt_count, fmt_thousands};
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
<p id="count">{{ total }} result{% if total != "1" %}s{% endif %}{% if filtered %} match{% if total == "1" %}es{% endif %} the filter{% endif %} in <code>{{ store }}</code>{% if rows %}; #{{ rows[0].id }} to #{{ rows[rows|length - 1].id }} shown, newest first{% endif %}.</p>
<form class="f" method="get" action="/">
{% for f in fields %}<label>{{ f[0] }} {% if f[0] == "kind" %}<select name="kind"><option value="">any</option>{% for k in kinds %}<option{% if k == f[1] %} selected{% endif %}>{{ k }}</option>{% endfor %}</select>{% else %}<input name="{{ f[0] }}" value="{{ f[1] }}"{% if f[0] == "since" or f[0] == "until" %} placeholder="2026-11-01"{% endif %}>{% endif %}</label> {% endfor %}
<button type="submit">Filter</button> <a href="/">all</a>
</form>
<nav id="pages">{% if newer %}<a rel="prev" class="page" href="{{ newer }}">&larr; newer</a>{% endif %}{% if newer and older %} &middot; {% endif %}{% if older %}<a rel="next" class="page" href="{{ older }}">older &rarr;</a>{% endif %}</nav>
<form method="get" action="/compare" id="pick">
<p><button type="submit" id="compare">Compare selected</button> <span id="picked">(pick two or more)</span>
<a id="share" href="">link to this selection</a></p>
<table id="history"><thead><tr><th></th><th>id</th><th>started</th><th>kind</th><th>label</th><th>workload</th><th>IOPS</th><th>bandwidth</th><th>host</th><th>machine</th><th>target</th><th>status</th></tr></thead><tbody>
{% for r in rows %}<tr><td><input type="checkbox" name="id" value="{{ r.id }}"></td><td><a href="/result/{{ r.id }}">#{{ r.id }}</a></td><td class="t">{{ r.started_at }}</td><td>{{ r.kind }}</td><td>{{ r.label }}</td><td>{{ r.what }}</td><td class="n">{{ r.iops }}</td><td class="n">{{ r.bw }}</td><td>{{ r.hostname }}</td><td>{{ r.machine }}</td><td>{{ r.target }}</td><td{% if r.status != "complete" %} class="bad"{% endif %}>{{ r.status }}</td></tr>
{% endfor %}</tbody></table></form>
<nav>{% if newer %}<a class="page" href="{{ newer }}">&larr; newer</a>{% endif %}{% if newer and older %} &middot; {% endif %}{% if older %}<a class="page" href="{{ older }}">older &rarr;</a>{% endif %}</nav>
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
  // Picks made on other pages come along in the address (each page link carries them), and
  // go into the comparison as hidden fields.
  var want = (new URLSearchParams(location.search).get('pick') || '').split(',').filter(function (i) { return /^[0-9]+$/.test(i); });
  var here = boxes.map(function (b) { return b.value; });
  var carried = want.filter(function (i) { return here.indexOf(i) < 0; });
  boxes.forEach(function (b) { if (want.indexOf(b.value) >= 0) b.checked = true; });
  carried.forEach(function (i) {
    var h = document.createElement('input');
    h.type = 'hidden'; h.name = 'id'; h.value = i;
    form.appendChild(h);
  });
  var links = Array.prototype.slice.call(document.querySelectorAll('a.page'));
  links.forEach(function (a) { a.dataset.base = a.getAttribute('href'); });
  function update() {
    // Oldest first, whatever the page's order: the first is the comparison's baseline.
    var ids = carried.concat(boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; }))
      .sort(function (x, y) { return x - y; });
    links.forEach(function (a) { a.href = a.dataset.base + (ids.length ? '&pick=' + ids.join(',') : ''); });
    form.dataset.compare = ids.length >= 2 ? '/compare?' + ids.map(function (i) { return 'id=' + i; }).join('&') : '';
    document.getElementById('compare').disabled = ids.length < 2;
    document.getElementById('picked').textContent = ids.length >= 2 ? '(' + ids.length + ' picked)' : '(pick two or more)';
    // The page's own filters kept (a team's shared selection had lost them).
    var rest = location.search.replace(/^\?/, '').split('&').filter(function (p) { return p && p.split('=')[0] !== 'pick'; });
    if (ids.length) rest.push('pick=' + ids.join(','));
    document.getElementById('share').href = '/' + (rest.length ? '?' + rest.join('&') : '');
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

/// The rows a page shows by default, and the most one asks for (`limit`).
pub const PAGE: u64 = 100;
pub const MAX_PAGE: u64 = 1000;

/// One page of the history and where it sits in the filter's rows.
pub struct Paged {
    /// Newest first.
    pub rows: Vec<Row>,
    /// Every row the filter picks, on all pages.
    pub total: u64,
    /// The first row's id when newer rows exist (the page before is `after` it).
    pub newer: Option<i64>,
    /// The last row's id when older rows exist (the next page is `before` it).
    pub older: Option<i64>,
    pub limit: u64,
}

/// The kinds a result is: the form's choice for `kind`.
pub use store::KINDS;

impl Paged {
    /// The address of the page beside this one: the same filters and page size, and the
    /// bound `key` (`before` or `after`) at `id`.
    fn link(&self, f: &Filter, path: &str, key: &str, id: i64) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in fields(f) {
            if !v.is_empty() {
                q.append_pair(k, &v);
            }
        }
        if self.limit != PAGE {
            q.append_pair("limit", &self.limit.to_string());
        }
        q.append_pair(key, &id.to_string());
        format!("{path}?{}", q.finish())
    }

    fn newer_link(&self, f: &Filter, path: &str) -> Option<String> {
        self.newer.map(|id| self.link(f, path, "after", id))
    }

    fn older_link(&self, f: &Filter, path: &str) -> Option<String> {
        self.older.map(|id| self.link(f, path, "before", id))
    }

    /// RFC 8288 links to the pages beside this one, and the filter's count, for a program
    /// reading `history.json`.
    pub fn link_headers(&self, f: &Filter, path: &str) -> Vec<(&'static str, String)> {
        let links: Vec<String> = [
            self.newer_link(f, path)
                .map(|l| format!("<{l}>; rel=\"prev\"")),
            self.older_link(f, path)
                .map(|l| format!("<{l}>; rel=\"next\"")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut h = vec![("X-Total-Count", self.total.to_string())];
        if !links.is_empty() {
            h.push(("Link", links.join(", ")));
        }
        h
    }
}

/// The filter's fields as the form names them, in the form's order.
fn fields(f: &Filter) -> [(&'static str, String); 8] {
    let v = |o: &Option<String>| o.clone().unwrap_or_default();
    [
        ("label", v(&f.label)),
        ("host", v(&f.host)),
        ("machine", v(&f.machine)),
        ("kind", v(&f.kind)),
        ("target", v(&f.target)),
        ("suite", v(&f.suite)),
        ("since", v(&f.since)),
        ("until", v(&f.until)),
    ]
}

pub fn history(p: &Paged, f: &Filter, store: &str) -> anyhow::Result<String> {
    let fields = fields(f);
    let filtered = fields.iter().any(|(_, v)| !v.is_empty());
    let shown: Vec<Shown> = p.rows.iter().map(shown).collect();
    Ok(env().get_template("history.html")?.render(context! {
        rows => shown, fields => fields, store => store, style => STYLE,
        total => fmt_thousands(p.total), filtered => filtered, kinds => KINDS,
        newer => p.newer_link(f, "/"), older => p.older_link(f, "/"),
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
