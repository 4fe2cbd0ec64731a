//! The coupled window laws on the kernel's own TCP: LIA, OLIA and BALIA as BPF congestion
//! controls (`struct_ops` of `tcp_congestion_ops`, bpf/coupled.bpf.c over the integer laws of
//! bpf/coupled_core.h), compiled with clang against the running kernel's BTF, registered with
//! bpftool under names unique to the run, selected per socket with `TCP_CONGESTION`, and
//! unregistered when the run ends, fails or is stopped. A run killed with SIGKILL cannot
//! unregister its own: the next run removes the registrations of runs whose process is gone,
//! as it removes their namespaces.

use std::path::{Path, PathBuf};
use std::process::Command;

use mptcp_cc::Algorithm;

use crate::output::write_file_atomically;

/// The sources, carried by the binary so that a run compiles what it was built with.
const PROGRAM: &str = include_str!("bpf/coupled.bpf.c");
const CORE: &str = include_str!("bpf/coupled_core.h");
/// The congestion control's name in the compiled object, replaced by each run's own: it is
/// the 16-byte `name` field of the `struct_ops` data, so one compiled object serves every run.
const PLACEHOLDER: &[u8] = b"eq.name.of.run\0";
/// Every name this tool registers starts with this, then the law, then the run's process id.
const PREFIX: &str = "eq";
/// The kernel's type of a registered congestion control, which a kernel that takes BPF
/// congestion controls describes in its BTF.
const STRUCT_OPS_TYPE: &[u8] = b"bpf_struct_ops_tcp_congestion_ops";
const BTF: &str = "/sys/kernel/btf/vmlinux";

/// A coupled law the kernel can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelLaw {
    Lia,
    Olia,
    Balia,
}

impl KernelLaw {
    pub fn name(self) -> &'static str {
        match self {
            KernelLaw::Lia => "lia",
            KernelLaw::Olia => "olia",
            KernelLaw::Balia => "balia",
        }
    }

    /// Its number in coupled_core.h's `enum eq_law`.
    #[cfg(test)]
    fn code(self) -> u8 {
        match self {
            KernelLaw::Lia => 1,
            KernelLaw::Olia => 2,
            KernelLaw::Balia => 3,
        }
    }

    /// The `EQ_LAW` the program is compiled with.
    fn define(self) -> &'static str {
        match self {
            KernelLaw::Lia => "EQ_LIA",
            KernelLaw::Olia => "EQ_OLIA",
            KernelLaw::Balia => "EQ_BALIA",
        }
    }

    /// The congestion control's name for the run of process `pid` (at most 14 characters, as
    /// the placeholder: `eqbalia` and a process id of at most 7 digits, the kernel's largest
    /// being 4 194 304).
    fn registered_name(self, pid: u32) -> String {
        format!("{PREFIX}{}{pid}", self.name())
    }
}

/// Why the testbed cannot run a scenario's law.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The law is one of the simulator's only.
    Law,
    /// The law is the kernel's, but this parameter is away from the form the kernel runs.
    Parameter(&'static str),
}

/// What a flow's sockets run in the kernel: its Reno, its CUBIC, or a coupled law of ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowLaw {
    /// The kernel's `reno` (the scenario's `reno`, or `uncoupled` on every subflow).
    Reno,
    /// The kernel's `cubic`.
    Cubic,
    /// A coupled law, as this run registers it.
    Coupled(KernelLaw),
}

impl FlowLaw {
    /// What the kernel runs for a scenario's law: the papers' forms only, so a parameter away
    /// from its default (EWTCP's `a = 1` is the uncoupled law) is refused by name.
    pub fn of(algorithm: &Algorithm) -> Result<FlowLaw, Refused> {
        match *algorithm {
            Algorithm::Reno | Algorithm::Uncoupled { a: 1.0 } => Ok(FlowLaw::Reno),
            Algorithm::Uncoupled { .. } => Err(Refused::Parameter("a")),
            Algorithm::Cubic { hystart: true } => Ok(FlowLaw::Cubic),
            Algorithm::Cubic { hystart: false } => Err(Refused::Parameter("hystart")),
            Algorithm::Lia => Ok(FlowLaw::Coupled(KernelLaw::Lia)),
            Algorithm::Olia => Ok(FlowLaw::Coupled(KernelLaw::Olia)),
            Algorithm::Balia { integer_alpha: false } => Ok(FlowLaw::Coupled(KernelLaw::Balia)),
            Algorithm::Balia { integer_alpha: true } => Err(Refused::Parameter("integer_alpha")),
            _ => Err(Refused::Law),
        }
    }

