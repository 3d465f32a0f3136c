//! The reliability scenarios in their long form (CI runs the short forms as
//! `cargo test --test reliability`). Each one prints its report and the
//! command exits with 1 if any scenario found a failure.
//!
//! ```sh
//! cargo build --release -p arbiter-server     # the arbiterd the scenarios start
//! cargo run --release -p arbiter-e2e --example reliability -- crash      # >= 20 kill -9 under load
//! cargo run --release -p arbiter-e2e --example reliability -- replicas   # 3 replicas on PostgreSQL, one killed
//! cargo run --release -p arbiter-e2e --example reliability -- faults     # PostgreSQL cut off, disk full
//! cargo run --release -p arbiter-e2e --example reliability -- fuzz       # 10 minutes of malformed requests
//! cargo run --release -p arbiter-e2e --example reliability -- soak       # 30 minutes of steady load
//! cargo run --release -p arbiter-e2e --example reliability -- hostile    # 2,000 idle connections beside games
//! cargo run --release -p arbiter-e2e --example reliability -- all
//! # Knobs: --games N --seed N --seconds N (fuzz, soak; hostile: per round) --kills N (crash)
//! #        --cycles N (faults) --workers N (fuzz) --connections N (hostile) --short (the CI form)
//! ```

use arbiter_e2e::reliability::{crash, faults, fuzz, hostile, replicas, soak};

const USAGE: &str = "usage: reliability crash|replicas|faults|fuzz|soak|hostile|all [--short] [--games N] \
                     [--seed N] [--seconds N] [--kills N] [--cycles N] [--workers N] [--connections N]";

/// The knobs given on the command line.
#[derive(Default)]
struct Knobs {
    short: bool,
    games: Option<usize>,
    seed: Option<u64>,
    seconds: Option<u64>,
    kills: Option<usize>,
    cycles: Option<usize>,
    workers: Option<usize>,
    connections: Option<usize>,
}

fn parse(argv: &[String]) -> Result<(Vec<String>, Knobs), String> {
    let mut scenarios = Vec::new();
    let mut knobs = Knobs::default();
    let mut i = 0;
    while i < argv.len() {
        let flag = argv[i].as_str();
        if flag == "--short" {
            knobs.short = true;
            i += 1;
            continue;
        }
        if !flag.starts_with("--") {
            scenarios.push(flag.to_string());
            i += 1;
            continue;
        }
        let value = argv
            .get(i + 1)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("{flag} needs a number"))?;
        match flag {
            "--games" => knobs.games = Some(value as usize),
            "--seed" => knobs.seed = Some(value),
            "--seconds" => knobs.seconds = Some(value),
            "--kills" => knobs.kills = Some(value as usize),
            "--cycles" => knobs.cycles = Some(value as usize),
            "--workers" => knobs.workers = Some(value as usize),
            "--connections" => knobs.connections = Some(value as usize),
            other => return Err(format!("unknown option {other}")),
        }
        i += 2;
    }
    if scenarios.is_empty() {
        return Err("name a scenario".into());
    }
    if scenarios.iter().any(|s| s == "all") {
        scenarios = ["crash", "replicas", "faults", "fuzz", "soak", "hostile"].map(String::from).to_vec();
    }
    Ok((scenarios, knobs))
}

/// Runs one scenario; returns whether it passed.
async fn run(name: &str, k: &Knobs) -> Result<bool, String> {
    macro_rules! scenario {
        ($module:ident, |$o:ident| $adjust:block) => {{
            let mut $o = if k.short { $module::Options::short() } else { $module::Options::long() };
            if let Some(g) = k.games {
                $o.games = g;
            }
            if let Some(s) = k.seed {
                $o.seed = s;
            }
            $adjust
            let report = $module::run(&$o).await;
            println!("== {name}\n{report}");
            report.failures.is_empty()
        }};
    }
    Ok(match name {
        "crash" => scenario!(crash, |o| {
            if let Some(n) = k.kills {
                o.kills = n;
            }
        }),
        "replicas" => scenario!(replicas, |o| {}),
        "faults" => scenario!(faults, |o| {
            if let Some(n) = k.cycles {
                o.cycles = n;
            }
        }),
        "fuzz" => scenario!(fuzz, |o| {
            if let Some(s) = k.seconds {
                o.seconds = s;
            }
            if let Some(w) = k.workers {
                o.workers = w;
            }
        }),
        "soak" => scenario!(soak, |o| {
            if let Some(s) = k.seconds {
                o.seconds = s;
            }
        }),
        "hostile" => scenario!(hostile, |o| {
            if let Some(n) = k.connections {
                o.idle_connections = n;
            }
            if let Some(s) = k.seconds {
                o.round = std::time::Duration::from_secs(s);
            }
        }),
        other => return Err(format!("unknown scenario {other}")),
    })
}

#[tokio::main]
async fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (scenarios, knobs) = parse(&argv).unwrap_or_else(|e| {
        eprintln!("{e}\n{USAGE}");
        std::process::exit(2);
    });
    let mut failed = Vec::new();
    for name in &scenarios {
        match run(name, &knobs).await {
            Ok(true) => {}
            Ok(false) => failed.push(name.clone()),
            Err(e) => {
                eprintln!("{e}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
    if failed.is_empty() {
        println!("all passed: {}", scenarios.join(", "));
    } else {
        println!("FAILED: {}", failed.join(", "));
        std::process::exit(1);
    }
}
