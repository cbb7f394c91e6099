//! fio's job-file grammar: `[section]` headers, `key=value` and bare flags, `;`/`#` comment
//! lines, `${VAR}` environment substitution and `include` directives. This layer only reads
//! text into located options; what an option means lives in the option table (`fio/table`).

use std::path::{Path, PathBuf};

/// One `key[=value]` with where it came from, so every later error can name file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawOption {
    pub key: String,
    pub value: Option<String>,
    pub file: PathBuf,
    pub line: usize,
}

impl RawOption {
    pub fn at(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub options: Vec<RawOption>,
    pub file: PathBuf,
    pub line: usize,
}

/// An error in a job file, at a line (0: the file as a whole, which has no line to name).
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.msg),
            n => write!(f, "{}:{n}: {}", self.file, self.msg),
        }
    }
}

impl std::error::Error for ParseError {}

fn perr(file: &Path, line: usize, msg: impl Into<String>) -> ParseError {
    ParseError {
        file: file.display().to_string(),
        line,
        msg: msg.into(),
    }
}

/// Replaces `${NAME}` with the environment's value. An unset variable is an error: silently
/// running with an empty filename or size would measure something else.
fn expand_env(
    s: &str,
    file: &Path,
    line: usize,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ParseError> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| perr(file, line, "unterminated ${...}: close it with }"))?;
        let name = &after[..end];
        let v = env(name).ok_or_else(|| {
            perr(
                file,
                line,
                format!("environment variable {name} is not set: export it or edit the job file"),
            )
        })?;
        out.push_str(&v);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A line as fio reads it (`strip_blank_end` in its parse.c): everything from the first `;`
/// or `#` on is a comment, with or without a blank before it (`bs=4k; no. of bytes` is
/// `bs=4k`, and `filename=/a#b` is `/a`), and the blanks around it go.
fn fio_line(raw: &str) -> &str {
    let end = raw.find([';', '#']).unwrap_or(raw.len());
    raw[..end].trim()
}

/// Parses job-file text. `file` names it in errors and anchors relative includes.
pub fn parse_str(
    text: &str,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    depth: usize,
) -> Result<Vec<Section>, ParseError> {
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = fio_line(raw);
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("include ") {
            let included = include(rest, file, line, env, depth)?;
            // Options before any section in the included file continue the current section.
            for s in included {
                match sections.last_mut() {
                    Some(cur) if s.name.is_empty() => cur.options.extend(s.options),
                    _ => sections.push(s),
                }
            }
        } else if let Some(h) = t.strip_prefix('[') {
            sections.push(header(h, t, file, line)?);
        } else {
            let opt = option(t, file, line, env)?;
            match sections.last_mut() {
                Some(s) => s.options.push(opt),
                None if depth > 0 => sections.push(Section {
                    name: String::new(),
                    options: vec![opt],
                    file: file.to_path_buf(),
                    line,
                }),
                None => {
                    return Err(perr(
                        file,
                        line,
                        format!(
                        "option '{}' comes before any [section]: put it under [global] or a job",
                        crate::shown(&opt.key)
                    ),
                    ))
                }
            }
        }
    }
    Ok(sections)
}

/// The sections of an included file (`include FILE`, relative to the including file).
fn include(
    rest: &str,
    file: &Path,
    line: usize,
    env: &dyn Fn(&str) -> Option<String>,
    depth: usize,
) -> Result<Vec<Section>, ParseError> {
    if depth >= 16 {
        return Err(perr(
            file,
            line,
            "include nested more than 16 deep: is it recursive?",
        ));
    }
    let target = expand_env(rest.trim(), file, line, env)?;
    let path = file
        .parent()
        .map(|d| d.join(&target))
        .unwrap_or_else(|| PathBuf::from(&target));
    let inc = crate::input::read_bounded(&path, crate::input::MAX_TEXT).map_err(|e| {
        perr(
            file,
            line,
            format!("cannot include {}: it {e}", path.display()),
        )
    })?;
    // An included file that is not a job file is named by its line, never echoed (it may be
    // /etc/shadow). An error of a file it includes in turn is already told that way, and
    // passes through.
    parse_str(&inc, &path, env, depth + 1).map_err(|e| {
        if e.msg.starts_with("cannot include ") || e.msg.starts_with("include nested") {
            return e;
        }
        perr(
            file,
            line,
            format!(
                "cannot include {}: its line {} is not a fio option or section: is it a job file?",
                path.display(),
                e.line
            ),
        )
    })
}

