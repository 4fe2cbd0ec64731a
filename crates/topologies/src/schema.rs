//! The tables every engine writes (`flows`, `subflows`, `links`, `metrics`, `timeseries`, and
//! the AIMD model's `model` and `connections`), declared once: each column's name, type,
//! whether it may be null, and what it holds. The Parquet writer's tables are checked against
//! it (crates/cli, `tables`), `[paper]` quantities name its tables and columns, and
//! docs/results.md's tables of columns are its rows, word for word (the documentation's test).

/// A column's type, as its Parquet file holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// UTF-8 text.
    String,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// 64-bit float.
    F64,
    /// True or false.
    Bool,
}

impl Type {
    /// The name docs/results.md gives it.
    pub fn name(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::F64 => "f64",
            Type::Bool => "bool",
        }
    }
}

/// A row of a table's documentation: one column, or several alike.
#[derive(Debug)]
pub struct Row {
    /// The columns, by name.
    pub columns: &'static [&'static str],
    /// Their types: one for all, or one each.
    pub types: &'static [Type],
    /// Whether they may be null (a quantity that does not exist, a value not measured).
    pub nullable: bool,
    /// What they hold, with their unit.
    pub about: &'static str,
}

impl Row {
    /// Each column with its type.
    pub fn columns(&self) -> impl Iterator<Item = (&'static str, Type)> + '_ {
        self.columns.iter().enumerate().map(|(i, c)| (*c, self.types[i.min(self.types.len() - 1)]))
    }

    /// The row as docs/results.md shows it: `| `a`, `b` | f64, null | what |`.
    pub fn markdown(&self) -> String {
        let names: Vec<String> = self.columns.iter().map(|c| format!("`{c}`")).collect();
        let mut types: Vec<&str> = self.types.iter().map(|t| t.name()).collect();
        if self.nullable {
            types.push("null");
        }
        format!("| {} | {} | {} |", names.join(", "), types.join(", "), self.about)
    }
}

/// What a table's rows are of, and how a `[paper]` quantity picks its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// One row per flow, link or AIMD group: the column naming it (a quantity's `group`).
    Column(&'static str),
    /// One row per run (the AIMD model's `model`): a quantity takes it whole.
    Run,
    /// The papers' metrics, one row per (metric, group): quantities name the metric.
    Metrics,
    /// Samples over time: no quantity reads them.
    Samples,
}

/// A table.
#[derive(Debug)]
pub struct Table {
    /// Its name, and its file's (`<name>.parquet`).
    pub name: &'static str,
    /// What its rows are of.
    pub entity: Entity,
    /// Its columns, in the documentation's rows.
    pub rows: &'static [Row],
}

impl Table {
    /// Each column with its type and whether it may be null.
    pub fn columns(&self) -> impl Iterator<Item = (&'static str, Type, bool)> + '_ {
        self.rows.iter().flat_map(|r| r.columns().map(move |(c, t)| (c, t, r.nullable)))
    }

    /// The column `name`, if the table has it.
    pub fn column(&self, name: &str) -> Option<(Type, bool)> {
        self.columns().find(|(c, ..)| *c == name).map(|(_, t, n)| (t, n))
    }
}

/// The tables of a run of the packet simulator, the fluid model, ns-2 or the testbed, in
/// file-name order.
pub const RUN_TABLES: [&Table; 5] = [&FLOWS, &LINKS, &METRICS, &SUBFLOWS, &TIMESERIES];

/// The tables of the fluid model's run (`equipoise fluid`), in file-name order: the names of a
/// run's, with the model's own columns (docs/fluid.md).
pub const FLUID_TABLES: [&Table; 5] = [&FLUID_FLOWS, &FLUID_LINKS, &METRICS, &FLUID_SUBFLOWS, &FLUID_TIMESERIES];

/// The tables of a run of seed 004's AIMD model, in file-name order.
pub const AIMD_TABLES: [&Table; 2] = [&CONNECTIONS, &MODEL];

/// The names of `tables`, in order.
pub const fn names<const N: usize>(tables: [&'static Table; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = tables[i].name;
        i += 1;
    }
    out
}

/// Every table, by its name.
pub fn table(name: &str) -> Option<&'static Table> {
    RUN_TABLES.into_iter().chain(AIMD_TABLES).find(|t| t.name == name)
}

/// `flows.parquet`. One row per flow.
pub const FLOWS: Table = Table {
    name: "flows",
    entity: Entity::Column("flow"),
    rows: &[
        Row { columns: &["flow"], types: &[Type::String], nullable: false, about: r#"flow name"# },
        Row { columns: &["algorithm"], types: &[Type::String], nullable: false, about: r#"window law"# },
        Row { columns: &["subflows"], types: &[Type::U32], nullable: false, about: r#"number of subflows"# },
        Row { columns: &["start_s"], types: &[Type::F64], nullable: false, about: r#"start time, s"# },
        Row {
            columns: &["goodput_bps"],
            types: &[Type::F64],
            nullable: false,
            about: r#"bytes received within the measured interval × 8 / its length, bit/s; the interval runs from max(warm-up, start) to the earliest of the end, the stop time and the completion (what arrives after a stop counts in `bytes_delivered`, not here). Each data segment counts once, when its first copy is received whole, in order or not ([how goodput is counted](#how-goodput-is-counted))"#,
        },
        Row {
            columns: &["bytes_delivered"],
            types: &[Type::U64],
            nullable: false,
            about: r#"bytes received after the warm-up, counted as for `goodput_bps`, to the end of the run"#,
        },
        Row {
            columns: &["packets_sent"],
            types: &[Type::U64],
            nullable: false,
            about: r#"data packets sent after the warm-up, retransmissions included"#,
        },
        Row { columns: &["retransmissions"], types: &[Type::U64], nullable: false, about: r#"data packets sent again, after the warm-up"# },
        Row { columns: &["timeouts"], types: &[Type::U64], nullable: false, about: r#"retransmission timeouts after the warm-up"# },
        Row { columns: &["loss_events"], types: &[Type::U64], nullable: false, about: r#"fast retransmits + timeouts after the warm-up"# },
        Row { columns: &["size_bytes"], types: &[Type::U64], nullable: true, about: r#"transfer size; null for bulk flows"# },
        Row {
            columns: &["completion_time_s"],
            types: &[Type::F64],
            nullable: true,
            about: r#"from start to the arrival of the last byte, s; null if bulk or unfinished"#,
        },
        Row {
            columns: &["mean_relative_drop"],
            types: &[Type::F64],
            nullable: true,
            about: r#"window oscillation (seed 000 §III-F): mean over loss events after the warm-up of the window law's decrease / srtt over the flow's rate Σ cwnd/srtt just before; 0.5 for Reno; null without loss events"#,
        },
    ],
};

/// `subflows.parquet`. One row per subflow.
pub const SUBFLOWS: Table = Table {
    name: "subflows",
    entity: Entity::Column("flow"),
    rows: &[
        Row {
            columns: &["flow", "subflow"],
            types: &[Type::String, Type::U32],
            nullable: false,
            about: r#"flow name, subflow number from 0"#,
        },
        Row { columns: &["path"], types: &[Type::String], nullable: false, about: r#"links crossed, joined by `>`"# },
        Row {
            columns: &["goodput_bps"],
            types: &[Type::F64],
            nullable: false,
            about: r#"bytes this subflow's receiver got within the flow's interval × 8 / its length, bit/s, each of its segments once, in order or not"#,
        },
        Row {
            columns: &["mean_cwnd_pkts"],
            types: &[Type::F64],
            nullable: true,
            about: r#"time-average congestion window after the warm-up, packets; null from ns-2, which does not measure it"#,
        },
        Row {
            columns: &["mean_srtt_s"],
            types: &[Type::F64],
            nullable: true,
            about: r#"mean of the smoothed RTT over the RTT samples after the warm-up, s; null from ns-2, which does not measure it"#,
        },
        Row {
            columns: &["min_rtt_s"],
            types: &[Type::F64],
            nullable: true,
            about: r#"smallest RTT measured, s; null from ns-2, which does not measure it"#,
        },
        Row {
            columns: &["packets_sent", "retransmissions", "fast_retransmits", "timeouts"],
            types: &[Type::U64],
            nullable: false,
            about: r#"counts after the warm-up"#,
        },
        Row {
            columns: &["duplicate_acks"],
            types: &[Type::U64],
            nullable: false,
            about: r#"duplicate ACKs the sender received after the warm-up (an ACK that moves nothing while data is out)"#,
        },
    ],
};

/// `links.parquet`. One row per link.
pub const LINKS: Table = Table {
    name: "links",
    entity: Entity::Column("link"),
    rows: &[
        Row { columns: &["link"], types: &[Type::String], nullable: false, about: r#"link name"# },
        Row { columns: &["rate_bps"], types: &[Type::F64], nullable: false, about: r#"capacity, bit/s"# },
        Row { columns: &["delay_s"], types: &[Type::F64], nullable: false, about: r#"one-way propagation delay, s"# },
        Row {
            columns: &["utilization"],
            types: &[Type::F64],
            nullable: false,
            about: r#"fraction of the time after the warm-up spent serializing (a packet in service at the warm-up counts for its part after it: never above 1)"#,
        },
        Row {
            columns: &["arrivals", "departures"],
            types: &[Type::U64],
            nullable: false,
            about: r#"packets reaching the link, packets fully serialized"#,
        },
        Row {
            columns: &["queue_drops"],
            types: &[Type::U64],
            nullable: false,
            about: r#"drops by the queue discipline (full buffer, RED, random zone)"#,
        },
        Row { columns: &["random_losses"], types: &[Type::U64], nullable: false, about: r#"drops by the link's exogenous random loss"# },
        Row { columns: &["down_drops"], types: &[Type::U64], nullable: false, about: r#"drops while the link was down"# },
        Row {
            columns: &["loss_rate"],
            types: &[Type::F64],
            nullable: false,
            about: r#"all drops / packets offered: arrivals after the warm-up plus the packets queued at its end (a link going down drops its queue; never above 1)"#,
        },
        Row {
            columns: &["mean_queue_pkts", "mean_queue_bytes"],
            types: &[Type::F64],
            nullable: false,
            about: r#"time-average queue (packet in service included), packets, bytes"#,
        },
        Row {
            columns: &["max_queue_pkts", "max_queue_bytes"],
            types: &[Type::U32, Type::U64],
            nullable: false,
            about: r#"largest queue after the warm-up"#,
        },
    ],
};

/// `metrics.parquet`. One row per (metric, group): the papers' metrics.
pub const METRICS: Table = Table {
    name: "metrics",
    entity: Entity::Metrics,
    rows: &[
        Row { columns: &["metric"], types: &[Type::String], nullable: false, about: r#"one of the metrics below"# },
        Row {
            columns: &["group"],
            types: &[Type::String],
            nullable: false,
            about: r#"the flows or links it is over (`all`, `mp`, `core`, `l2/l0`, `mp.1`)"#,
        },
        Row {
            columns: &["value"],
            types: &[Type::F64],
            nullable: true,
            about: r#"the value; null where it does not exist (no samples, a Jain index of flows that delivered nothing, a ratio over zero, a convergence not reached before the run ended)"#,
        },
        Row {
            columns: &["unit"],
            types: &[Type::String],
            nullable: false,
            about: r#"`s`, `bit/s`, `count`, or `1` for ratios and fractions"#,
        },
    ],
};

/// `timeseries.parquet`. One row per (sampling instant, subflow) when `sim.sample_interval` is set.
pub const TIMESERIES: Table = Table {
    name: "timeseries",
    entity: Entity::Samples,
    rows: &[
        Row { columns: &["time_s"], types: &[Type::F64], nullable: false, about: r#"sampling time, s"# },
        Row { columns: &["flow", "subflow"], types: &[Type::String, Type::U32], nullable: false, about: r#"which subflow"# },
        Row { columns: &["cwnd_pkts"], types: &[Type::F64], nullable: false, about: r#"congestion window, packets"# },
        Row { columns: &["srtt_s"], types: &[Type::F64], nullable: false, about: r#"smoothed RTT, s (0 before the first sample)"# },
        Row {
            columns: &["rate_bps"],
            types: &[Type::F64],
            nullable: false,
            about: r#"bytes acknowledged since the previous sample × 8 / interval, bit/s"#,
        },
        Row {
            columns: &["cc_state"],
            types: &[Type::F64],
            nullable: true,
            about: r#"the window law's internal state where it has one: LIA's alpha, SEMICOUPLED(φ)'s adaptive a, Balia's α_r, OLIA's α_r, RSF-DB's queueing delay q_r (s), RSF-LB's loss rate λ_r·l_r (pkt/s); null otherwise"#,
        },
    ],
};

/// `model.parquet`. Seed 004's AIMD model, one row.
pub const MODEL: Table = Table {
    name: "model",
    entity: Entity::Run,
    rows: &[
        Row { columns: &["policy"], types: &[Type::String], nullable: false, about: r#"loss policy"# },
        Row { columns: &["connections"], types: &[Type::U32], nullable: false, about: r#"N"# },
        Row { columns: &["capacity"], types: &[Type::F64], nullable: false, about: r#"c"# },
        Row { columns: &["events"], types: &[Type::U64], nullable: false, about: r#"events measured (taggings under beatdown)"# },
        Row { columns: &["time"], types: &[Type::F64], nullable: false, about: r#"measured time, in the unit of η"# },
        Row {
            columns: &["mean_aggregate"],
            types: &[Type::F64],
            nullable: false,
            about: r#"time-average aggregate rate E[X], capacity units"#,
        },
        Row { columns: &["utilization"], types: &[Type::F64], nullable: false, about: r#"E[X]/c"# },
        Row { columns: &["aggregate_second_moment"], types: &[Type::F64], nullable: false, about: r#"E[X²], capacity units squared"# },
        Row {
            columns: &["theorem1", "all_formula"],
            types: &[Type::F64],
            nullable: true,
            about: r#"the paper's E[X]/c under ONE (Theorem 1) and under ALL (eq. 6); null when the connections' η or β differ"#,
        },
    ],
};

/// `connections.parquet`. Seed 004's AIMD model, one row per connection.
pub const CONNECTIONS: Table = Table {
    name: "connections",
    entity: Entity::Column("group"),
    rows: &[
        Row { columns: &["connection", "group"], types: &[Type::U32, Type::String], nullable: false, about: r#"index from 0, group name"# },
        Row { columns: &["eta", "beta", "weight"], types: &[Type::F64], nullable: false, about: r#"its parameters"# },
        Row { columns: &["mean_rate"], types: &[Type::F64], nullable: false, about: r#"time-average rate, capacity units"# },
        Row { columns: &["share"], types: &[Type::F64], nullable: false, about: r#"mean_rate / mean_aggregate"# },
        Row {
            columns: &["second_moment", "second_moment_normalized"],
            types: &[Type::F64],
            nullable: false,
            about: r#"E[x²] (capacity units squared), and ÷ c²"#,
        },
        Row {
            columns: &["signals"],
            types: &[Type::U64],
            nullable: false,
            about: r#"congestion indications received (taggings under beatdown)"#,
        },
    ],
};

/// A column of the fluid model's tables: its name, type and what it holds.
const fn fluid(columns: &'static [&'static str], types: &'static [Type], nullable: bool, about: &'static str) -> Row {
    Row { columns, types, nullable, about }
}

/// The fluid model's `flows.parquet`.
pub const FLUID_FLOWS: Table = Table {
    name: "flows",
    entity: Entity::Column("flow"),
    rows: &[
        fluid(&["flow", "algorithm"], &[Type::String], false, "flow name, window law"),
        fluid(&["subflows"], &[Type::U32], false, "number of subflows"),
        fluid(&["goodput_bps"], &[Type::F64], false, "delivered, Σ x_r(1 − p_r), bit/s"),
        fluid(&["rate_pps"], &[Type::F64], false, "sent, packets/s"),
        fluid(&["unique"], &[Type::Bool], true, "whether the two solves agree; null: not decided"),
    ],
};

/// The fluid model's `subflows.parquet`.
pub const FLUID_SUBFLOWS: Table = Table {
    name: "subflows",
    entity: Entity::Column("flow"),
    rows: &[
        fluid(&["flow", "subflow"], &[Type::String, Type::U32], false, "flow name, subflow number from 0"),
        fluid(&["path"], &[Type::String], false, "links crossed"),
        fluid(&["goodput_bps"], &[Type::F64], false, "delivered, bit/s"),
        fluid(&["mean_cwnd_pkts"], &[Type::F64], false, "the equilibrium window, packets"),
        fluid(&["mean_srtt_s"], &[Type::F64], false, "its RTT, queueing included, s"),
        fluid(&["path_loss"], &[Type::F64], false, "the path's loss probability"),
    ],
};

/// The fluid model's `links.parquet`.
pub const FLUID_LINKS: Table = Table {
    name: "links",
    entity: Entity::Column("link"),
    rows: &[
        fluid(&["link"], &[Type::String], false, "link name"),
        fluid(&["rate_bps", "delay_s"], &[Type::F64], false, "capacity, bit/s; propagation delay, s"),
        fluid(&["utilization"], &[Type::F64], false, "load ÷ capacity"),
        fluid(&["loss_rate", "congestion_loss"], &[Type::F64], false, "exogenous and congestion loss; congestion loss alone (the price)"),
        fluid(&["load_pps"], &[Type::F64], false, "packets/s offered"),
        fluid(&["mean_queue_pkts"], &[Type::F64], false, "the standing queue, packets"),
    ],
};

/// The fluid model's `timeseries.parquet`.
pub const FLUID_TIMESERIES: Table = Table {
    name: "timeseries",
    entity: Entity::Samples,
    rows: &[
        fluid(&["time_s"], &[Type::F64], false, "time, s"),
        fluid(&["flow", "subflow"], &[Type::String, Type::U32], false, "which subflow"),
        fluid(&["cwnd_pkts", "srtt_s"], &[Type::F64], false, "window, packets; RTT, s"),
        fluid(&["send_rate_bps"], &[Type::F64], false, "w/τ: sent, bit/s"),
    ],
};
