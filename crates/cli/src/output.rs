//! Output locations that never lose a user's files.
//!
//! A directory this tool writes (a run's tables, a dataset's summary) holds a marker file,
//! [`MARKER`], that lists the files it wrote. Where the output goes:
//!
//! - **Nothing there**: the files are written into a sibling `DIR.tmp-<pid>`, renamed to `DIR`.
//! - **A directory holding only what the marker lists** (a previous output, or an empty
//!   directory): replaced whole. The new files go into `DIR.tmp-<pid>`, which is then
//!   exchanged with `DIR` in one `renameat2(RENAME_EXCHANGE)`, so at every instant `DIR` holds
//!   the complete old output or the complete new one; the old one, now at `DIR.tmp-<pid>`, is
//!   deleted after. (Where the exchange is not supported, the old directory is first renamed
//!   to `DIR.old-<pid>`; an interrupt between the two renames then leaves the old output there.)
//! - **Anything else** (a directory with other files, `.`, a symlink, a regular file): refused
//!   with an error saying what is there, unless `--overwrite` is given for a directory. Then the
//!   files are written into it one by one (each to a temporary name, then renamed), only files
//!   a previous marker lists are deleted, and the marker is written last. A regular file is
//!   never replaced, and a file of the directory that the marker does not list is never written
//!   over: a command that would write one (a table, a capture, a script of the same name) is
//!   refused naming it, before it runs and again before anything is written.
//!
//! Temporaries left by processes that no longer run (`DIR.tmp-<pid>`, `DIR.old-<pid>` holding
//! nothing but output files) are removed the next time `DIR` is written.

use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The file listing what this tool wrote into a directory, one name per line.
pub const MARKER: &str = ".equipoise-output";

/// How an output directory will be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// It does not exist yet.
    New,
    /// It holds a previous output only: replace it whole.
    Replace,
    /// It holds other files (with `--overwrite`), or is a symlink or `.`: write file by file.
    InPlace,
}

/// Decides how to write an output into `dir`, checks that it can be written, and removes stale
/// temporaries beside it; call before the work whose results go there. `planned` names the
/// files the work will write, as far as they are known before it: none may be a file of the
/// user's.
pub fn prepare(dir: &Path, overwrite: bool, planned: &[String]) -> Result<Target, String> {
    remove_stale_temporaries(dir);
    let target = classify(dir, overwrite)?;
    if target == Target::InPlace {
        refuse_foreign(dir, planned.iter().map(String::as_str))?;
    }
    check_writable(dir, target)?;
    Ok(target)
}

/// Refuses to write any of `names` into `dir` where a file of that name is there and the
/// marker does not list it: the user's own.
fn refuse_foreign<'a>(dir: &Path, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let ours = listed(dir);
    let mut theirs: Vec<&str> = names.filter(|n| !ours.contains(*n) && fs::symlink_metadata(dir.join(n)).is_ok()).collect();
    if theirs.is_empty() {
        return Ok(());
    }
    theirs.sort_unstable();
    theirs.dedup();
    Err(format!(
        "{} already holds {}, which this tool did not write and would replace; nothing was written. \
         Move {} away or choose another --out (--overwrite writes beside the user's files, never over them)",
        dir.display(),
        theirs.join(", "),
        if theirs.len() == 1 { "it" } else { "them" }
    ))
}

fn classify(dir: &Path, overwrite: bool) -> Result<Target, String> {
    let link = match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Target::New),
        Err(e) => return Err(format!("cannot write into {}: {e}; nothing was run", dir.display())),
        Ok(meta) => meta.file_type().is_symlink(),
    };
    let is_dir = fs::metadata(dir).map(|m| m.is_dir()).unwrap_or(false);
    if !is_dir {
        return Err(format!(
            "{} exists and is not a directory; the tables need a directory of their own: choose another --out (a file is never replaced)",
            dir.display()
        ));
    }
    let foreign = foreign_entries(dir)?;
    // `.`, `..` and `/` cannot be renamed, and a symlink's target must stay where it is.
    let movable = !link && dir.file_name().is_some() && !ends_in_dots(dir);
    match (foreign.is_empty(), movable) {
        (true, true) => Ok(Target::Replace),
        (true, false) => Ok(Target::InPlace),
        (false, _) if overwrite => Ok(Target::InPlace),
        (false, _) => {
            let shown: Vec<&str> = foreign.iter().take(4).map(String::as_str).collect();
            let more = if foreign.len() > shown.len() { format!(" and {} more", foreign.len() - shown.len()) } else { String::new() };
            Err(format!(
                "{} already holds files this tool did not write ({}{more}); nothing was run. Choose another --out, \
                 or add --overwrite to write the tables into it beside them (it never deletes a file it did not write)",
                dir.display(),
                shown.join(", ")
            ))
        }
    }
}

