//! Key paths into a scenario (`sim.duration`, `link.l1.rate`, `flow.mp.cc.phi`) and setting
//! values at them: `equipoise run --set` and sweeps use the same paths. As in a TOML dotted
//! key, a segment may be quoted, which it must be to hold a dot: `topology.links."h0>e0_0".delay`.

use toml::{Table, Value};

use crate::error::suggestion;
use crate::read::SECTIONS;

/// Parses a command-line value: TOML if it is valid TOML (`0.5`, `true`, `"x"`, `[1, 2]`,
/// `{ kind = "red" }`), otherwise the text itself as a string (`10s`, `lia`).
pub fn parse_value(text: &str) -> Value {
    format!("v = {text}").parse::<Table>().ok().and_then(|mut t| t.remove("v")).unwrap_or_else(|| Value::String(text.to_string()))
}

/// Sets `value` at key path `path` of scenario `root`.
///
/// `link.<name>`, `flow.<name>` and `traffic.<name>` select the `[[link]]`, `[[flow]]` or
/// `[[traffic]]` table whose `name` is `<name>` (the name as written, before `count` expansion). The tables on the way must exist;
/// the last key may be new (unknown keys are caught when the scenario is read).
pub fn set_key(root: &mut Table, path: &str, value: Value) -> Result<(), String> {
    let (section, rest) =
        path.split_once('.').ok_or_else(|| format!("\"{path}\" is not a key path; expected <section>.<key> such as sim.duration"))?;
    let table: &mut Table = match section {
        "link" | "flow" | "traffic" => {
            let Some(Value::Array(items)) = root.get_mut(section) else {
                return Err(format!("the scenario has no [[{section}]] tables"));
            };
            return set_in_named(items, rest, value, section);
        }
        // A key of the AIMD model would make a network scenario an AIMD one, refused for its
        // links and flows: named here as the key it is.
        "aimd" if !root.contains_key("aimd") => {
            return Err("this is a network scenario (it has no [aimd] table): aimd.* keys belong to AIMD-model scenarios; \
                        expected a key of its own sections (sim, tcp, link.<name>, flow.<name>, …)"
                .into());
        }
        s if SECTIONS.contains(&s) => {
            root.entry(s).or_insert_with(|| Value::Table(Table::new())).as_table_mut().ok_or_else(|| format!("[{s}] is not a table"))?
        }
        other => {
            return Err(format!(
                "unknown section \"{other}\"{} (valid: {})",
                suggestion(other, SECTIONS.iter().copied()),
                SECTIONS.join(", ")
            ));
        }
    };
    set_in(table, rest, value, section)
}

/// The first segment of key path `path` and what follows its dot, if anything: a segment is
/// bare (up to the next dot) or quoted as a TOML basic string without escapes (`"h0>e0_0"`,
/// `"a.b"`), its quotes removed.
fn first_segment(path: &str) -> Result<(&str, Option<&str>), String> {
    let Some(quoted) = path.strip_prefix('"') else {
        return Ok(match path.split_once('.') {
            Some((head, tail)) => (head, Some(tail)),
            None => (path, None),
        });
    };
    let Some((head, after)) = quoted.split_once('"') else {
        return Err(format!("expected a closing quote after {path}"));
    };
    if head.contains('\\') {
        return Err(format!("the quoted key \"{head}\" has a backslash; expected a name without escapes"));
    }
    match after {
        "" => Ok((head, None)),
        _ => match after.strip_prefix('.') {
            Some(tail) => Ok((head, Some(tail))),
            None => Err(format!("expected a dot or the end after the quoted key \"{head}\", found \"{after}\"")),
        },
    }
}

/// `rest` starts with the `name` of one of the tables `items` (the array at `prefix`), bare or
/// quoted: sets the remaining path in that table.
fn set_in_named(items: &mut [Value], rest: &str, value: Value, prefix: &str) -> Result<(), String> {
    let names: Vec<String> = items.iter().map(|t| t.get("name").and_then(Value::as_str).unwrap_or_default().to_string()).collect();
    let chosen = if rest.starts_with('"') {
        let (name, tail) = first_segment(rest)?;
        let tail = tail.ok_or_else(|| format!("expected a key after {prefix}.\"{name}\""))?;
        names.iter().position(|n| n == name).map(|i| (i, tail))
    } else {
        // The longest name that prefixes the rest: names may contain dots.
        names
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.is_empty() && rest.starts_with(&format!("{n}.")))
            .max_by_key(|(_, n)| n.len())
            .map(|(i, n)| (i, &rest[n.len() + 1..]))
    };
    let Some((i, tail)) = chosen else {
        let got = first_segment(rest).map_or(rest, |(head, _)| head);
        let what = prefix.rsplit('.').next().unwrap_or(prefix);
        return Err(format!(
            "no {what} named \"{got}\"{} ({what}s: {})",
            suggestion(got, names.iter().map(String::as_str)),
            names.join(", ")
        ));
    };
    let table = items[i].as_table_mut().ok_or_else(|| format!("{prefix}[{i}] is not a table"))?;
    set_in(table, tail, value, &format!("{prefix}.{}", names[i]))
}

