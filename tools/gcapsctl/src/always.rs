//! `gcapsctl always-eligible TSGID on|off`: an administrator marks a TSG always eligible (it
//! stays on the runlist during every real-time segment, e.g. the display compositor's) or
//! removes the mark. The driver's own flag (driver-internal TSG) is a separate reason that
//! only the driver clears; the reply says which reasons hold afterwards.
use crate::device::DeviceArg;
use crate::output::write_stdout;
use crate::status::reasons_text;
use libgcaps::AlwaysReasons;

#[derive(clap::Args)]
pub struct Args {
    /// The TSG id (as `gcapsctl status` lists it).
    #[arg(value_parser = clap::value_parser!(u32).range(0..1024))]
    tsgid: u32,
    /// `on`: mark it; `off`: remove the administrator's mark.
    #[arg(value_enum)]
    state: OnOff,
    #[command(flatten)]
    device: DeviceArg,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
enum OnOff {
    On,
    Off,
}

pub fn run(args: Args) -> Result<(), String> {
    let gcaps = args.device.open()?;
    let on = args.state == OnOff::On;
    let r = gcaps
        .set_always_eligible(args.tsgid, on)
        .map_err(|e| e.to_string())?;
    write_stdout(&message(args.tsgid, on, r))
}

/// The one-line reply.
fn message(tsgid: u32, on: bool, r: AlwaysReasons) -> String {
    match (on, r.any()) {
        (false, true) => format!(
            "TSG {tsgid} stays always eligible: the driver flagged it driver-internal \
             (reasons: {})\n",
            reasons_text(r)
        ),
        (_, true) => format!(
            "TSG {tsgid} is always eligible (reasons: {})\n",
            reasons_text(r)
        ),
        (_, false) => format!("TSG {tsgid} is not always eligible\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let r = |driver, admin| AlwaysReasons { driver, admin };
        assert_eq!(
            message(3, true, r(false, true)),
            "TSG 3 is always eligible (reasons: admin)\n"
        );
        assert_eq!(
            message(3, true, r(true, true)),
            "TSG 3 is always eligible (reasons: driver+admin)\n"
        );
        assert_eq!(
            message(3, false, r(true, false)),
            "TSG 3 stays always eligible: the driver flagged it driver-internal (reasons: driver)\n"
        );
        assert_eq!(
            message(3, false, r(false, false)),
            "TSG 3 is not always eligible\n"
        );
    }
}