/// Whether the path as written ends in a `.` or `..` component (which `Path` hides).
fn ends_in_dots(dir: &Path) -> bool {
    let text = dir.as_os_str().to_string_lossy();
    let text = text.trim_end_matches('/');
    [".", ".."].iter().any(|d| text == *d || text.ends_with(&format!("/{d}")))
}

/// The names in `dir` that its marker does not list.
fn foreign_entries(dir: &Path) -> Result<Vec<String>, String> {
    let ours = listed(dir);
    let mut foreign = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))? {
        let name = entry.map_err(|e| e.to_string())?.file_name().to_string_lossy().into_owned();
        if name != MARKER && !ours.contains(&name) {
            foreign.push(name);
        }
    }
    foreign.sort();
    Ok(foreign)
}

/// The files `dir`'s marker lists (none if it has no marker).
fn listed(dir: &Path) -> BTreeSet<String> {
    let text = fs::read_to_string(dir.join(MARKER)).unwrap_or_default();
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.contains('/') && *l != "." && *l != "..").map(String::from).collect()
}

fn check_writable(dir: &Path, target: Target) -> Result<(), String> {
    let probe_in = match target {
        Target::InPlace => dir.to_path_buf(),
        Target::New | Target::Replace => {
            let parent = parent_of(dir);
            fs::create_dir_all(&parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            parent
        }
    };
    let probe = probe_in.join(format!(".equipoise-probe-{}", std::process::id()));
    fs::write(&probe, b"").map_err(|e| format!("cannot write into {}: {e}; nothing was run", probe_in.display()))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

fn parent_of(dir: &Path) -> PathBuf {
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn sibling(dir: &Path, what: &str, pid: u32) -> PathBuf {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "output".into());
    dir.with_file_name(format!("{name}.{what}-{pid}"))
}

/// Writes `files` (name, contents) into `dir` as [`prepare`] decided, with the marker; returns
/// the paths written.
pub fn write(dir: &Path, target: Target, files: &[(String, Vec<u8>)]) -> Result<Vec<PathBuf>, String> {
    // The location may have changed while the run ran (a file dropped into a previous output):
    // decide again, never more destructively than before.
    let target = match (target, classify(dir, true)?) {
        (Target::InPlace, _) => Target::InPlace,
        (_, now) => now,
    };
    match target {
        Target::New | Target::Replace => write_whole(dir, target, files)?,
        Target::InPlace => {
            refuse_foreign(dir, files.iter().map(|(name, _)| name.as_str()))?;
            write_in_place(dir, files)?
        }
    }
    Ok(files.iter().map(|(name, _)| dir.join(name)).collect())
}

fn marker_text(files: &[(String, Vec<u8>)]) -> String {
    files.iter().map(|(name, _)| format!("{name}\n")).collect()
}

fn write_whole(dir: &Path, target: Target, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    let tmp = sibling(dir, "tmp", std::process::id());
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = (|| {
        for (name, bytes) in files {
            fs::write(tmp.join(name), bytes).map_err(|e| format!("cannot write {}: {e}", tmp.join(name).display()))?;
        }
        fs::write(tmp.join(MARKER), marker_text(files)).map_err(|e| format!("cannot write {}: {e}", tmp.join(MARKER).display()))?;
        match target {
            Target::New => fs::rename(&tmp, dir).map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), dir.display())),
            _ => replace(&tmp, dir),
        }
    })();
    // After an exchange the old output is at `tmp`; after a failure, the partial new one.
    let _ = fs::remove_dir_all(&tmp);
    result
}

/// Puts directory `tmp` in the place of directory `dir`, leaving the old `dir` at `tmp`.
fn replace(tmp: &Path, dir: &Path) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, tmp, CWD, dir, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {} // no exchange here: fall back
            Err(e) => return Err(format!("cannot exchange {} with {}: {e}", tmp.display(), dir.display())),
        }
    }
    let old = sibling(dir, "old", std::process::id());
    fs::rename(dir, &old).map_err(|e| format!("cannot move the old {} aside: {e}", dir.display()))?;
    fs::rename(tmp, dir).map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), dir.display()))?;
    fs::rename(&old, tmp).map_err(|e| format!("cannot rename {}: {e}", old.display()))
}

fn write_in_place(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    let before = listed(dir);
    // The marker goes first and comes back last: while the files change, none claims them.
    let marker = dir.join(MARKER);
    if marker.exists() {
        fs::remove_file(&marker).map_err(|e| format!("cannot remove {}: {e}", marker.display()))?;
    }
    for (name, bytes) in files {
        write_file_atomically(&dir.join(name), bytes)?;
    }
    for name in before.iter().filter(|n| !files.iter().any(|(f, _)| f == *n)) {
        let path = dir.join(name);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&path);
        }
    }
    write_file_atomically(&marker, marker_text(files).as_bytes())
}