    /// The coupled law, if it is one.
    pub fn coupled(self) -> Option<KernelLaw> {
        match self {
            FlowLaw::Coupled(law) => Some(law),
            _ => None,
        }
    }

    /// The name of the law in the flow's records, as a simulation writes it: `uncoupled` for
    /// the kernel's Reno on several subflows.
    pub fn record_name(self, subflows: usize) -> &'static str {
        match self {
            FlowLaw::Reno if subflows == 1 => "reno",
            FlowLaw::Reno => "uncoupled",
            FlowLaw::Cubic => "cubic",
            FlowLaw::Coupled(law) => law.name(),
        }
    }

    /// What the flow's sockets select with `TCP_CONGESTION`; a coupled law by the name
    /// `registered` gives it.
    pub fn socket_name(self, registered: &Registered) -> Result<String, String> {
        match self {
            FlowLaw::Reno => Ok("reno".into()),
            FlowLaw::Cubic => Ok("cubic".into()),
            FlowLaw::Coupled(law) => {
                registered.name_of(law).map(String::from).ok_or_else(|| format!("{} is not registered for this run", law.name()))
            }
        }
    }
}

/// Checks, before anything is set up, that this machine can compile and register the laws:
/// the kernel's BTF and its BPF congestion controls, clang with libbpf's headers, bpftool.
pub fn check_tools() -> Result<(), String> {
    let btf = std::fs::read(BTF)
        .map_err(|e| format!("{BTF}: {e}: the kernel has no BTF (CONFIG_DEBUG_INFO_BTF), which the coupled laws' BPF programs need"))?;
    if !btf.windows(STRUCT_OPS_TYPE.len()).any(|w| w == STRUCT_OPS_TYPE) {
        return Err(
            "this kernel does not take BPF congestion controls (no `bpf_struct_ops_tcp_congestion_ops` in its BTF: CONFIG_BPF_JIT and CONFIG_BPF_SYSCALL)"
                .into(),
        );
    }
    tool_runs("clang", &["--version"], "clang")?;
    tool_runs("bpftool", &["version"], "bpftool")?;
    if !Path::new("/usr/include/bpf/bpf_helpers.h").exists() {
        return Err("libbpf's headers are missing (/usr/include/bpf/bpf_helpers.h; Debian: apt-get install libbpf-dev)".into());
    }
    Ok(())
}