/// A `[name]` section header (`h` is what follows the `[`).
fn header(h: &str, t: &str, file: &Path, line: usize) -> Result<Section, ParseError> {
    let name = h
        .strip_suffix(']')
        .ok_or_else(|| {
            perr(
                file,
                line,
                format!("section header {} lacks its closing ]", crate::shown(t)),
            )
        })?
        .trim();
    if name.is_empty() {
        return Err(perr(file, line, "empty section name []: name the job"));
    }
    Ok(Section {
        name: name.to_string(),
        options: Vec::new(),
        file: file.to_path_buf(),
        line,
    })
}

/// A `key=value` line or a bare flag.
fn option(
    t: &str,
    file: &Path,
    line: usize,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<RawOption, ParseError> {
    let (key, value) = match t.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (t, None),
    };
    // fio's option names are letters, digits, '_' and '-': anything else is a line of another
    // kind of file (an included /etc/shadow's `root:$y$...`), not an unknown option.
    let name_ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if key.is_empty() || !key.chars().all(name_ok) {
        return Err(perr(
            file,
            line,
            format!(
                "'{}' is not an option: write key=value or a bare flag",
                crate::shown(t)
            ),
        ));
    }
    let value = value
        .map(|v| expand_env(v, file, line, env))
        .transpose()?
        .map(|v| v.trim_matches('"').to_string());
    Ok(RawOption {
        key: key.to_ascii_lowercase(),
        value,
        file: file.to_path_buf(),
        line,
    })
}

pub fn parse_file(path: &Path) -> Result<Vec<Section>, ParseError> {
    let fail = |msg: String| ParseError {
        file: crate::shown(&path.display().to_string()),
        line: 0,
        msg,
    };
    // Reading a FIFO or a device would block or never end: only regular files are job files.
    let text = crate::input::read_bounded(path, crate::input::MAX_TEXT)
        .map_err(|e| fail(format!("{e}: give the path of a fio job file")))?;
    parse_str(&text, path, &|k| std::env::var(k).ok(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Vec<Section>, ParseError> {
        parse_str(
            t,
            Path::new("job.fio"),
            &|k| (k == "DEV").then(|| "/dev/x".into()),
            0,
        )
    }

    #[test]
    fn comments_after_values_are_dropped_as_fio_drops_them() {
        let s = parse("[j] ; the job\nnumjobs=16 # four per core\nrate_iops=15000; the cap\ntime_based\t# flag\nfilename=/a#b\n").unwrap();
        let o = &s[0].options;
        assert_eq!(o[0].value.as_deref(), Some("16"));
        assert_eq!(o[1].value.as_deref(), Some("15000"));
        assert_eq!(
            (o[2].key.as_str(), o[2].value.as_deref()),
            (crate::fio::table::names::TIME_BASED, None)
        );
        // fio cuts a value at the first # or ; whatever precedes it (strip_blank_end).
        assert_eq!(o[3].value.as_deref(), Some("/a"));
        assert_eq!(s[0].name, "j");
    }

    #[test]
    fn sections_options_flags_and_comments() {
        let s = parse("; comment\n[global]\nbs=4k\n# another\ndirect = 1\n\n[job1]\nrw=randread\ntime_based\nfilename=${DEV}\n").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "global");
        assert_eq!(s[0].options[1].key, "direct");
        assert_eq!(s[0].options[1].value.as_deref(), Some("1"));
        assert_eq!(s[1].options[1].value, None);
        assert_eq!(s[1].options[2].value.as_deref(), Some("/dev/x"));
        assert_eq!(s[1].options[2].line, 10);
    }

    #[test]
    fn malformed_input_names_the_line() {
        assert_eq!(parse("[global\nbs=4k").unwrap_err().line, 1);
        assert_eq!(parse("bs=4k\n").unwrap_err().line, 1);
        let e = parse("[a]\nfilename=${NOPE}\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("NOPE is not set"));
        assert!(parse("[a]\nbad key=1\n")
            .unwrap_err()
            .msg
            .contains("not an option"));
        assert!(parse("[]\n").is_err());
    }

    #[test]
    fn includes_are_relative_to_the_including_file() {
        let d = std::env::temp_dir().join(format!("vbinc{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("common.fio"), "ioengine=libaio\n[inc]\nrw=write\n").unwrap();
        std::fs::write(
            d.join("main.fio"),
            "[global]\ninclude common.fio\n[j]\nbs=8k\n",
        )
        .unwrap();
        let s = parse_file(&d.join("main.fio")).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
        let names: Vec<&str> = s.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, vec!["global", "inc", "j"]);
        assert_eq!(s[0].options[0].key, "ioengine");
        assert!(s[0].options[0].file.ends_with("common.fio"));
    }
}