/// Writes `bytes` to `path` through a temporary name beside it, so `path` is never half
/// written.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot rename {} to {}: {e}", tmp.display(), path.display())
    })
}

/// Refuses to write file `path` over a file this tool did not write: one that exists and does
/// not contain `signature`, unless `overwrite`.
pub fn check_file(path: &Path, signature: &str, overwrite: bool) -> Result<(), String> {
    match fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(meta) if meta.is_dir() => Err(format!("{} is a directory; name a file", path.display())),
        Ok(_) if overwrite => Ok(()),
        Ok(_) => {
            let text = fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
            if text.contains(signature) {
                Ok(())
            } else {
                Err(format!(
                    "{} exists and was not written by this tool; choose another --out, or add --overwrite to replace it",
                    path.display()
                ))
            }
        }
    }
}

/// Removes `DIR.tmp-<pid>` and `DIR.old-<pid>` beside `dir` left by processes that no longer
/// run, when they hold nothing but output files.
fn remove_stale_temporaries(dir: &Path) {
    let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else { return };
    let Ok(entries) = fs::read_dir(parent_of(dir)) else { return };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&name) else { continue };
        let pid = rest.strip_prefix(".tmp-").or_else(|| rest.strip_prefix(".old-")).and_then(|p| p.parse::<u32>().ok());
        let Some(pid) = pid else { continue };
        if pid == std::process::id() || process_runs(pid) {
            continue;
        }
        let path = entry.path();
        let only_outputs = fs::read_dir(&path).is_ok_and(|inner| {
            inner.flatten().all(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n == MARKER || n.ends_with(".parquet") || n.ends_with(".svg")
            })
        });
        if only_outputs {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Whether process `pid` still runs (Linux's `/proc`; elsewhere, assume it does). A zombie,
/// killed and not yet reaped by its parent, runs no more: what it left may go.
pub fn process_runs(pid: u32) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (name) STATE …`: the name may hold spaces and parentheses, the state follows the last `)`.
        Ok(stat) => !stat.rsplit_once(')').is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
        Err(_) => Path::new("/proc").join(pid.to_string()).exists(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_runs_no_more() {
        assert!(process_runs(std::process::id()));
        let mut child = std::process::Command::new("sleep").arg("10").spawn().unwrap();
        assert!(process_runs(child.id()));
        child.kill().unwrap();
        // Killed and not reaped: a zombie until `wait`.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while process_runs(child.id()) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(Path::new(&format!("/proc/{}", child.id())).exists(), "still in /proc, as a zombie");
        assert!(!process_runs(child.id()));
        child.wait().unwrap();
        assert!(!process_runs(child.id()));
    }

    /// A test's folder under the temporary directory, removed when the test ends.
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("equipoise-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn files(text: &str) -> Vec<(String, Vec<u8>)> {
        vec![("a.parquet".into(), text.as_bytes().to_vec()), ("b.parquet".into(), text.as_bytes().to_vec())]
    }

    #[test]
    fn a_new_directory_then_its_replacement() {
        let root = scratch("replace");
        let dir = root.join("out");
        assert_eq!(prepare(&dir, false, &[]), Ok(Target::New));
        write(&dir, Target::New, &files("one")).unwrap();
        assert_eq!(fs::read_to_string(dir.join(MARKER)).unwrap(), "a.parquet\nb.parquet\n");
        assert_eq!(prepare(&dir, false, &[]), Ok(Target::Replace));
        write(&dir, Target::Replace, &files("two")).unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.parquet")).unwrap(), "two");
        let left: Vec<_> = fs::read_dir(&*root).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("out")], "no temporaries left");
    }

    #[test]
    fn a_directory_with_the_users_files_is_refused_or_written_beside_them() {
        let root = scratch("foreign");
        let dir = root.join("mydir");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("thesis.tex"), "mine").unwrap();
        let err = prepare(&dir, false, &[]).unwrap_err();
        assert!(err.contains("thesis.tex") && err.contains("--overwrite"), "{err}");
        assert_eq!(prepare(&dir, true, &[]), Ok(Target::InPlace));
        write(&dir, Target::InPlace, &files("one")).unwrap();
        // A second run with fewer tables deletes only its own earlier files.
        write(&dir, Target::InPlace, &files("two")[..1]).unwrap();
        assert_eq!(fs::read_to_string(dir.join("thesis.tex")).unwrap(), "mine");
        assert!(dir.join("a.parquet").exists() && !dir.join("b.parquet").exists());
        assert_eq!(fs::read_to_string(dir.join(MARKER)).unwrap(), "a.parquet\n");
    }

    #[test]
    fn with_overwrite_a_file_of_the_users_is_never_written_over() {
        let root = scratch("theirs");
        let dir = root.join("mydir");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("a.parquet"), "mine").unwrap();
        let planned = vec!["a.parquet".to_string(), "b.parquet".to_string()];
        let err = prepare(&dir, true, &planned).unwrap_err();
        assert!(err.contains("a.parquet") && !err.contains("b.parquet") && err.contains("nothing was written"), "{err}");
        // Found only at writing time (a name not known before the run): nothing is written.
        let err = write(&dir, Target::InPlace, &files("one")).unwrap_err();
        assert!(err.contains("a.parquet"), "{err}");
        assert_eq!(fs::read_to_string(dir.join("a.parquet")).unwrap(), "mine");
        assert!(!dir.join("b.parquet").exists() && !dir.join(MARKER).exists());
        // Once the user's file is gone, the tool's own files are written and rewritten.
        fs::remove_file(dir.join("a.parquet")).unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        write(&dir, prepare(&dir, true, &planned).unwrap(), &files("one")).unwrap();
        write(&dir, prepare(&dir, true, &planned).unwrap(), &files("two")).unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.parquet")).unwrap(), "two");
        assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    }

    #[test]
    fn dot_a_symlink_and_a_file_in_the_way() {
        let root = scratch("special");
        fs::write(root.join("notes.txt"), "mine").unwrap();
        // `.` and `..` of a directory with the user's files: refused.
        let dot = root.join(".");
        assert!(prepare(&dot, false, &[]).unwrap_err().contains("notes.txt"));
        let sub = root.join("sub");
        fs::create_dir(&sub).unwrap();
        assert!(prepare(&sub.join(".."), false, &[]).unwrap_err().contains("notes.txt"));
        // `x/.` of an empty directory: written into, not renamed.
        let empty = root.join("empty");
        fs::create_dir(&empty).unwrap();
        assert_eq!(prepare(&empty.join("."), false, &[]), Ok(Target::InPlace));
        // A symlink to an empty directory: written through, the link left in place.
        let target = root.join("target");
        fs::create_dir(&target).unwrap();
        let link = root.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(prepare(&link, false, &[]), Ok(Target::InPlace));
        write(&link, Target::InPlace, &files("one")).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(target.join("a.parquet").exists());
        // A regular file: refused, even with --overwrite.
        let file = root.join("results.txt");
        fs::write(&file, "mine").unwrap();
        for overwrite in [false, true] {
            assert!(prepare(&file, overwrite, &[]).unwrap_err().contains("not a directory"));
        }
        assert_eq!(fs::read_to_string(&file).unwrap(), "mine");
    }

    #[test]
    fn a_file_added_during_the_run_is_kept() {
        let root = scratch("late");
        let dir = root.join("out");
        write(&dir, prepare(&dir, false, &[]).unwrap(), &files("one")).unwrap();
        let target = prepare(&dir, false, &[]).unwrap();
        assert_eq!(target, Target::Replace);
        fs::write(dir.join("notes.txt"), "written while the run ran").unwrap();
        write(&dir, target, &files("two")).unwrap();
        assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "written while the run ran");
        assert_eq!(fs::read_to_string(dir.join("a.parquet")).unwrap(), "two");
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let root = scratch("stale");
        let dir = root.join("out");
        // pid 4194304 is above Linux's limit: no such process.
        for what in ["tmp", "old"] {
            let stale = sibling(&dir, what, 4_194_304);
            fs::create_dir(&stale).unwrap();
            fs::write(stale.join("flows.parquet"), "x").unwrap();
        }
        let kept = sibling(&dir, "tmp", 4_194_305);
        fs::create_dir(&kept).unwrap();
        fs::write(kept.join("thesis.tex"), "mine").unwrap();
        prepare(&dir, false, &[]).unwrap();
        assert!(!sibling(&dir, "tmp", 4_194_304).exists() && !sibling(&dir, "old", 4_194_304).exists());
        assert!(kept.join("thesis.tex").exists(), "a folder with other files is not touched");
    }

    #[test]
    fn single_files_are_replaced_only_if_ours() {
        let root = scratch("file");
        let path = root.join("plot.svg");
        assert_eq!(check_file(&path, "<!-- equipoise -->", false), Ok(()));
        fs::write(&path, "<svg><!-- equipoise --></svg>").unwrap();
        assert_eq!(check_file(&path, "<!-- equipoise -->", false), Ok(()));
        fs::write(&path, "<svg>the user's</svg>").unwrap();
        assert!(check_file(&path, "<!-- equipoise -->", false).is_err());
        assert_eq!(check_file(&path, "<!-- equipoise -->", true), Ok(()));
    }
}
