//! The documentation cannot rot: README.md and every page under docs/ are read here, and what
//! they show is checked against the program and the repository.
//!
//! - Every ```` ```toml ```` block is a scenario or a sweep that `equipoise validate` accepts. A
//!   block whose info string is `toml fragment=FILE` is part of a file: it is merged into the
//!   repository's `FILE` (tables key by key, `[[array]]` tables appended) and the whole is
//!   validated. A sweep's `scenario` is resolved as from a file in `sweeps/`, else from the
//!   repository root, so that both `../scenarios/x.toml` and `scenarios/x.toml` work.
//! - Every command shown in a `sh`, `console`, `shell` or `bash` block (`equipoise …`,
//!   `cargo run --release -p equipoise -- …`) parses with the binary's own definition: run in an
//!   empty directory, it may only fail for want of its input files. The repository files it
//!   names exist, and a command on a scenario or sweep file validates with its `--set`
//!   overrides. Placeholders (`FILE`, `DIR`) are refused: a shown command is one to copy.
//! - Every `equipoise …` line of other blocks (a synopsis) names only options the subcommand
//!   has.
//! - Every relative link resolves to a file (from a page of the book, one in docs/), and an
//!   `#anchor` to a heading of its page (slugs as GitHub and mdBook make them).
//! - docs/SUMMARY.md lists every page at the top of docs/, and every page it lists exists.
//! - Every page of the reproduction report (docs/reproduction*.md) has at most 700 lines, and
//!   every decimal number of its prose is one its section's reports print (or its sweep and
//!   scenario files hold), unless the paragraph is a measured write-up that gives its command.
//! - README.md gives the test command that `.ci/run` runs.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

/// A scratch directory of this test process, empty.
fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::scratch("docs", name)
}

/// README.md and every Markdown page under docs/, in a fixed order.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("docs/ is readable").map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut out);
    out
}

/// A page's path as a reader of its errors wants it: relative to the repository.
fn shown(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

/// A fenced code block of a page.
struct Block {
    page: PathBuf,
    /// Line of the opening fence, from 1.
    line: usize,
    /// The info string's first word (`toml`, `sh`, or empty).
    lang: String,
    /// The info string's other words (`fragment=scenarios/dumbbell.toml`).
    attrs: Vec<String>,
    text: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", shown(&self.page), self.line)
    }
}

/// A page split into its fenced code blocks and its prose lines (with their line numbers).
struct Page {
    blocks: Vec<Block>,
    prose: Vec<(usize, String)>,
}

fn read_page(path: &Path) -> Page {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", shown(path)));
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    // The open fence: its character, length, indentation, and the block so far.
    let mut open: Option<(char, usize, usize, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let fence = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        match &mut open {
            Some((c, len, fence_indent, block)) => {
                if fence(*c) >= *len && trimmed.trim_start_matches(*c).trim().is_empty() {
                    let (.., block) = open.take().unwrap();
                    blocks.push(block);
                } else {
                    let cut = line.char_indices().take_while(|&(j, ch)| j < *fence_indent && ch == ' ').count();
                    block.text.push_str(&line[cut..]);
                    block.text.push('\n');
                }
            }
            None => {
                let c = if trimmed.starts_with("```") {
                    '`'
                } else if trimmed.starts_with("~~~") {
                    '~'
                } else {
                    prose.push((i + 1, line.to_string()));
                    continue;
                };
                let len = fence(c);
                let mut words = trimmed[len..].split(|ch: char| ch == ',' || ch.is_whitespace()).filter(|w| !w.is_empty());
                let lang = words.next().unwrap_or("").to_string();
                let attrs = words.map(str::to_string).collect();
                open = Some((c, len, indent, Block { page: path.to_path_buf(), line: i + 1, lang, attrs, text: String::new() }));
            }
        }
    }
    if let Some((.., block)) = open {
        panic!("{}: a code block is never closed", block.at());
    }
    Page { blocks, prose }
}

/// Runs the binary with `args` in `dir`, at most `limit` long: (exit code, stdout, stderr).
fn equipoise(args: &[String], dir: &Path, limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_equipoise"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the binary") {
            break status.code();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status, out.join().unwrap(), err.join().unwrap())
}

