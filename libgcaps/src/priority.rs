//! GPU priorities of segments, and the process default taken from `$GCAPS_GPU_PRIORITY`.
use crate::Error;
use std::fmt;
use std::str::FromStr;

/// The environment variable that holds the process's default GPU priority (`gcapsctl run
/// --gpu-priority G` sets it): an integer 1..99, or 0 for "inherit the CPU priority".
pub const ENV_GPU_PRIORITY: &str = "GCAPS_GPU_PRIORITY";

/// Lowest and highest explicit GPU priority (`GCAPS_GPU_PRIO_MIN`/`_MAX` of the UAPI).
pub const GPU_PRIORITY_MIN: u8 = crate::uapi::GCAPS_GPU_PRIO_MIN as u8;
pub const GPU_PRIORITY_MAX: u8 = crate::uapi::GCAPS_GPU_PRIO_MAX as u8;

/// The GPU priority a segment asks for, in the vocabulary of the kernel's policy
/// (`Inherit`, `Explicit`) plus the library's process default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GpuPriority {
    /// The process default: `$GCAPS_GPU_PRIORITY` if set, else [`GpuPriority::Inherit`]
    /// (the C API's 0).
    #[default]
    ProcessDefault,
    /// The caller's CPU (SCHED_FIFO/SCHED_RR) priority, which the kernel reads at the begin.
    Inherit,
    /// An explicit priority, 1..=99 (higher is more urgent, like SCHED_FIFO priorities);
    /// only real-time callers may ask, and one above their own only with the right to raise
    /// their CPU priority to it (the module's rules; it reports which one refused).
    Explicit(u8),
}

impl GpuPriority {
    /// `0` is [`GpuPriority::ProcessDefault`] (as in the C API), 1..=99 an explicit priority;
    /// anything else is an error.
    pub fn new(value: i64) -> Result<Self, Error> {
        match value {
            0 => Ok(Self::ProcessDefault),
            v if (i64::from(GPU_PRIORITY_MIN)..=i64::from(GPU_PRIORITY_MAX)).contains(&v) => {
                Ok(Self::Explicit(v as u8))
            }
            v => Err(Error::InvalidPriority { value: v }),
        }
    }

    /// The value of the UAPI's `gpu_priority` field (0 = inherit; an unresolved process
    /// default is sent as inherit).
    pub fn raw(self) -> i32 {
        match self {
            Self::ProcessDefault | Self::Inherit => crate::uapi::GCAPS_GPU_PRIO_INHERIT as i32,
            Self::Explicit(l) => i32::from(l),
        }
    }

    /// The process default from `$GCAPS_GPU_PRIORITY`: [`GpuPriority::Inherit`] when unset
    /// or 0; an error naming the variable and its value when it is not 0..99.
    pub fn from_env() -> Result<Self, Error> {
        match std::env::var_os(ENV_GPU_PRIORITY) {
            None => Ok(Self::Inherit),
            Some(v) => Self::parse_env(&v.to_string_lossy()),
        }
    }

    /// Strict parse of the environment value: decimal digits only (no sign, no blanks).
    pub fn parse_env(value: &str) -> Result<Self, Error> {
        let bad = |reason: &'static str| Error::BadEnvironment {
            var: ENV_GPU_PRIORITY,
            value: value.to_owned(),
            reason,
        };
        if value.is_empty() || value.len() > 3 || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(
                "expected an integer 1..99, or 0 to inherit the CPU priority",
            ));
        }
        let n: i64 = value.parse().map_err(|_| bad("not an integer"))?;
        match Self::new(n) {
            Ok(Self::ProcessDefault) => Ok(Self::Inherit),
            Ok(p) => Ok(p),
            Err(_) => Err(bad(
                "GPU priorities are 1..99 (0 inherits the CPU priority)",
            )),
        }
    }
}

impl FromStr for GpuPriority {
    type Err = Error;
    /// `inherit` or `0` ([`GpuPriority::Inherit`]), or 1..99.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s == "inherit" || s == "0" {
            return Ok(Self::Inherit);
        }
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::BadPriorityText { text: s.to_owned() });
        }
        Self::new(
            s.parse()
                .map_err(|_| Error::BadPriorityText { text: s.to_owned() })?,
        )
    }
}

impl fmt::Display for GpuPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ProcessDefault => f.write_str("default"),
            Self::Inherit => f.write_str("inherit"),
            Self::Explicit(l) => write!(f, "{l}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_default() {
        assert_eq!(GpuPriority::new(0).unwrap(), GpuPriority::ProcessDefault);
        assert_eq!(GpuPriority::new(1).unwrap(), GpuPriority::Explicit(1));
        assert_eq!(GpuPriority::new(99).unwrap(), GpuPriority::Explicit(99));
        assert_eq!(GpuPriority::new(99).unwrap().raw(), 99);
        assert_eq!(GpuPriority::ProcessDefault.raw(), 0);
        assert_eq!(GpuPriority::Inherit.raw(), 0);
        for bad in [-1, 100, i64::MAX, i64::MIN] {
            assert_eq!(
                GpuPriority::new(bad),
                Err(Error::InvalidPriority { value: bad })
            );
        }
    }

    #[test]
    fn environment_value_is_parsed_strictly() {
        assert_eq!(GpuPriority::parse_env("0").unwrap(), GpuPriority::Inherit);
        assert_eq!(
            GpuPriority::parse_env("42").unwrap(),
            GpuPriority::Explicit(42)
        );
        assert_eq!(
            GpuPriority::parse_env("099").unwrap(),
            GpuPriority::Explicit(99)
        );
        for bad in [
            "", " 5", "5 ", "+5", "-5", "100", "1e1", "0x10", "five", "5\n", "0000",
        ] {
            let e = GpuPriority::parse_env(bad).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.starts_with("GCAPS_GPU_PRIORITY="),
                "{bad:?} gave {msg:?}"
            );
            assert!(!msg.contains('\n'), "{msg:?} is not one line");
        }
        let msg = GpuPriority::parse_env("5\n").unwrap_err().to_string();
        assert!(msg.contains(r#""5\n""#), "value escaped: {msg}");
    }

    #[test]
    fn text_for_tools() {
        assert_eq!(
            "inherit".parse::<GpuPriority>().unwrap(),
            GpuPriority::Inherit
        );
        assert_eq!("0".parse::<GpuPriority>().unwrap(), GpuPriority::Inherit);
        assert_eq!(
            "7".parse::<GpuPriority>().unwrap(),
            GpuPriority::Explicit(7)
        );
        assert!("100".parse::<GpuPriority>().is_err());
        assert!("-1".parse::<GpuPriority>().is_err());
        assert!("x".parse::<GpuPriority>().is_err());
        assert_eq!(GpuPriority::Explicit(7).to_string(), "7");
        assert_eq!(GpuPriority::Inherit.to_string(), "inherit");
        assert_eq!(GpuPriority::ProcessDefault.to_string(), "default");
    }
}
