//! The tables every engine writes are the schema's (`topologies::schema`): each file of a run of
//! the packet simulator, the fluid model, the AIMD model and ns-2 has exactly the schema's
//! columns, with its types, null only where it may be; docs/results.md's tables of columns are
//! the schema's rows, word for word, and docs/fluid.md names every column of the fluid model's.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;
use topologies::schema::{self, Type};

use crate::common::{equipoise, scratch, stderr};

/// The repository's root.
fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

fn dtype(t: Type) -> DataType {
    match t {
        Type::String => DataType::String,
        Type::U32 => DataType::UInt32,
        Type::U64 => DataType::UInt64,
        Type::F64 => DataType::Float64,
        Type::Bool => DataType::Boolean,
    }
}

/// The problems of the tables in `dir` against the schema's `tables`.
fn against_schema(dir: &Path, tables: &[&schema::Table]) -> Vec<String> {
    let mut problems = Vec::new();
    for table in tables {
        let path = dir.join(format!("{}.parquet", table.name));
        let df = ParquetReader::new(File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).finish().unwrap();
        let mut ours: Vec<&str> = table.columns().map(|(c, ..)| c).collect();
        let mut theirs: Vec<&str> = df.get_column_names().iter().map(|n| n.as_str()).collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        if ours != theirs {
            problems.push(format!("{}: columns {theirs:?}, the schema's {ours:?}", table.name));
            continue;
        }
        for (name, t, nullable) in table.columns() {
            let column = df.column(name).unwrap();
            if column.dtype() != &dtype(t) {
                problems.push(format!("{}.{name}: {} in the file, {} in the schema", table.name, column.dtype(), t.name()));
            }
            if !nullable && column.null_count() > 0 {
                problems.push(format!("{}.{name}: {} nulls in a column the schema says is never null", table.name, column.null_count()));
            }
        }
    }
    problems
}

fn made(args: &[&str]) {
    let o = equipoise(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

#[test]
fn every_engine_writes_the_schemas_tables() {
    let dir = scratch("schema", "engines");
    let scenario = |name: &str| root().join("scenarios").join(name).to_string_lossy().into_owned();
    let out = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let run_tables: Vec<&schema::Table> = schema::RUN_TABLES.to_vec();
    made(&["run", &scenario("seed000-table4.toml"), "--quick", "--set", "sim.sample_interval=1s", "--quiet", "--out", &out("packet")]);
    made(&["fluid", &scenario("seed000-table4.toml"), "--set", "sim.sample_interval=1s", "--quiet", "--out", &out("fluid")]);
    made(&["run", &scenario("aimd-example1.toml"), "--quick", "--quiet", "--out", &out("aimd")]);
    let mut problems = against_schema(&dir.join("packet"), &run_tables);
    problems.extend(against_schema(&dir.join("fluid"), &schema::FLUID_TABLES).into_iter().map(|p| format!("fluid: {p}")));
    problems.extend(against_schema(&dir.join("aimd"), &schema::AIMD_TABLES).into_iter().map(|p| format!("aimd: {p}")));
    if std::process::Command::new("ns").arg("-version").output().is_ok() {
        made(&["ns2", &scenario("parallel-droptail.toml"), "--quick", "--quiet", "--out", &out("ns2")]);
        problems.extend(against_schema(&dir.join("ns2"), &run_tables).into_iter().map(|p| format!("ns-2: {p}")));
    } else {
        eprintln!("skipped the ns-2 side: no `ns` on the PATH (Debian's ns2 package)");
    }
    assert!(problems.is_empty(), "the tables written depart from topologies::schema:\n{}", problems.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_results_page_documents_the_schema_row_by_row() {
    let page = std::fs::read_to_string(root().join("docs/results.md")).unwrap();
    let mut problems = Vec::new();
    for table in schema::RUN_TABLES.into_iter().chain(schema::AIMD_TABLES) {
        // A table's rows follow the first `| column | type | unit / meaning |` header after its
        // name is given as a file, `` `flows.parquet` ``.
        let file = format!("`{}.parquet`", table.name);
        let Some(at) = page.find(&file) else {
            problems.push(format!("docs/results.md does not name {file}"));
            continue;
        };
        let header = "| column | type | unit / meaning |";
        let Some(start) = page[at..].find(header).map(|i| at + i) else {
            problems.push(format!("no table of columns after {file}"));
            continue;
        };
        let rows: Vec<&str> = page[start..].lines().skip(2).take_while(|l| l.starts_with('|')).collect();
        let expected: Vec<String> = table.rows.iter().map(schema::Row::markdown).collect();
        if rows != expected {
            problems.push(format!("{file}: the page's rows\n  {}\nthe schema's\n  {}", rows.join("\n  "), expected.join("\n  ")));
        }
    }
    assert!(problems.is_empty(), "docs/results.md's tables of columns are topologies::schema's rows:\n{}", problems.join("\n"));
}

#[test]
fn the_fluid_page_names_every_column_of_the_models_tables() {
    let page = std::fs::read_to_string(root().join("docs/fluid.md")).unwrap();
    let mut problems = Vec::new();
    for table in schema::FLUID_TABLES.into_iter().filter(|t| t.name != "metrics") {
        let Some(row) = page.lines().find(|l| l.starts_with(&format!("| `{}` |", table.name))) else {
            problems.push(format!("docs/fluid.md has no row for its `{}` table", table.name));
            continue;
        };
        for (column, ..) in table.columns() {
            if !row.contains(&format!("`{column}`")) {
                problems.push(format!("docs/fluid.md's `{}` row does not name `{column}`", table.name));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