fn set_in(table: &mut Table, rest: &str, value: Value, prefix: &str) -> Result<(), String> {
    match first_segment(rest)? {
        (key, None) => {
            table.insert(key.to_string(), value);
            Ok(())
        }
        (head, Some(tail)) => {
            let here = format!("{prefix}.{head}");
            // An array of named tables (`[[aimd.group]]`): the next part of the path is a name.
            if let Some(Value::Array(items)) = table.get_mut(head)
                && items.iter().all(Value::is_table)
            {
                return set_in_named(items, tail, value, &here);
            }
            // A flow without `cc` runs reno: a parameter set on it is a parameter of reno.
            let default = if head == "cc" { Value::String("reno".into()) } else { Value::Table(Table::new()) };
            let entry = table.entry(head.to_string()).or_insert(default);
            // `cc = "lia"` then `--set flow.x.cc.beta=…`: promote the name to a table.
            if let Value::String(name) = entry
                && head == "cc"
            {
                let mut t = Table::new();
                t.insert("algorithm".into(), Value::String(name.clone()));
                *entry = Value::Table(t);
            }
            match entry {
                Value::Table(t) => set_in(t, tail, value, &here),
                _ => Err(format!("{here} is not a table, so it has no key \"{tail}\"")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Table {
        r#"
            [sim]
            duration = "10s"
            [[link]]
            name = "l1"
            rate = "10Mbps"
            [[flow]]
            name = "mp"
            cc = "reno"
            [[flow]]
            name = "mp.fast"
        "#
        .parse()
        .unwrap()
    }

    #[test]
    fn sets_values_at_key_paths() {
        let mut t = scenario();
        set_key(&mut t, "sim.duration", parse_value("20s")).unwrap();
        set_key(&mut t, "link.l1.loss", parse_value("0.01")).unwrap();
        set_key(&mut t, "flow.mp.cc.phi", parse_value("0.5")).unwrap();
        set_key(&mut t, "flow.mp.fast.start", parse_value("1s")).unwrap();
        set_key(&mut t, "tcp.min_rto", parse_value("\"1s\"")).unwrap();
        assert_eq!(t["sim"]["duration"].as_str(), Some("20s"));
        assert_eq!(t["link"][0]["loss"].as_float(), Some(0.01));
        assert_eq!(t["flow"][0]["cc"]["algorithm"].as_str(), Some("reno"));
        assert_eq!(t["flow"][0]["cc"]["phi"].as_float(), Some(0.5));
        assert_eq!(t["flow"][1]["start"].as_str(), Some("1s"));
        assert_eq!(t["tcp"]["min_rto"].as_str(), Some("1s"));
        let mut aimd: Table = "[aimd]\n[[aimd.group]]\nname = \"a\"\n[[aimd.group]]\nname = \"b\"".parse().unwrap();
        set_key(&mut aimd, "aimd.group.b.weight", parse_value("0.25")).unwrap();
        assert_eq!(aimd["aimd"]["group"][1]["weight"].as_float(), Some(0.25));
        assert!(set_key(&mut aimd, "aimd.group.c.weight", parse_value("1")).unwrap_err().contains("no group named \"c\""));
    }

    #[test]
    fn quoted_segments_name_keys_and_tables_as_toml_does() {
        let mut t = scenario();
        set_key(&mut t, r#"topology.links."h0>e0_0".delay"#, parse_value("2us")).unwrap();
        assert_eq!(t["topology"]["links"]["h0>e0_0"]["delay"].as_str(), Some("2us"));
        set_key(&mut t, r#"topology.links."a.b""#, parse_value("1")).unwrap();
        assert_eq!(t["topology"]["links"]["a.b"].as_integer(), Some(1));
        set_key(&mut t, r#"flow."mp.fast".start"#, parse_value("2s")).unwrap();
        set_key(&mut t, r#"flow."mp".start"#, parse_value("3s")).unwrap();
        assert_eq!((t["flow"][1]["start"].as_str(), t["flow"][0]["start"].as_str()), (Some("2s"), Some("3s")));
        for (path, expected) in [
            (r#"topology.links."h0>e0_0.delay"#, "expected a closing quote after \"h0>e0_0.delay"),
            (r#"topology.links."h0"x.delay"#, "expected a dot or the end"),
            (r#"topology.links."a\b".delay"#, "backslash"),
            (r#"flow."mp""#, "expected a key after flow.\"mp\""),
            (r#"flow."mp.slow".start"#, "no flow named \"mp.slow\""),
        ] {
            let err = set_key(&mut t, path, parse_value("1")).unwrap_err();
            assert!(err.contains(expected), "{path}: {err}");
        }
    }

    #[test]
    fn rejects_paths_that_lead_nowhere() {
        let mut t = scenario();
        assert!(set_key(&mut t, "link.l2.rate", parse_value("1Mbps")).unwrap_err().contains("did you mean \"l1\""));
        assert!(set_key(&mut t, "smi.duration", parse_value("1s")).unwrap_err().contains("did you mean \"sim\""));
        assert!(set_key(&mut t, "sim.duration.x", parse_value("1")).unwrap_err().contains("not a table"));
        assert!(set_key(&mut t, "duration", parse_value("1")).is_err());
        assert!(set_key(&mut t, "aimd.capacity", parse_value("2")).unwrap_err().contains("network scenario"));
    }
}
