//! Bad input on the command line, told apart from failures: every part of the binary (the
//! subcommands, the output, the MPI rank layout) returns it, and main turns it into exit
//! code 2 with one line.

/// Bad input on the command line: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UsageError {}

pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}

/// A launch the MPI layer refused is a usage error; anything else stays as it is.
pub fn refused_if(r: anyhow::Result<()>) -> anyhow::Result<()> {
    r.map_err(|e| match e.downcast::<scaleout::world::Refused>() {
        Ok(refused) => usage(refused.0),
        Err(e) => e,
    })
}
