//! fio's arithmetic in option values, as fio 3.33 reads it.
//!
//! Two mechanisms, both fio's:
//! - **Keywords.** `$pagesize`, `$mb_memory` and `$ncpus` are replaced by this host's values
//!   anywhere in a value; when one was replaced and the value holds `+ - * /`, fio hands the
//!   value to `bc`, which computes in whole numbers and knows no size suffixes
//!   (`size=$ncpus*4k` fails in fio). Here the same integer arithmetic, without a `bc` process.
//! - **Expressions.** A number written in parentheses, `bs=(2*4k)`, is computed with fio's
//!   expression grammar (exp/expression-parser.y in fio's source): `+ - * / % ^`, parentheses,
//!   unit suffixes on any term (`k` is 1024 and `kib` 1000 there, as in fio's lexer; in a
//!   time, `m` is a minute), and a suffix applying to the product before it (`2*4k` is 8k).
//!   fio builds this grammar only with lex and yacc present; Debian's fio 3.33 lacks it and
//!   refuses such values, upstream builds accept them.
//!
//! A value without either is left alone; `3*1k` (no parentheses, no keyword), which fio
//! silently reads as 3, is refused by the option's own parser.

use std::borrow::Cow;

/// The three keywords and their values on this host (fio's `fio_keywords[]`).
fn keywords() -> [(&'static str, u64); 3] {
    [
        ("$pagesize", page_size()),
        ("$mb_memory", mb_memory()),
        ("$ncpus", ncpus()),
    ]
}

fn page_size() -> u64 {
    // SAFETY: sysconf with a valid name only reads a system constant.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(n).unwrap_or(4096)
}

/// Megabytes of memory, as fio's `os_phys_mem() / 1 MiB` (physical pages times page size).
fn mb_memory() -> u64 {
    // SAFETY: as above.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    u64::try_from(pages).unwrap_or(0) * page_size() / (1 << 20)
}

/// CPUs configured (fio's `cpus_configured()`), not only those this process may use.
fn ncpus() -> u64 {
    // SAFETY: as above.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    u64::try_from(n).unwrap_or(1)
}

/// What a value is computed as: a time takes time suffixes (`m` a minute), a size or plain
/// number size suffixes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Units {
    Number,
    Time,
}

/// The value with fio's keywords replaced and, for a numeric option (`units` given), its
/// arithmetic computed: what the option's own parser then reads. An error says why fio would
/// refuse the value too.
pub fn resolve(value: &str, units: Option<Units>) -> Result<Cow<'_, str>, String> {
    let mut v = Cow::Borrowed(value);
    let mut replaced = false;
    // The host's values cost syscalls (and a read of the memory size): only for a '$'.
    for (word, n) in value.contains('$').then(keywords).into_iter().flatten() {
        if v.contains(word) {
            v = Cow::Owned(v.replace(word, &n.to_string()));
            replaced = true;
        }
    }
    let Some(units) = units else {
        return Ok(v);
    };
    if replaced && v.contains(['+', '-', '*', '/']) {
        let n = Parser::new(&v, None)
            .whole()
            .map_err(|e| format!("{e} (fio computes a value holding $pagesize, $mb_memory or $ncpus with bc, in whole numbers without size suffixes: write 4096, not 4k)"))?;
        return Ok(Cow::Owned(n.int().to_string()));
    }
    if !v.contains('(') {
        return Ok(v);
    }
    // Each comma- or colon-separated part is a number of its own (bs=(4k),(8k)), as fio
    // splits the value before it parses a number.
    let mut out = String::with_capacity(v.len());
    for part in v.split_inclusive([',', ':']) {
        let body = part.trim_end_matches([',', ':']);
        let sep = &part[body.len()..];
        out.push_str(&expression(body.trim(), units)?);
        out.push_str(sep);
    }
    Ok(Cow::Owned(out))
}

/// One part: computed when it starts with '(', else as written. A result with a time suffix
/// is in microseconds; without one the option's own bare unit applies, as in fio.
fn expression(part: &str, units: Units) -> Result<String, String> {
    if !part.starts_with('(') {
        return Ok(part.to_string());
    }
    let mut p = Parser::new(part, Some(units));
    let n = p.whole()?;
    let i = n.int();
    if i < 0 {
        return Err(format!("{part} comes to {i}, below zero"));
    }
    Ok(match (units, p.suffixed) {
        (Units::Time, true) => format!("{i}us"),
        _ => i.to_string(),
    })
}

/// A number as fio's grammar carries it: whole until a decimal appears.
#[derive(Clone, Copy, Debug)]
struct Num {
    i: i128,
    d: f64,
    real: bool,
}

