//! The testbed's network namespaces: made with iproute2's `ip`, named after the process that
//! made them so that a later run can tell a killed run's leftovers from a running one's, and
//! removed when the run ends, fails or is stopped.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every namespace of this tool starts with this.
const PREFIX: &str = "eqtb-";

/// A namespace role in the testbed: where the senders live, the receivers, the router whose
/// TUN device the emulated links read, and each multipath flow's sender (its MPTCP endpoints
/// are its namespace's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Every single-path flow's sending host.
    Senders,
    /// Every flow's receiving host.
    Receivers,
    /// The router between them, holding the links.
    Router,
    /// The sending host of multipath flow number .0.
    Multipath(usize),
}

impl Role {
    fn suffix(self) -> String {
        match self {
            Role::Senders => "snd".into(),
            Role::Receivers => "rcv".into(),
            Role::Router => "rt".into(),
            Role::Multipath(f) => format!("m{f}"),
        }
    }
}

/// The namespaces of one run, removed (with every device in them) when dropped.
pub struct Namespaces {
    base: String,
    made: Vec<String>,
}

impl Namespaces {
    /// Removes the leftovers of runs whose process is gone, then makes this run's namespaces:
    /// the three every run has, and one per multipath flow of `multipath`.
    pub fn create(multipath: &[usize]) -> Result<Namespaces, String> {
        remove_leftovers()?;
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = format!("{PREFIX}{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let mut ns = Namespaces { base, made: Vec::new() };
        for role in [Role::Senders, Role::Receivers, Role::Router].into_iter().chain(multipath.iter().map(|&f| Role::Multipath(f))) {
            let name = ns.name(role);
            // Removed on drop even if `ip` fails after making it (killed by a signal).
            ns.made.push(name.clone());
            ip(&["netns", "add", &name])?;
        }
        Ok(ns)
    }

    /// The namespace's name, as `ip netns` knows it.
    pub fn name(&self, role: Role) -> String {
        format!("{}-{}", self.base, role.suffix())
    }

    /// Runs many `ip` commands in the role's namespace at once (`ip -batch`), one per line.
    pub fn ip_batch(&self, role: Role, lines: &str) -> Result<(), String> {
        use std::io::Write;
        let name = self.name(role);
        let mut child = Command::new("ip")
            .args(["-n", &name, "-batch", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
        child.stdin.take().expect("piped").write_all(lines.as_bytes()).map_err(|e| format!("ip -batch: {e}"))?;
        let out = child.wait_with_output().map_err(|e| format!("ip -batch: {e}"))?;
        if out.status.success() { Ok(()) } else { Err(format!("ip -n {name} -batch failed: {}", said(&out))) }
    }

    /// Writes a kernel setting (`/proc/sys/…`) inside the role's namespace.
    pub fn sysctl(&self, role: Role, key: &str, value: &str) -> Result<(), String> {
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        let name = self.name(role);
        let out = Command::new("ip")
            .args(["netns", "exec", &name, "sh", "-c", &format!("echo {value} > {path}")])
            .output()
            .map_err(|e| format!("cannot run `ip netns exec`: {e}"))?;
        if out.status.success() { Ok(()) } else { Err(format!("{key} = {value} in {name}: {}", said(&out))) }
    }

    /// What a thread needs to enter the role's namespace (the namespaces themselves stay with
    /// this value, which removes them).
    pub fn entry(&self, role: Role) -> Entry {
        Entry(self.name(role))
    }
}

/// A namespace a thread can move into, by name.
#[derive(Clone, Debug)]
pub struct Entry(String);

impl Entry {
    /// Moves the calling thread into the namespace (its sockets and devices are made there
    /// from then on; other threads stay where they are).
    pub fn enter(&self) -> Result<(), String> {
        let name = &self.0;
        let path = Path::new("/run/netns").join(name);
        let file = File::open(&path).map_err(|e| format!("cannot open namespace {name} ({}): {e}", path.display()))?;
        nix::sched::setns(file, nix::sched::CloneFlags::CLONE_NEWNET).map_err(|e| format!("cannot enter namespace {name}: {e}"))
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in self.made.drain(..).rev() {
            let _ = ip(&["netns", "del", &name]);
        }
    }
}

/// Runs `ip ARGS…` in the tool's own namespace; an error carries `ip`'s own message.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out =
        Command::new("ip").args(args).output().map_err(|e| format!("cannot run `ip` (iproute2; Debian: apt-get install iproute2): {e}"))?;
    if out.status.success() { Ok(()) } else { Err(format!("ip {} failed: {}", args.join(" "), said(&out))) }
}

/// Why a command failed: its own message, or the signal that ended it (which prints none).
fn said(out: &std::process::Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match out.status.signal() {
        Some(signal) if message.is_empty() => format!("ended by signal {signal}"),
        _ => message,
    }
}

/// Removes this tool's namespaces whose making process no longer runs (a run killed with
/// SIGKILL cannot clean up after itself). Runs at once are safe: each keeps to its own.
fn remove_leftovers() -> Result<(), String> {
    let out = Command::new("ip").args(["netns", "list"]).output().map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(name) = line.split_whitespace().next() else { continue };
        if crate::made_by_a_gone_process(name, PREFIX) {
            // Another run starting now may remove the same leftovers first: only a namespace
            // still there after a failed removal is an error.
            if let Err(e) = ip(&["netns", "del", name])
                && Path::new("/run/netns").join(name).exists()
            {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Whether this process may make namespaces and TUN devices, with the reason if not.
pub fn check_privileges() -> Result<(), String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("the testbed makes network namespaces and a TUN device: run it as root".into());
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err("/dev/net/tun is missing: this kernel has no TUN devices (CONFIG_TUN), which the testbed's links need".into());
    }
    Command::new("ip").arg("-V").output().map_err(|e| format!("cannot run `ip` (iproute2; Debian: apt-get install iproute2): {e}"))?;
    Ok(())
}