/// Merges `part` into `base`: tables key by key, arrays of tables appended, anything else
/// replaced.
fn merge(base: &mut toml::Table, part: toml::Table) {
    for (key, value) in part {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(p)) => merge(b, p),
            (Some(toml::Value::Array(b)), toml::Value::Array(p)) if b.iter().chain(&p).all(toml::Value::is_table) => b.extend(p),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[test]
fn toml_blocks_are_valid_scenarios_and_sweeps() {
    let root = root();
    let dir = scratch("toml");
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for (n, block) in read_page(&page).blocks.into_iter().filter(|b| b.lang == "toml").enumerate() {
            let mut fail = |m: String| failures.push(format!("{}: {m}", block.at()));
            let part = match block.text.parse::<toml::Table>() {
                Ok(t) => t,
                Err(e) => {
                    fail(format!("not TOML: {e}"));
                    continue;
                }
            };
            // Where a sweep's relative `scenario` is looked for.
            let mut dirs = vec![root.join("sweeps"), root.clone()];
            let mut table = part;
            let mut unknown = Vec::new();
            for attr in &block.attrs {
                match attr.split_once('=') {
                    Some(("fragment", file)) => {
                        let base = root.join(file);
                        let text = match std::fs::read_to_string(&base) {
                            Ok(t) => t,
                            Err(e) => {
                                unknown.push(format!("fragment={file}: {e}"));
                                continue;
                            }
                        };
                        let mut whole: toml::Table = text.parse().unwrap_or_else(|e| panic!("{file}: {e}"));
                        merge(&mut whole, table);
                        table = whole;
                        dirs = vec![base.parent().unwrap().to_path_buf()];
                    }
                    _ => unknown.push(format!("unknown attribute {attr:?} (a toml block takes fragment=FILE)")),
                }
            }
            if !unknown.is_empty() {
                fail(unknown.join("; "));
                continue;
            }
            if let Some(toml::Value::String(rel)) = table.get("scenario") {
                let Some(found) = dirs.iter().map(|d| d.join(rel)).find(|p| p.is_file()) else {
                    let looked: Vec<String> = dirs.iter().map(|d| shown(d)).collect();
                    fail(format!("sweep: no scenario {rel:?} from {}", looked.join(" or ")));
                    continue;
                };
                table.insert("scenario".into(), toml::Value::String(found.display().to_string()));
            }
            let stem = shown(&block.page).replace(['/', '.'], "-");
            let file = dir.join(format!("{stem}-{n}-line{}.toml", block.line));
            std::fs::write(&file, table.to_string()).unwrap();
            let (status, _, err) = equipoise(&["validate".into(), file.display().to_string()], &root, Duration::from_secs(60));
            checked += 1;
            if status != Some(0) {
                fail(format!("equipoise validate refuses it:\n{}", err.trim()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 5, "only {checked} toml blocks found: is the extraction broken?");
    assert!(failures.is_empty(), "{} of {checked} toml blocks fail:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Splits a shell command line into words as `sh` would for a plain command: quotes and
/// backslashes; it ends at an unquoted comment, pipe, redirection or list operator.
fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => w.push(x),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => w.push(chars.next().unwrap()),
                        Some(x) => w.push(x),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                if let Some(x) = chars.next() {
                    word.get_or_insert_with(String::new).push(x);
                }
            }
            '#' if word.is_none() => break,
            '|' | '>' | '<' | ';' | '&' => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// The arguments of an equipoise command line, if it is one, also under `sudo`, `time`,
/// `perf stat`, `valgrind` and environment assignments.
fn equipoise_args(mut words: &[String]) -> Option<Vec<String>> {
    let assignment =
        |w: &str| w.split_once('=').is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
    let mut wrapped = false;
    loop {
        match words {
            [first, rest @ ..] if first == "sudo" || first == "time" || assignment(first) => words = rest,
            [perf, stat, rest @ ..] if perf == "perf" && stat == "stat" => (words, wrapped) = (rest, true),
            [valgrind, rest @ ..] if valgrind == "valgrind" => (words, wrapped) = (rest, true),
            [option, rest @ ..] if wrapped && option.starts_with('-') => words = rest,
            _ => break,
        }
    }
    let cargo = ["cargo", "run", "--release", "-p", "equipoise", "--"];
    match words {
        [program, rest @ ..] if ["equipoise", "target/release/equipoise", "./target/release/equipoise"].contains(&program.as_str()) => {
            Some(rest.to_vec())
        }
        _ if words.len() >= cargo.len() && words.iter().zip(cargo).all(|(w, c)| w == c) => Some(words[cargo.len()..].to_vec()),
        _ => None,
    }
}

/// The commands shown in a shell block: (line, words).
fn shell_commands(block: &Block) -> Vec<(usize, Result<Vec<String>, String>)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in block.text.lines().enumerate() {
        let line_no = block.line + 1 + i;
        let line = match (&pending, block.lang.as_str()) {
            (None, "console") => match line.trim_start().strip_prefix("$ ") {
                Some(command) => command,
                None => continue,
            },
            _ => line,
        };
        let (start, mut text) = pending.take().unwrap_or((line_no, String::new()));
        match line.trim_end().strip_suffix('\\') {
            Some(head) => {
                text.push_str(head);
                text.push(' ');
                pending = Some((start, text));
            }
            None => {
                text.push_str(line);
                out.push((start, shell_words(&text)));
            }
        }
    }
    out
}

/// The options of `equipoise` subcommands that take a value.
const VALUED: &[&str] = &[
    "--out",
    "--set",
    "--seed",
    "--capture",
    "--ns",
    "--jobs",
    "--shard",
    "--slurm-shards",
    "--slurm-cpus",
    "--slurm-time",
    "--slurm-mem",
    "--slurm-partition",
    "--x",
    "--y",
    "--by",
    "--where",
    "--at",
    "--agg",
    "--theory",
    "--dataset",
    "--into",
];

/// The positional arguments and the `--set` pairs (with `--seed` as `sim.seed`) of `args`.
fn positionals_and_sets(args: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut positional, mut sets) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if let Some((option, value)) = a.split_once('=').filter(|(o, _)| o.starts_with("--")) {
            match option {
                "--set" => sets.push(value.to_string()),
                "--seed" => sets.push(format!("sim.seed={value}")),
                _ => {}
            }
        } else if VALUED.contains(&a.as_str()) {
            if let Some(value) = args.get(i + 1) {
                match a.as_str() {
                    "--set" => sets.push(value.clone()),
                    "--seed" => sets.push(format!("sim.seed={value}")),
                    _ => {}
                }
            }
            i += 1;
        } else if !a.starts_with('-') {
            positional.push(a.clone());
        }
        i += 1;
    }
    (positional, sets)
}

/// Whether `word` names a file of the repository (which must then exist).
fn repository_path(word: &str) -> bool {
    ["scenarios/", "sweeps/", "benches/", "docs/", "scripts/", "crates/"].iter().any(|p| word.starts_with(p))
}

#[test]
fn shown_commands_parse_and_their_files_validate() {
    let root = root();
    let empty = scratch("commands");
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for block in read_page(&page).blocks {
            if !["sh", "console", "shell", "bash"].contains(&block.lang.as_str()) {
                continue;
            }
            for (line, words) in shell_commands(&block) {
                let at = format!("{}:{line}", shown(&block.page));
                let words = match words {
                    Ok(w) => w,
                    Err(e) => {
                        failures.push(format!("{at}: {e}"));
                        continue;
                    }
                };
                let Some(args) = equipoise_args(&words) else { continue };
                checked += 1;
                let shown_args = args.join(" ");
                let placeholders: Vec<&String> =
                    args.iter().filter(|a| a.len() > 1 && a.chars().all(|c| c.is_ascii_uppercase() || c == '_')).collect();
                if !placeholders.is_empty() {
                    failures.push(format!("{at}: equipoise {shown_args}: placeholders {placeholders:?}; show a command that runs"));
                    continue;
                }
                // Parsed by the binary itself where nothing is: only the input may be missing.
                let (status, _, err) = equipoise(&args, &empty, Duration::from_secs(30));
                let parsed = status == Some(0) || (status == Some(1) && err.contains("No such file or directory"));
                if !parsed {
                    failures.push(format!("{at}: equipoise {shown_args}: exit {status:?}:\n{}", err.trim()));
                    continue;
                }
                for word in args.iter().filter(|a| repository_path(a)) {
                    if !root.join(word).exists() {
                        failures.push(format!("{at}: equipoise {shown_args}: no file {word} in the repository"));
                    }
                }
                // A command on a scenario or sweep file: the file with its overrides validates.
                let sub: Vec<&str> = args.iter().take(2).map(String::as_str).collect();
                let (positional, sets) = positionals_and_sets(&args);
                let files: Vec<&String> = match sub.as_slice() {
                    ["export", "ns2", ..] => positional.get(2).into_iter().collect(),
                    ["run" | "fluid" | "ns2" | "testbed" | "validate" | "sweep", ..] => positional.get(1).into_iter().collect(),
                    ["report", ..] => positional.iter().skip(1).collect(),
                    _ => Vec::new(),
                };
                for file in files.into_iter().filter(|f| repository_path(f) && root.join(f).is_file()) {
                    let mut validate = vec!["validate".to_string(), file.clone()];
                    if sub[0] != "sweep" && sub[0] != "report" {
                        validate.extend(sets.iter().flat_map(|s| ["--set".to_string(), s.clone()]));
                    }
                    let (status, _, err) = equipoise(&validate, &root, Duration::from_secs(60));
                    if status != Some(0) {
                        failures.push(format!("{at}: equipoise {shown_args}: `equipoise {}` fails:\n{}", validate.join(" "), err.trim()));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&empty);
    assert!(checked >= 10, "only {checked} commands found: is the extraction broken?");
    assert!(failures.is_empty(), "{} of {checked} commands fail:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn synopsis_lines_name_existing_options() {
    let root = root();
    let mut help: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for block in read_page(&page).blocks {
            if ["sh", "console", "shell", "bash", "toml"].contains(&block.lang.as_str()) {
                continue;
            }
            for (i, line) in block.text.lines().enumerate() {
                let Some(rest) = line.strip_prefix("equipoise ") else { continue };
                let words: Vec<&str> = rest.split_whitespace().collect();
                let sub: Vec<String> = words
                    .iter()
                    .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
                    .map(|w| w.to_string())
                    .collect();
                let text = help.entry(sub.clone()).or_insert_with(|| {
                    let args: Vec<String> = sub.iter().cloned().chain(["--help".to_string()]).collect();
                    equipoise(&args, &root, Duration::from_secs(30)).1
                });
                checked += 1;
                let at = format!("{}:{}", shown(&block.page), block.line + 1 + i);
                if text.is_empty() {
                    failures.push(format!("{at}: `equipoise {}` is no subcommand", sub.join(" ")));
                    continue;
                }
                for option in rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).filter(|w| w.starts_with("--") && w.len() > 2)
                {
                    let found = text
                        .match_indices(option)
                        .any(|(j, _)| !text[j + option.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-'));
                    if !found {
                        failures.push(format!("{at}: `equipoise {}` has no option {option}", sub.join(" ")));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} synopsis lines fail:\n\n{}", failures.len(), failures.join("\n"));
}

/// The text of a line as rendered, without its inline code spans.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let fence = "`".repeat(ticks);
        match after.find(&fence) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The link targets of a prose line: inline links and images, `[x]: target` definitions.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut out = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some((label, target)) = trimmed.split_once("]: ")
        && !label.contains(']')
    {
        out.extend(target.split_whitespace().next().map(str::to_string));
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(found) = line[i..].find("](") {
        let start = i + found + 2;
        let mut depth = 1;
        let mut end = start;
        while end < bytes.len() {
            match bytes[end] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            end += 1;
        }
        let target = line[start..end].trim();
        let target = target.split_whitespace().next().unwrap_or("").trim_start_matches('<').trim_end_matches('>');
        out.push(target.to_string());
        i = end.min(line.len());
    }
    out
}

/// The anchor GitHub and mdBook give a heading: lowercase, spaces to '-', every other
/// character but letters, digits, '-' and '_' dropped (markup first).
fn slug(heading: &str) -> String {
    let mut text = without_code_spans(&heading.replace('`', "\u{0}")).replace('\u{0}', "");
    // Links render as their text.
    while let (Some(open), Some(mid)) = (text.find('['), text.find("](")) {
        let Some(close) = text[mid..].find(')') else { break };
        if open > mid {
            break;
        }
        text = format!("{}{}{}", &text[..open], &text[open + 1..mid], &text[mid + close + 1..]);
    }
    text.trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_lowercase().collect::<String>()),
            c if c.is_whitespace() => Some("-".into()),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings, duplicates numbered as GitHub and mdBook number them.
fn anchors(page: &Page) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in &page.prose {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim().trim_end_matches('#'));
        let mut id = base.clone();
        let mut n = 0;
        while out.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        out.insert(id);
    }
    out
}

#[test]
fn links_resolve_to_files_and_headings() {
    let mut parsed: BTreeMap<PathBuf, Page> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in pages() {
        let page = read_page(&path);
        for (line, text) in &page.prose {
            for target in link_targets(text) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let at = format!("{}:{line}", shown(&path));
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let resolved = if file.is_empty() { path.clone() } else { path.parent().unwrap().join(file) };
                if !resolved.exists() {
                    failures.push(format!("{at}: {target}: no such file"));
                    continue;
                }
                // The book is built from docs/ alone: a link out of it resolves on GitHub but
                // not in the book. Code and scenarios are named as paths, not linked.
                let docs = root().join("docs").canonicalize().unwrap();
                if path.starts_with(root().join("docs")) && !resolved.canonicalize().unwrap().starts_with(&docs) {
                    failures.push(format!("{at}: {target}: outside docs/, which the book does not hold"));
                    continue;
                }
                if anchor.is_empty() || resolved.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let resolved = resolved.canonicalize().unwrap();
                let ids = anchors(parsed.entry(resolved.clone()).or_insert_with(|| read_page(&resolved)));
                if !ids.contains(anchor) {
                    failures.push(format!("{at}: {target}: no heading #{anchor} in {}", shown(&resolved)));
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} links found: is the extraction broken?");
    assert!(failures.is_empty(), "{} of {checked} links are broken:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn summary_lists_every_page() {
    let docs = root().join("docs");
    let summary = read_page(&docs.join("SUMMARY.md"));
    let listed: BTreeSet<String> = summary
        .prose
        .iter()
        .flat_map(|(_, line)| link_targets(line))
        .map(|t| t.split('#').next().unwrap_or("").to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let missing: Vec<&String> = listed.iter().filter(|t| !docs.join(t).is_file()).collect();
    assert!(missing.is_empty(), "docs/SUMMARY.md lists pages that do not exist: {missing:?}");
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(&docs).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" && !listed.contains(&name) {
            unlisted.push(name);
        }
    }
    unlisted.sort();
    assert!(unlisted.is_empty(), "docs/SUMMARY.md does not list {unlisted:?}");
}

/// The most lines a page of the reproduction report may have: one is made of the reports of
/// one paper.
const REPRODUCTION_PAGE_LINES: usize = 700;

#[test]
fn reproduction_pages_are_short_enough_to_read() {
    let pages = reproduction_pages();
    assert!(pages.len() >= 2, "the reproduction report's pages: {pages:?}");
    let long: Vec<String> = pages
        .iter()
        .map(|p| (p, std::fs::read_to_string(p).unwrap().lines().count()))
        .filter(|&(_, lines)| lines > REPRODUCTION_PAGE_LINES)
        .map(|(p, lines)| format!("{} has {lines} lines", shown(p)))
        .collect();
    assert!(
        long.is_empty(),
        "a page of the reproduction report has at most {REPRODUCTION_PAGE_LINES} lines (shorten the text between the reports): {}",
        long.join("; ")
    );
    // One page per paper: its title names the seed ("# Seed 003: RSF …").
    let mut seeds = BTreeMap::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        if let Some(seed) = text.lines().next().and_then(|t| t.strip_prefix("# Seed ")).and_then(|t| t.split(':').next())
            && let Some(other) = seeds.insert(seed.to_string(), shown(page))
        {
            panic!("seed {seed} has two pages, {other} and {}: a paper's reports are one page", shown(page));
        }
    }
    assert!(seeds.len() >= 5, "a page per paper of docs/papers.md, each titled \"# Seed NNN: …\": {seeds:?}");
}

/// The pages of the reproduction report: docs/reproduction*.md.
fn reproduction_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("reproduction")) && p.extension().is_some_and(|e| e == "md")
        })
        .collect();
    pages.sort();
    pages
}

/// The decimal numbers of a line of prose (code spans left out): a
/// run of digits with one inner point, not part of a word, a path or a version (`ns-2.35`,
/// `v0.88`, `3.11.8`).
fn decimals(line: &str) -> Vec<String> {
    let mut text = String::with_capacity(line.len());
    for (i, part) in line.split('`').enumerate() {
        text.push_str(if i % 2 == 0 { part } else { " " });
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let token = text[start..i].trim_end_matches('.');
        let before = text[..start].chars().next_back();
        let after_dash_word = text[..start].strip_suffix('-').and_then(|t| t.chars().next_back()).is_some_and(char::is_alphabetic);
        let attached = before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '/')) || after_dash_word;
        if !attached && token.matches('.').count() == 1 {
            out.push(token.to_string());
        }
    }
    out
}

/// Whether `number` stands in `text` as a number of its own (not inside a longer one).
fn prints(text: &str, number: &str) -> bool {
    text.match_indices(number).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + number.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.') && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// A phrase "N of M findings": a count the summary's table gives, which prose would repeat.
fn counts_findings(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.windows(4).any(|w| {
        w[0].chars().all(|c| c.is_ascii_digit()) && w[1] == "of" && w[2].chars().all(|c| c.is_ascii_digit()) && w[3].starts_with("finding")
    })
}

/// Whether a paragraph opens a measured write-up: it begins with "Measured" and gives the
/// command that measured it in a code span.
fn opens_write_up(paragraph: &str) -> bool {
    const COMMANDS: [&str; 7] = ["equipoise ", "scripts/", "benches/", "cargo ", "tshark ", "python", "ns "];
    paragraph.trim_start().starts_with("Measured")
        && paragraph.split('`').skip(1).step_by(2).any(|span| COMMANDS.iter().any(|c| span.starts_with(c)))
}

/// The numbers of a reproduction page's prose that drift from its reports: each decimal number
/// outside the report blocks must be one that a report block of its `## ` section prints, or
/// that the sweep files those blocks name (and their scenarios) hold; `files` reads a
/// repository file. A measured write-up (a paragraph that [`opens_write_up`], and the tables
/// and lists right after it) gives its own command, and is not checked. Each problem as
/// "LINE: what".
fn prose_numbers_not_in_reports(page: &str, files: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    /// A `## ` section: what its reports print, and its paragraphs (first line, text).
    #[derive(Default)]
    struct Section {
        printed: String,
        paragraphs: Vec<(usize, String)>,
    }
    let mut sections = vec![Section::default()];
    let (mut in_report, mut in_fence) = (false, false);
    let mut paragraph: Option<(usize, String)> = None;
    for (i, line) in page.lines().enumerate() {
        let trimmed = line.trim();
        let ends_paragraph = trimmed.is_empty() || trimmed.starts_with("<!--") || trimmed.starts_with("```") || line.starts_with('#');
        if (ends_paragraph || in_report || in_fence)
            && let Some(p) = paragraph.take()
        {
            sections.last_mut().unwrap().paragraphs.push(p);
        }
        if line.starts_with("## ") && !in_report && !in_fence {
            sections.push(Section::default());
        }
        let section = sections.last_mut().unwrap();
        if let Some(sweep) = trimmed.strip_prefix("<!-- report: ").and_then(|t| t.strip_suffix(" -->")) {
            in_report = true;
            if let Some(sweep_text) = files(sweep) {
                let scenario = sweep_text
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("scenario = \"").and_then(|t| t.strip_suffix('"')))
                    .map(|s| s.trim_start_matches("../").to_string());
                section.printed.push_str(&sweep_text);
                if let Some(text) = scenario.and_then(|s| files(&s)) {
                    section.printed.push_str(&text);
                }
            }
            continue;
        }
        if trimmed == "<!-- end report -->" {
            in_report = false;
            continue;
        }
        if in_report {
            section.printed.push_str(line);
            section.printed.push('\n');
            continue;
        }
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || ends_paragraph {
            continue;
        }
        let p = paragraph.get_or_insert_with(|| (i + 1, String::new()));
        p.1.push_str(line);
        p.1.push('\n');
    }
    if let Some(p) = paragraph.take() {
        sections.last_mut().unwrap().paragraphs.push(p);
    }
    let mut problems = Vec::new();
    for section in &sections {
        let mut in_write_up = false;
        for (first, text) in &section.paragraphs {
            let data = text.starts_with('|') || text.starts_with("- ") || text.starts_with("1. ");
            in_write_up = opens_write_up(text) || (in_write_up && data);
            if in_write_up {
                continue;
            }
            for (k, line) in text.lines().enumerate() {
                if counts_findings(line) {
                    problems.push(format!("{}: counts findings in prose (the summary's table counts them)", first + k));
                }
                for number in decimals(line) {
                    if !prints(&section.printed, &number) {
                        problems.push(format!("{}: {number} is not a number of the section's reports", first + k));
                    }
                }
            }
        }
    }
    problems
}

/// Reads a file of the repository, if it exists.
fn repository_file(path: &str) -> Option<String> {
    std::fs::read_to_string(root().join(path)).ok()
}

#[test]
fn reproduction_prose_gives_only_the_reports_numbers() {
    let mut problems = Vec::new();
    for page in reproduction_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for problem in prose_numbers_not_in_reports(&text, &repository_file) {
            problems.push(format!("{}:{problem}", shown(&page)));
        }
    }
    assert!(
        problems.is_empty(),
        "the prose of the reproduction report gives numbers its reports do not (write the report's number, leave the number out, or open a measured write-up: a paragraph that begins with \"Measured\" and gives its command in a code span):\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_planted_number_in_reproduction_prose_is_found() {
    let page = "# A paper\n\n## Table 1\n\n<!-- report: sweeps/none.toml -->\n| | paper | ours | ours / paper |\n|---|---|---|---|\n| goodput | 2.75 Mb/s | 2.975 Mb/s | 1.08 |\n<!-- end report -->\n\n";
    let none = |_: &str| None;
    let checked = |prose: &str| prose_numbers_not_in_reports(&format!("{page}{prose}\n"), &none);
    assert!(checked("Ours is 1.08 of the paper's (2.975 against 2.75 Mb/s).").is_empty());
    assert_eq!(checked("Ours is 1.05 of the paper's."), vec!["11: 1.05 is not a number of the section's reports"]);
    assert_eq!(
        checked("Ours is 1.0 of it,\nand 12 of 18 findings hold."),
        vec!["11: 1.0 is not a number of the section's reports", "12: counts findings in prose (the summary's table counts them)"]
    );
    assert!(
        checked("Measured (`equipoise run scenarios/x.toml --set link.rate=2Mbps`): 1.05.\n\n| a | b |\n|---|---|\n| 0.31 | 0.47 |")
            .is_empty()
    );
    assert_eq!(checked("Measured, without a command: 1.05."), vec!["11: 1.05 is not a number of the section's reports"]);
    assert_eq!(
        checked("Measured (`equipoise run x.toml`): 1.05.\n\nAnd then 0.31."),
        vec!["13: 0.31 is not a number of the section's reports"]
    );
    assert!(checked("On ns-2.35, Linux 3.11.8 and MPTCP v0.88, `0.5` in code.").is_empty());
    // A number of another section's report is not this section's.
    assert_eq!(checked("## Table 2\n\nOurs is 1.08."), vec!["13: 1.08 is not a number of the section's reports"]);
    // The real pages: a number planted in the first paragraph under a report is found.
    let real = std::fs::read_to_string(root().join("docs/reproduction-seed000.md")).unwrap();
    let planted = real.replacen("<!-- end report -->\n", "<!-- end report -->\n\nA planted 0.1234 of the paper's.\n", 1);
    let line = planted.lines().position(|l| l.starts_with("A planted")).unwrap() + 1;
    let found = prose_numbers_not_in_reports(&planted, &repository_file);
    assert!(found.contains(&format!("{line}: 0.1234 is not a number of the section's reports")), "{found:?}");
}

#[test]
fn readme_gives_the_command_ci_runs() {
    let root = root();
    let command = "cargo test --release --workspace --all-targets";
    let readme = read_page(&root.join("README.md"));
    assert!(
        readme.blocks.iter().any(|b| b.lang == "sh" && b.text.lines().any(|l| l.trim() == command)),
        "README.md shows `{command}` in a sh block"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == command), ".ci/run runs `{command}`, the command README.md gives");
}