impl Num {
    fn int(self) -> i128 {
        if self.real {
            self.d as i128
        } else {
            self.i
        }
    }

    fn whole(i: i128) -> Num {
        Num {
            i,
            d: i as f64,
            real: false,
        }
    }

    /// Applies an operator: whole numbers stay exact, a decimal on either side makes it real.
    fn op(self, o: u8, r: Num) -> Result<Num, String> {
        let overflow = || "the result is too large".to_string();
        let zero = || "division by zero".to_string();
        if self.real || r.real {
            let (a, b) = (self.d, r.d);
            let d = match o {
                b'+' => a + b,
                b'-' => a - b,
                b'*' => a * b,
                b'/' if b == 0.0 => return Err(zero()),
                b'/' => a / b,
                b'^' => a.powf(b),
                _ => return Err("modulo of a decimal number".into()),
            };
            return Ok(Num {
                i: d as i128,
                d,
                real: true,
            });
        }
        let (a, b) = (self.i, r.i);
        let i = match o {
            b'+' => a.checked_add(b),
            b'-' => a.checked_sub(b),
            b'*' => a.checked_mul(b),
            b'/' | b'%' if b == 0 => return Err(zero()),
            b'/' => a.checked_div(b),
            b'%' => a.checked_rem(b),
            b'^' if b < 0 => return Num::whole(a).op(b'^', Num { real: true, ..r }),
            _ => u32::try_from(b).ok().and_then(|e| a.checked_pow(e)),
        };
        i.filter(|v| v.unsigned_abs() < 1 << 64)
            .map(Num::whole)
            .ok_or_else(overflow)
    }
}

/// A reading of fio's grammar. Precedence, loosest first: `+ -`, a unit suffix, `* /`, `^`
/// (right to left), `%`, unary minus.
struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    /// Size or time suffixes allowed (fio's parenthesised grammar), or none (bc).
    units: Option<Units>,
    suffixed: bool,
}

impl<'a> Parser<'a> {
    fn new(s: &'a str, units: Option<Units>) -> Self {
        Parser {
            s: s.as_bytes(),
            at: 0,
            units,
            suffixed: false,
        }
    }

    /// The whole text as one expression.
    fn whole(&mut self) -> Result<Num, String> {
        let n = self.climb(0)?;
        self.skip();
        match self.s.get(self.at) {
            None => Ok(n),
            Some(_) => Err(format!("cannot compute '{}'", self.rest())),
        }
    }

    fn rest(&self) -> String {
        String::from_utf8_lossy(&self.s[self.at..]).into_owned()
    }

    fn skip(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// The next byte, if it is one of `ops`, consumed.
    fn eat(&mut self, ops: &[u8]) -> Option<u8> {
        self.skip();
        let c = *self.s.get(self.at)?;
        ops.contains(&c).then(|| {
            self.at += 1;
            c
        })
    }

    /// Operators from `min` precedence up, by precedence climbing. A unit suffix is a postfix
    /// operator between `+ -` and `* /`, as fio's grammar declares it: `2*4k` is (2*4)k,
    /// `1+4k` is 1+(4k), `1m/2` is (1m)/2.
    fn climb(&mut self, min: u8) -> Result<Num, String> {
        let mut n = self.unary()?;
        loop {
            self.skip();
            let Some(&c) = self.s.get(self.at) else {
                break;
            };
            let (prec, right) = match c {
                b'+' | b'-' => (1, false),
                b'*' | b'/' => (3, false),
                b'^' => (4, true),
                b'%' => (5, false),
                _ if min <= 2 => match self.suffix() {
                    Some(m) => {
                        n = n.op(b'*', m)?;
                        continue;
                    }
                    None => break,
                },
                _ => break,
            };
            if prec < min {
                break;
            }
            self.at += 1;
            let r = self.climb(if right { prec } else { prec + 1 })?;
            n = n.op(c, r)?;
        }
        Ok(n)
    }

    fn unary(&mut self) -> Result<Num, String> {
        if self.eat(b"-").is_some() {
            return Num::whole(0).op(b'-', self.unary()?);
        }
        if self.eat(b"(").is_some() {
            let n = self.climb(0)?;
            return match (self.eat(b")"), self.s.get(self.at)) {
                (Some(_), _) => Ok(n),
                (None, None) => Err("a '(' is not closed".into()),
                (None, Some(_)) => Err(format!("cannot compute '{}'", self.rest())),
            };
        }
        self.number()
    }

    fn number(&mut self) -> Result<Num, String> {
        self.skip();
        let start = self.at;
        let hex = self.s[start..].starts_with(b"0x") || self.s[start..].starts_with(b"0X");
        if hex {
            self.at += 2;
        }
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_digit() || *c == b'.' || (hex && c.is_ascii_hexdigit()))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        let parsed = if hex {
            i128::from_str_radix(&text[2..], 16).ok().map(Num::whole)
        } else if text.contains('.') {
            text.parse::<f64>().ok().map(|d| Num {
                i: d as i128,
                d,
                real: true,
            })
        } else {
            text.parse::<i128>().ok().map(Num::whole)
        };
        parsed.ok_or_else(|| match self.s.get(start) {
            Some(_) => format!("cannot compute '{}'", self.rest()),
            None => "a number is missing at the end".into(),
        })
    }