fn tool_runs(program: &str, args: &[&str], package: &str) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `{program}` ({e}): the coupled laws need it (Debian: apt-get install {package})"))?;
    if !out.status.success() {
        return Err(format!("`{program} {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The laws registered for one run, unregistered when dropped.
#[derive(Debug)]
pub struct Registered {
    /// Law, registered name, and the `struct_ops` map's id.
    laws: Vec<(KernelLaw, String, u32)>,
}

impl Registered {
    /// The name a socket selects to run `law`.
    pub fn name_of(&self, law: KernelLaw) -> Option<&str> {
        self.laws.iter().find(|(l, _, _)| *l == law).map(|(_, name, _)| name.as_str())
    }

    /// What the run's metadata says of them.
    pub fn note(&self) -> String {
        let laws: Vec<String> = self.laws.iter().map(|(law, name, _)| format!("{} as `{name}`", law.name())).collect();
        format!("BPF congestion controls (bpf/coupled.bpf.c): {}", laws.join(", "))
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        for (_, _, id) in self.laws.drain(..) {
            let _ = unregister(id);
        }
    }
}

/// Removes the registrations of gone runs, then compiles (or takes from the cache) and
/// registers each of `laws` under this run's names. A run without laws on a machine without
/// bpftool, which cannot have registered any, removes nothing.
pub fn register(laws: &[KernelLaw]) -> Result<Registered, String> {
    let mut registered = Registered { laws: Vec::new() };
    if laws.is_empty() {
        if Command::new("bpftool").arg("version").output().is_ok() {
            remove_leftovers()?;
        }
        return Ok(registered);
    }
    remove_leftovers()?;
    let pid = std::process::id();
    let scratch = std::env::temp_dir().join(format!("equipoise-bpf-{pid}"));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let result = (|| {
        let cache = cache_folder()?;
        for &law in laws {
            if registered.name_of(law).is_some() {
                continue;
            }
            let object = compiled(law, &cache)?;
            let name = law.registered_name(pid);
            let bytes = named(&object, &name)?;
            let file = scratch.join(format!("{}.o", law.name()));
            std::fs::write(&file, bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            let id = register_object(&file, law, &name)?;
            registered.laws.push((law, name, id));
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result.map(|()| registered)
}

/// `object` with the placeholder name replaced by `name`.
fn named(object: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let mut field = name.as_bytes().to_vec();
    if field.len() >= PLACEHOLDER.len() {
        return Err(format!(
            "the congestion control's name `{name}` is longer than its placeholder's {} characters",
            PLACEHOLDER.len() - 1
        ));
    }
    field.resize(PLACEHOLDER.len(), 0);
    let at: Vec<usize> = object.windows(PLACEHOLDER.len()).enumerate().filter(|(_, w)| *w == PLACEHOLDER).map(|(i, _)| i).collect();
    let [at] = at[..] else {
        return Err(format!("the compiled congestion control holds its placeholder name {} times, not once", at.len()));
    };
    let mut out = object.to_vec();
    out[at..at + field.len()].copy_from_slice(&field);
    Ok(out)
}

/// Registers the congestion control of the object `file` as `name`; returns its map's id. A
/// verifier's rejection is shown as the verifier wrote it.
fn register_object(file: &Path, law: KernelLaw, name: &str) -> Result<u32, String> {
    let out = Command::new("bpftool")
        .args(["struct_ops", "register"])
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run `bpftool` (Debian: apt-get install bpftool): {e}"))?;
    // The map's id, found by the name (what bpftool prints of it differs between versions);
    // also after a failure, so that nothing registered is left behind.
    let id = registered_by_this_tool()?.into_iter().find(|(n, _)| n == name).map(|(_, id)| id);
    match id {
        Some(id) if out.status.success() => Ok(id),
        _ => {
            if let Some(id) = id {
                let _ = unregister(id);
            }
            Err(format!(
                "the kernel refused {} (bpftool struct_ops register): {}",
                law.name(),
                verifier_message(&String::from_utf8_lossy(&out.stderr))
            ))
        }
    }
}

/// The verifier's own log from what bpftool printed, its last lines (where it says why), or
/// all of it if there is no log.
fn verifier_message(stderr: &str) -> String {
    let log: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.contains("BEGIN PROG LOAD LOG"))
        .skip(1)
        .take_while(|l| !l.contains("END PROG LOAD LOG"))
        .collect();
    if log.is_empty() {
        return stderr.trim().to_string();
    }
    let tail = &log[log.len().saturating_sub(12)..];
    format!("the verifier said:\n{}", tail.join("\n"))
}

fn unregister(id: u32) -> Result<(), String> {
    let out = Command::new("bpftool")
        .args(["struct_ops", "unregister", "id", &id.to_string()])
        .output()
        .map_err(|e| format!("cannot run `bpftool`: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("bpftool struct_ops unregister id {id}: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// The registered congestion controls of this tool (name and map id), from bpftool's dump of
/// every `struct_ops` map.
fn registered_by_this_tool() -> Result<Vec<(String, u32)>, String> {
    let out = Command::new("bpftool").args(["-j", "struct_ops", "dump"]).output().map_err(|e| format!("cannot run `bpftool`: {e}"))?;
    Ok(parse_dump(&String::from_utf8_lossy(&out.stdout)))
}

/// Names and ids of the registered congestion controls in `bpftool -j struct_ops dump`: each
/// map's `bpf_map_info` gives its id, the `data` that follows its congestion control's name.
/// A map already unregistered (`TOBEFREE`) stays until the last socket that ran it is gone,
/// and is not counted.
fn parse_dump(dump: &str) -> Vec<(String, u32)> {
    let mut found = Vec::new();
    for map in dump.split("\"bpf_map_info\":").skip(1) {
        let id = map.split("\"id\":").nth(1).and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok());
        let name = map.split("\"data\":").nth(1).and_then(|data| data.split("\"name\":\"").nth(1)?.split('"').next());
        let in_use = map.contains("\"state\":\"BPF_STRUCT_OPS_STATE_INUSE\"");
        if let (Some(id), Some(name), true) = (id, name, in_use)
            && name.starts_with(PREFIX)
        {
            found.push((name.to_string(), id));
        }
    }
    found
}

/// The process id in a name this tool registered (`eq` + law + pid), if it is one.
fn pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    [KernelLaw::Balia, KernelLaw::Olia, KernelLaw::Lia].iter().find_map(|l| rest.strip_prefix(l.name())?.parse().ok())
}

/// Unregisters the laws of runs whose process is gone (killed with SIGKILL).
fn remove_leftovers() -> Result<(), String> {
    for (name, id) in registered_by_this_tool()? {
        let Some(pid) = pid_of(&name) else { continue };
        if pid != std::process::id() && !crate::output::process_runs(pid) {
            // Another run starting now may remove it first: only one still listed is an error.
            if let Err(e) = unregister(id)
                && registered_by_this_tool()?.iter().any(|(_, i)| *i == id)
            {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// The cache's folder for this program's sources, this clang and the running kernel's BTF: one
/// header of the kernel's types, and one object per law.
fn cache_folder() -> Result<PathBuf, String> {
    let clang = tool_runs("clang", &["--version"], "clang")?;
    let btf = std::fs::read(BTF).map_err(|e| format!("{BTF}: {e}"))?;
    let key = fnv1a([PROGRAM.as_bytes(), CORE.as_bytes(), clang.as_bytes(), &btf]);
    Ok(cache_dir().join(format!("{key:016x}")))
}

/// The compiled object of `law` in the cache folder `dir`, compiled there if it is not yet.
fn compiled(law: KernelLaw, dir: &Path) -> Result<Vec<u8>, String> {
    let object = dir.join(format!("{}.o", law.name()));
    if let Ok(bytes) = std::fs::read(&object) {
        return Ok(bytes);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let header = dir.join("vmlinux.h");
    if !header.exists() {
        let out = Command::new("bpftool")
            .args(["btf", "dump", "file", BTF, "format", "c"])
            .output()
            .map_err(|e| format!("cannot run `bpftool`: {e}"))?;
        if !out.status.success() {
            return Err(format!("bpftool btf dump file {BTF}: {}", String::from_utf8_lossy(&out.stderr).trim()));
        }
        write_file_atomically(&header, &out.stdout)?;
    }
    write_file_atomically(&dir.join("coupled.bpf.c"), PROGRAM.as_bytes())?;
    write_file_atomically(&dir.join("coupled_core.h"), CORE.as_bytes())?;
    let partial = dir.join(format!("{}.o.{}", law.name(), std::process::id()));
    let out = Command::new("clang")
        .args(["-O2", "-g", "-target", "bpf", "-mcpu=v3", "-Wall", "-Werror"])
        .arg(format!("-DEQ_LAW={}", law.define()))
        .arg("-I")
        .arg(dir)
        .arg("-c")
        .arg(dir.join("coupled.bpf.c"))
        .arg("-o")
        .arg(&partial)
        .output()
        .map_err(|e| format!("cannot run `clang`: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(format!("clang could not compile {}: {}", law.name(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    std::fs::rename(&partial, &object).map_err(|e| format!("{}: {e}", object.display()))?;
    std::fs::read(&object).map_err(|e| format!("{}: {e}", object.display()))
}

/// Where compiled programs are kept: `$XDG_CACHE_HOME/equipoise/bpf`, else `~/.cache/…`, else
/// the temporary directory.
fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("equipoise").join("bpf")
}

/// FNV-1a over the parts, each followed by its length (a key that stays the same from one
/// build of this program to the next, as std's hasher need not).
fn fnv1a<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&(part.len() as u64).to_le_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptcp_cc::{Algorithm, CoupledController, SubflowState};

    /// One connection's subflows: window (packets), round trip (µs, 0: none yet), OLIA's l1, l2.
    type Case = Vec<(u32, u32, u64, u64)>;

    /// coupled_core.h compiled for this host (by `cc`), run on `cases`: for each law, case and
    /// subflow, its increase and decrease in packets.
    fn host_core(cases: &[Case]) -> Vec<(f64, f64)> {
        let dir = std::env::temp_dir().join(format!("equipoise-core-host-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("coupled_core.h"), CORE).unwrap();
        std::fs::write(dir.join("core_host.c"), include_str!("bpf/core_host.c")).unwrap();
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let built = Command::new(&compiler)
            .args(["-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(dir.join("core_host"))
            .arg(dir.join("core_host.c"))
            .output()
            .expect("a C compiler (`cc`, or $CC) runs");
        assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
        let mut input = String::new();
        for law in [KernelLaw::Lia, KernelLaw::Olia, KernelLaw::Balia] {
            for case in cases {
                for r in 0..case.len() {
                    input += &format!("{} {r} {}", law.code(), case.len());
                    for (w, rtt, l1, l2) in case {
                        input += &format!(" {w} {rtt} {l1} {l2}");
                    }
                    input += "\n";
                }
            }
        }
        let mut child = Command::new(dir.join("core_host"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the host program runs");
        // Written from a thread of its own: the answers would fill their pipe before the
        // questions are all written.
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(out.status.success());
        let q32 = |v: &str| v.parse::<i64>().unwrap() as f64 / 4_294_967_296.0;
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (inc, dec) = l.split_once(' ').unwrap();
                (q32(inc), q32(dec))
            })
            .collect()
    }

    /// crates/mptcp-cc's increase and decrease of subflow r on the same inputs.
    fn simulator(law: KernelLaw, case: &Case, r: usize) -> (f64, f64) {
        let states: Vec<SubflowState> = case
            .iter()
            .map(|&(w, rtt, l1, l2)| SubflowState {
                srtt: rtt as f64 * 1e-6,
                min_rtt: rtt as f64 * 1e-6,
                acked_between_losses: l1,
                acked_since_loss: l2,
                ..SubflowState::new(w as f64, 0.0)
            })
            .collect();
        let cc: Box<dyn CoupledController> = Algorithm::by_name(law.name()).expect("a law of the simulator").build();
        (cc.increase(&states, r), cc.decrease(&states, r))
    }

    /// Cases of one to eight subflows: windows of 1 to 20 000 packets, round trips of 100 µs to
    /// 2 s, some not yet measured, loss counts that tie and that differ.
    fn cases() -> Vec<Case> {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut cases: Vec<Case> = vec![
            vec![(10, 10_000, 0, 0), (20, 100_000, 0, 0)],
            vec![(10, 10_000, 0, 100), (20, 100_000, 0, 100)],
            vec![(10, 10_000, 0, 0)],
            vec![(7, 0, 0, 0), (12, 20_000, 5, 9)],
            vec![(30, 50_000, 40, 40), (30, 50_000, 40, 40), (12, 50_000, 40, 40)],
        ];
        for _ in 0..400 {
            let n = 1 + next(8) as usize;
            let case = (0..n)
                .map(|_| {
                    let largest = if next(2) == 0 { 100 } else { 20_000 };
                    let w = 1 + next(largest) as u32;
                    let rtt = if next(10) == 0 { 0 } else { 100 + next(2_000_000) as u32 };
                    (w, rtt, next(100_000), next(100_000))
                })
                .collect();
            cases.push(case);
        }
        cases
    }

    #[test]
    fn the_kernels_laws_compute_what_the_simulators_do() {
        let cases = cases();
        let got = host_core(&cases);
        let mut at = 0;
        for law in [KernelLaw::Lia, KernelLaw::Olia, KernelLaw::Balia] {
            for case in &cases {
                for r in 0..case.len() {
                    let (inc, dec) = got[at];
                    at += 1;
                    let (want_inc, want_dec) = simulator(law, case, r);
                    // Nine significant digits, or two units of Q32's last place.
                    let close = |a: f64, b: f64| (a - b).abs() <= 1e-7 * b.abs() + 2.0 / 4_294_967_296.0;
                    assert!(close(inc, want_inc), "{} increase of {r} in {case:?}: {inc} against {want_inc}", law.name());
                    assert!(close(dec, want_dec), "{} decrease of {r} in {case:?}: {dec} against {want_dec}", law.name());
                }
            }
        }
        assert_eq!(at, got.len());
    }

    #[test]
    fn names_fit_the_kernel_and_give_back_their_process() {
        for law in [KernelLaw::Lia, KernelLaw::Olia, KernelLaw::Balia] {
            let name = law.registered_name(4_194_304);
            assert!(name.len() < PLACEHOLDER.len(), "{name}");
            assert_eq!(pid_of(&name), Some(4_194_304));
        }
        assert_eq!(pid_of("eqlia"), None);
        assert_eq!(pid_of("reno"), None);
        assert_eq!(pid_of("eqcubic12"), None);
    }

    #[test]
    fn the_placeholder_is_replaced_once_and_only_once() {
        let object = [b"head".as_slice(), PLACEHOLDER, b"tail"].concat();
        let out = named(&object, "eqlia12").expect("one placeholder");
        assert_eq!(&out[4..4 + PLACEHOLDER.len()], b"eqlia12\0\0\0\0\0\0\0\0");
        assert_eq!(out.len(), object.len());
        let twice = [object.as_slice(), PLACEHOLDER].concat();
        assert!(named(&twice, "eqlia12").unwrap_err().contains("2 times"));
        assert!(named(b"none", "eqlia12").unwrap_err().contains("0 times"));
        assert!(named(&object, "eqbalia1234567").is_ok());
        assert!(named(&object, "eqbalia12345678").unwrap_err().contains("14 characters"));
    }

    #[test]
    fn the_dump_gives_each_name_with_its_map() {
        let in_use = r#""common":{"refcnt":{"refs":{"counter":1}},"state":"BPF_STRUCT_OPS_STATE_INUSE"}"#;
        let to_be_freed = r#""common":{"refcnt":{"refs":{"counter":0}},"state":"BPF_STRUCT_OPS_STATE_TOBEFREE"}"#;
        let dump = format!(
            r#"{{"bpf_map_info":{{"type":26,"id":8,"name":"eq_law"}}}},{{"bpf_struct_ops_tcp_congestion_ops":{{{in_use},"data":{{"ssthresh":"u32 (struct sock *) x/prog_id:27","name":"eqlia812"}}}}}}{{"bpf_map_info":{{"type":26,"id":12,"name":"other"}}}},{{"bpf_struct_ops_tcp_congestion_ops":{{{in_use},"data":{{"name":"dctcp_bpf"}}}}}}{{"bpf_map_info":{{"type":26,"id":14,"name":"eq_law"}}}},{{"bpf_struct_ops_tcp_congestion_ops":{{{to_be_freed},"data":{{"name":"eqolia9"}}}}}}"#
        );
        let dump = dump.as_str();
        assert_eq!(parse_dump(dump), vec![("eqlia812".to_string(), 8)]);
        assert_eq!(parse_dump(""), vec![]);
    }

    #[test]
    fn the_verifier_speaks_for_itself() {
        let stderr = "libbpf: prog 'x': BPF program load failed\n-- BEGIN PROG LOAD LOG --\n0: R1=ctx()\ninvalid mem access 'scalar'\n-- END PROG LOAD LOG --\nlibbpf: failed";
        assert_eq!(verifier_message(stderr), "the verifier said:\n0: R1=ctx()\ninvalid mem access 'scalar'");
        assert_eq!(verifier_message("bpftool: no such file\n"), "bpftool: no such file");
    }
}