    /// A unit suffix and its multiplier, as fio's lexer reads them (longest first).
    fn suffix(&mut self) -> Option<Num> {
        let units = self.units?;
        self.skip();
        let word: String = self.s[self.at..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .map(|c| c.to_ascii_lowercase() as char)
            .collect();
        let m: i128 = match (word.as_str(), units) {
            ("k" | "kb", _) => 1 << 10,
            ("m", Units::Time) => 60_000_000,
            ("m" | "mb", _) => 1 << 20,
            ("g" | "gb", _) => 1 << 30,
            ("t" | "tb", _) => 1 << 40,
            ("p" | "pb", _) => 1 << 50,
            ("kib", _) => 1_000,
            ("mib", _) => 1_000_000,
            ("gib", _) => 1_000_000_000,
            ("pib", _) => 1_000_000_000_000,
            ("ms", _) => 1_000,
            ("us", _) => 1,
            ("s", _) => 1_000_000,
            ("h", _) => 3_600_000_000,
            ("d", _) => 86_400_000_000,
            _ => return None,
        };
        self.at += word.len();
        self.suffixed = true;
        Some(Num::whole(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: &str) -> String {
        resolve(v, Some(Units::Number)).unwrap().into_owned()
    }

    #[test]
    fn parenthesised_values_follow_fios_grammar() {
        assert_eq!(num("(3*1024)+5"), "3077");
        assert_eq!(num("(2*4k)"), "8192");
        // A suffix takes the whole product before it, and binds tighter than + and -.
        assert_eq!(num("(8/2k)"), "4096");
        assert_eq!(num("(1+4k)"), "4097");
        assert_eq!(num("(1m/2+4k*8)"), "557056");
        assert_eq!(num("(2^3%2)"), "2");
        assert_eq!(num("(-2^2)"), "4");
        assert_eq!(num("(2^10)"), "1024");
        assert_eq!(num("(2^3^2)"), "512");
        assert_eq!(num("(7%3)"), "1");
        assert_eq!(num("(7/2)"), "3");
        assert_eq!(num("(1.5*1k)"), "1536");
        assert_eq!(num("(4kib)"), "4000");
        assert_eq!(num("(0x10)"), "16");
        assert_eq!(num("(4k),(8k)"), "4096,8192");
        assert_eq!(num("512:(1m)"), "512:1048576");
    }

    #[test]
    fn times_in_parentheses_are_microseconds_when_suffixed() {
        assert_eq!(
            resolve("(1m+30s)", Some(Units::Time)).unwrap(),
            "90000000us"
        );
        // Without a suffix the option's own bare unit applies.
        assert_eq!(resolve("(2*3)", Some(Units::Time)).unwrap(), "6");
    }

    #[test]
    fn keywords_are_this_hosts_and_computed_in_whole_numbers() {
        let pages = page_size().to_string();
        assert_eq!(num("$pagesize"), pages);
        assert_eq!(num("2*$pagesize"), (2 * page_size()).to_string());
        assert_eq!(num("$ncpus"), ncpus().to_string());
        assert!(ncpus() >= 1 && mb_memory() >= 1);
        assert_eq!(
            num("10*10*1000*$mb_memory"),
            (100_000 * mb_memory()).to_string()
        );
        assert_eq!(num("$mb_memory/1000"), (mb_memory() / 1000).to_string());
        // bc knows no suffixes, as fio's own run of size=$ncpus*4k shows.
        let e = resolve("$ncpus*4k", Some(Units::Number)).unwrap_err();
        assert!(e.contains("without size suffixes"), "{e}");
    }

    #[test]
    fn bad_expressions_say_why() {
        for (v, says) in [
            ("(1+", "missing"),
            ("((2)", "not closed"),
            ("(4/0)", "division by zero"),
            ("(2^200)", "too large"),
            ("(1-2)", "below zero"),
            ("(4q)", "cannot compute"),
        ] {
            let e = resolve(v, Some(Units::Number)).unwrap_err();
            assert!(e.contains(says), "{v}: {e}");
        }
        // Plain values pass untouched.
        assert_eq!(num("4k"), "4k");
        assert_eq!(num("3*1k"), "3*1k");
    }
}
