//! Load generator: N concurrent online games, each playing random legal
//! moves with its players' tokens, against a real server on loopback; next
//! to it, the gRPC health check (a handler that does nothing) measured the
//! same way as the ceiling; and games left to flag under load, to measure
//! how late flag rulings are recorded.
//!
//! ```sh
//! # 1,000 games offering 5,000 moves per second in all (each game moves
//! # every 200 ms); latency counts from when each move was due, so a server
//! # that falls behind shows it.
//! cargo run --release -p arbiter-e2e --example load -- --games 1000 --rate 5000 --seconds 20
//! # Capacity: every game moves again as soon as it is answered.
//! cargo run --release -p arbiter-e2e --example load -- --games 1000 --rate 0 --seconds 20
//! # The same with answers without the record (GAME_VIEW_BASIC), as a
//! # platform that keeps the record itself would ask.
//! cargo run --release -p arbiter-e2e --example load -- --games 1000 --rate 0 --seconds 20 --basic
//! ```
//!
//! The move phase starts with every game being created at once, a burst of
//! a thousand creations the moves of that first second wait behind; the
//! figures are of the `--seconds` after a warm-up (`--warmup-seconds`,
//! default 2), when every game is playing. The warm-up's own moves are
//! reported on a line of their own.
//!
//! By default it starts the server in this process on a temporary SQLite
//! file (synchronous=FULL, so every acknowledged move is on disk). With
//! `--daemon` it runs `arbiterd` as a child process instead (as shipped: its
//! own allocator, its own process), on such a file: `$ARBITERD`, or the one
//! built beside this example (`cargo build --release -p arbiter-server`).
//!
//! Replicas (issue 18, point 3): `--replicas 1,3` runs the whole measure
//! once per count, one after the other in the same run, each time with that
//! many `arbiterd` on a fresh schema of the same PostgreSQL server
//! (`$ARBITER_TEST_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`);
//! the clients' connections are spread over the replicas, each game is
//! created on one and its moves go to the same one (a platform whose
//! load balancer keeps a game's calls together). With `--spread` each move
//! goes to the next replica instead, so two in three are forwarded to the
//! replica that runs the game.
//!
//! ```sh
//! cargo build --release -p arbiter-server --bin arbiterd
//! cargo run --release -p arbiter-e2e --example load -- --replicas 1,3 --games 300 --rate 0 --seconds 15
//! ```
//!
//! On a machine with fewer cores than the replicas would have in a real
//! deployment, `--replica-cpu FRACTION` gives each replica a CPU quota of
//! its own (a fraction of one core, through a cgroup of Linux's `cpu`
//! controller, v1 or v2; it must run as root): replicas on small machines
//! of their own, simulated, with PostgreSQL and the load generator left
//! unlimited. It fails with an error where no cgroup can be made, rather
//! than measure without the limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arbiter_chess::{Color, Position};
use arbiter_e2e::reliability::replicas::Schema;
use arbiter_e2e::{ARBITER_TOKEN, TestServer, new_game, regulations, v1 as pb};
use tonic::transport::Channel;

struct Args {
    games: usize,
    /// Moves per second offered in all; 0 for a closed loop.
    rate: u64,
    seconds: u64,
    /// Seconds of the move phase before the measured ones.
    warmup_seconds: u64,
    connections: usize,
    flag_games: usize,
    daemon: bool,
    /// Replica counts on PostgreSQL, measured one after the other (empty:
    /// one server on SQLite).
    replicas: Vec<usize>,
    spread: bool,
    /// A CPU quota for each replica, in cores.
    replica_cpu: Option<f64>,
    /// MakeMove asks for GAME_VIEW_BASIC: answers without the record.
    basic: bool,
}

fn args() -> Args {
    let mut a = Args {
        games: 1000,
        rate: 5000,
        seconds: 20,
        warmup_seconds: 2,
        connections: 8,
        flag_games: 200,
        daemon: false,
        replicas: Vec::new(),
        spread: false,
        replica_cpu: None,
        basic: false,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        if argv[i] == "--daemon" {
            a.daemon = true;
            i += 1;
            continue;
        }
        if argv[i] == "--spread" {
            a.spread = true;
            i += 1;
            continue;
        }
        if argv[i] == "--basic" {
            a.basic = true;
            i += 1;
            continue;
        }
        if argv[i] == "--replicas" {
            let counts: Option<Vec<usize>> = argv
                .get(i + 1)
                .map(|v| v.split(',').map(|n| n.trim().parse::<usize>().ok().filter(|&n| n > 0)).collect())
                .and_then(|c: Option<Vec<usize>>| c.filter(|c| !c.is_empty()));
            match counts {
                Some(c) => a.replicas = c,
                None => {
                    eprintln!("--replicas takes a list of replica counts, such as 1,3");
                    std::process::exit(2);
                }
            }
            i += 2;
            continue;
        }
        if argv[i] == "--replica-cpu" {
            match argv.get(i + 1).and_then(|v| v.parse::<f64>().ok()).filter(|f| (0.1..=64.0).contains(f)) {
                Some(f) => a.replica_cpu = Some(f),
                None => {
                    eprintln!("--replica-cpu takes cores from 0.1 to 64, such as 0.25");
                    std::process::exit(2);
                }
            }
            i += 2;
            continue;
        }
        let value = argv.get(i + 1).and_then(|v| v.parse::<u64>().ok());
        match (argv[i].as_str(), value) {
            ("--games", Some(v)) => a.games = v as usize,
            ("--seconds", Some(v)) => a.seconds = v,
            ("--warmup-seconds", Some(v)) => a.warmup_seconds = v,
            ("--rate", Some(v)) => a.rate = v,
            ("--connections", Some(v)) => a.connections = v.max(1) as usize,
            ("--flag-games", Some(v)) => a.flag_games = v as usize,
            (other, _) => {
                eprintln!("unknown or incomplete argument {other}");
                eprintln!(
                    "usage: load [--games N] [--rate MOVES_PER_S] [--seconds S] [--warmup-seconds W] [--connections C] \
                     [--flag-games F] [--basic] [--daemon | --replicas COUNT,... [--spread] [--replica-cpu CORES]]"
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    if a.replica_cpu.is_some() && a.replicas.is_empty() {
        eprintln!("--replica-cpu limits replicas: give --replicas too");
        std::process::exit(2);
    }
    a
}

/// A CPU quota for a group of processes: a cgroup of Linux's `cpu`
/// controller (v2's `cpu.max`, or v1's `cpu.cfs_quota_us`), removed when
/// dropped (after its processes have ended).
struct CpuLimit {
    dir: std::path::PathBuf,
}

impl CpuLimit {
    /// The period of the quota: short, so that a replica over its quota
    /// waits milliseconds, not the 100 ms of the default period.
    const PERIOD_US: u64 = 10_000;

    /// A new cgroup named `name` limited to `cores` of CPU.
    ///
    /// # Errors
    /// Where no `cpu` controller is mounted or the cgroup cannot be made
    /// or set (not root, a read-only `/sys/fs/cgroup`).
    fn new(name: &str, cores: f64) -> Result<CpuLimit, String> {
        // At least 1 ms a period, the least v1 accepts (0.1 of a core).
        let quota = ((cores * Self::PERIOD_US as f64).round() as u64).max(1000);
        let root = std::path::Path::new("/sys/fs/cgroup");
        let v2 = std::fs::read_to_string(root.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|k| k == "cpu"));
        let (base, files): (std::path::PathBuf, Vec<(&str, String)>) = if v2 {
            // The controller must be enabled for the children of the root.
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+cpu");
            (root.to_path_buf(), vec![("cpu.max", format!("{quota} {}", Self::PERIOD_US))])
        } else {
            let base = ["cpu", "cpu,cpuacct"]
                .iter()
                .map(|d| root.join(d))
                .find(|d| d.join("cpu.cfs_quota_us").is_file())
                .ok_or("no cgroup cpu controller under /sys/fs/cgroup (v1 or v2)")?;
            (
                base,
                vec![
                    ("cpu.cfs_period_us", Self::PERIOD_US.to_string()),
                    ("cpu.cfs_quota_us", quota.to_string()),
                ],
            )
        };
        let dir = base.join(name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let limit = CpuLimit { dir };
        for (file, value) in files {
            let path = limit.dir.join(file);
            std::fs::write(&path, &value).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(limit)
    }

    /// Moves process `pid`, every thread of it, into the group.
    ///
    /// # Errors
    /// Where the kernel refuses the move.
    fn add(&self, pid: u32) -> Result<(), String> {
        let path = self.dir.join("cgroup.procs");
        std::fs::write(&path, pid.to_string()).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Drop for CpuLimit {
    fn drop(&mut self) {
        // The processes may take a moment to leave the group after their
        // end.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("could not remove the cgroup {}", self.dir.display());
    }
}

/// A small deterministic generator (xorshift64*), enough to pick moves.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

fn report(name: &str, latencies_us: &mut [u32], seconds: f64) {
    latencies_us.sort_unstable();
    println!(
        "{name:<28} {:>9.0} /s   p50 {:>6.2} ms   p90 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   (n = {})",
        latencies_us.len() as f64 / seconds,
        percentile(latencies_us, 0.50),
        percentile(latencies_us, 0.90),
        percentile(latencies_us, 0.99),
        percentile(latencies_us, 1.0),
        latencies_us.len()
    );
}

fn client(channel: Channel, token: &str) -> arbiter_e2e::Client {
    let bearer = arbiter_e2e::Bearer::new(token);
    arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::with_interceptor(channel, bearer)
}

async fn connect(url: &str, n: usize) -> Vec<Channel> {
    let mut channels = Vec::with_capacity(n);
    for _ in 0..n {
        channels.push(Channel::from_shared(url.to_owned()).expect("url").connect().await.expect("connect"));
    }
    channels
}

/// The server under load: in this process, `arbiterd` as a child, or
/// several `arbiterd` on one PostgreSQL schema.
enum Server {
    InProcess(TestServer),
    Daemon {
        daemon: arbiter_e2e::daemon::Daemon,
        _dir: tempfile::TempDir,
    },
    Replicas {
        daemons: Vec<arbiter_e2e::daemon::Daemon>,
        schema: Schema,
        _dir: tempfile::TempDir,
        /// The CPU quota of each replica, if limited (dropped after the
        /// daemons end).
        limits: Vec<CpuLimit>,
        cpu: Option<f64>,
    },
}

impl Server {
    async fn replicas(n: usize, cpu: Option<f64>) -> Server {
        let schema = Schema::create().await.unwrap_or_else(|e| panic!("PostgreSQL: {e}"));
        let dir = tempfile::tempdir().expect("temporary directory");
        let limits =
            ["--create-rate", "100000", "--create-burst", "100000", "--max-unfinished-games", "1000000"];
        // (Declared first, so dropped after the daemons: a group is
        // removed once its process has ended.)
        let mut cpu_limits = Vec::new();
        let mut daemons = Vec::new();
        for i in 0..n {
            let log = dir.path().join(format!("replica-{i}.log"));
            let daemon = arbiter_e2e::daemon::Daemon::spawn(&schema.url(), &log, &limits);
            if let Some(cores) = cpu {
                // Limited from its start: its threads, made later, stay in
                // the group.
                let limit = CpuLimit::new(&format!("arbiter-load-{}-{i}", std::process::id()), cores)
                    .and_then(|l| l.add(daemon.pid()).map(|()| l))
                    // A panic, not an exit: the daemons started so far
                    // are dropped (killed) as it unwinds.
                    .unwrap_or_else(|e| panic!("--replica-cpu: {e}"));
                cpu_limits.push(limit);
            }
            arbiter_e2e::reliability::play::wait_serving(&daemon, Duration::from_secs(30))
                .await
                .unwrap_or_else(|e| panic!("replica {i}: {e}"));
            daemons.push(daemon);
        }
        Server::Replicas { daemons, schema, _dir: dir, limits: cpu_limits, cpu }
    }

    /// The processes of the service (not this one): the daemons, and with
    /// PostgreSQL every `postgres` process of the machine.
    fn processes(&self) -> Vec<(&'static str, u32)> {
        let mut pids = Vec::new();
        match self {
            Server::InProcess(_) => {}
            Server::Daemon { daemon, .. } => pids.push(("arbiterd", daemon.pid())),
            Server::Replicas { daemons, .. } => {
                pids.extend(daemons.iter().map(|d| ("arbiterd", d.pid())));
                if let Ok(entries) = std::fs::read_dir("/proc") {
                    for entry in entries.flatten() {
                        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                            continue;
                        };
                        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
                        if comm.trim() == "postgres" {
                            pids.push(("postgres", pid));
                        }
                    }
                }
            }
        }
        pids
    }

    fn urls(&self) -> Vec<String> {
        match self {
            Server::Replicas { daemons, .. } => {
                daemons.iter().map(arbiter_e2e::daemon::Daemon::url).collect()
            }
            _ => vec![self.url()],
        }
    }

    async fn start(daemon: bool) -> Server {
        if !daemon {
            return Server::InProcess(TestServer::start().await);
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
        let limits =
            ["--create-rate", "100000", "--create-burst", "100000", "--max-unfinished-games", "1000000"];
        let daemon = arbiter_e2e::daemon::Daemon::spawn(&url, &dir.path().join("arbiterd.log"), &limits);
        Server::Daemon { daemon, _dir: dir }
    }

    fn url(&self) -> String {
        match self {
            Server::InProcess(server) => server.url(),
            Server::Daemon { daemon, .. } => daemon.url(),
            Server::Replicas { daemons, .. } => daemons[0].url(),
        }
    }

    fn describe(&self) -> String {
        match self {
            Server::InProcess(server) => {
                format!("server in this process on {} (SQLite, synchronous=FULL)", server.addr)
            }
            Server::Daemon { daemon, .. } => {
                format!(
                    "arbiterd {} on {} (SQLite, synchronous=FULL)",
                    arbiter_e2e::daemon::arbiterd_path().display(),
                    daemon.addr
                )
            }
            Server::Replicas { daemons, cpu, .. } => format!(
                "{} arbiterd ({}) on one PostgreSQL schema{}",
                daemons.len(),
                arbiter_e2e::daemon::arbiterd_path().display(),
                cpu.map(|c| format!(", each limited to {c} of a core")).unwrap_or_default()
            ),
        }
    }

    async fn stop(self) {
        match self {
            Server::InProcess(server) => {
                server.stop().await;
            }
            Server::Daemon { daemon, .. } => {
                daemon.terminate();
            }
            Server::Replicas { daemons, schema, limits, .. } => {
                for daemon in daemons {
                    daemon.terminate();
                }
                drop(limits);
                if let Err(e) = schema.drop_now().await {
                    eprintln!("dropping the schema: {e}");
                }
            }
        }
    }
}

/// Creates and starts an online game; returns its name and the players'
/// tokens.
async fn start_game(arbiter: &mut arbiter_e2e::Client, tc: &str) -> (String, [String; 2]) {
    let created = arbiter
        .create_game(new_game(regulations(tc, pb::Mode::Online), true))
        .await
        .expect("create game")
        .into_inner();
    let name = created.game.expect("game").name;
    (name, [created.white_token, created.black_token])
}

/// CPU seconds (user and system) process `pid` has used, from
/// `/proc/PID/stat` (0 if it is gone).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which may hold spaces), from the
    // third: utime and stime are the 14th and 15th.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    // USER_HZ is 100 on Linux.
    ticks as f64 / 100.0
}

/// CPU seconds used by each kind of process of `pids`.
fn cpu_by_kind(pids: &[(&'static str, u32)]) -> Vec<(&'static str, f64)> {
    let mut kinds: Vec<(&'static str, f64)> = Vec::new();
    for &(kind, pid) in pids {
        let used = cpu_seconds(pid);
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, total)) => *total += used,
            None => kinds.push((kind, used)),
        }
    }
    kinds
}

/// What one measure found: moves and no-op calls a second.
struct Rates {
    noop: f64,
    moves: f64,
}

#[tokio::main]
async fn main() {
    let a = args();
    if a.replicas.is_empty() {
        let server = Server::start(a.daemon).await;
        measure(&a, server).await;
        return;
    }
    let mut rates = Vec::new();
    for &n in &a.replicas {
        let server = Server::replicas(n, a.replica_cpu).await;
        rates.push((n, measure(&a, server).await));
    }
    println!(
        "summary ({}{}):",
        if a.spread { "each move to the next replica" } else { "each game on one replica" },
        a.replica_cpu.map(|c| format!(", each replica limited to {c} of a core")).unwrap_or_default()
    );
    let base = rates.first().map_or(1.0, |(_, r)| r.moves.max(f64::MIN_POSITIVE));
    for (n, r) in &rates {
        println!(
            "  {n} replica(s): {:.0} moves/s (x{:.2} of {} replica(s)), x{:.3} of the no-op rate {:.0}/s",
            r.moves,
            r.moves / base,
            rates[0].0,
            r.moves / r.noop.max(f64::MIN_POSITIVE),
            r.noop
        );
    }
}

async fn measure(a: &Args, server: Server) -> Rates {
    println!(
        "{}; {} games, {} connections, {} s per phase, {}, answers {}",
        server.describe(),
        a.games,
        a.connections,
        a.seconds,
        if a.rate > 0 { format!("{} moves/s offered", a.rate) } else { "closed loop".to_string() },
        if a.basic { "without the record (GAME_VIEW_BASIC)" } else { "with the record (the full game)" }
    );
    // The connections are spread over the servers.
    let urls = server.urls();
    let mut channels = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let share = a.connections / urls.len() + usize::from(i < a.connections % urls.len());
        channels.extend(connect(url, share.max(1)).await);
    }
    let spread = a.spread && channels.len() > 1;

    // The ceiling: the health check, same connections, same concurrency.
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for i in 0..a.games {
        let channel = channels[i % channels.len()].clone();
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
            let mut lat = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                health
                    .check(tonic_health::pb::HealthCheckRequest { service: String::new() })
                    .await
                    .expect("health");
                lat.push(t.elapsed().as_micros() as u32);
            }
            lat
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(a.seconds.min(10))).await;
    stop.store(true, Ordering::Relaxed);
    let mut lat = Vec::new();
    for t in tasks {
        lat.extend(t.await.expect("task"));
    }
    let noop = lat.len() as f64 / started.elapsed().as_secs_f64();
    report("no-op gRPC (health check)", &mut lat, started.elapsed().as_secs_f64());

    // Games that will flag during the move phase: White's clock is set to
    // run out at spread-out instants while the load runs.
    let mut arbiter = client(channels[0].clone(), ARBITER_TOKEN);
    let mut flag_names = Vec::new();
    for i in 0..a.flag_games {
        let mut arbiter = client(channels[i % channels.len()].clone(), ARBITER_TOKEN);
        let (name, _) = start_game(&mut arbiter, "3600").await;
        flag_names.push(name);
    }
    let window_ms = ((a.warmup_seconds + a.seconds) * 1000).saturating_sub(2000).max(1000) as i64;
    for (i, name) in flag_names.iter().enumerate() {
        let remaining_ms = 1000 + window_ms * i as i64 / a.flag_games.max(1) as i64;
        arbiter
            .set_clock(pb::SetClockRequest {
                name: name.clone(),
                color: pb::Color::White as i32,
                remaining_ms,
                ..Default::default()
            })
            .await
            .expect("set clock");
    }

    // The move phase.
    let interval = (a.rate > 0).then(|| Duration::from_secs_f64(a.games as f64 / a.rate as f64));
    let phase_start = tokio::time::Instant::now() + Duration::from_millis(200);
    // Moves sent from then on are the measured ones.
    let measured_from = phase_start + Duration::from_secs(a.warmup_seconds);
    let stop = Arc::new(AtomicBool::new(false));
    let games_finished = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for i in 0..a.games {
        let channel = channels[i % channels.len()].clone();
        let all = channels.clone();
        let stop = stop.clone();
        let finished = games_finished.clone();
        let games = a.games;
        let view = if a.basic { pb::GameView::Basic } else { pb::GameView::Unspecified } as i32;
        tasks.push(tokio::spawn(async move {
            let mut arbiter = client(channel.clone(), ARBITER_TOKEN);
            // Paced: game i's moves are due at phase_start + i/games of the
            // interval, then every interval.
            let mut due = interval.map(|iv| phase_start + iv.mul_f64(i as f64 / games as f64));
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1).wrapping_mul(0x1000_0000_01b3));
            // Latencies of the warm-up's moves, then of the measured ones.
            let (mut warmup, mut lat) = (Vec::new(), Vec::new());
            'games: while !stop.load(Ordering::Relaxed) {
                let (name, tokens) = start_game(&mut arbiter, "90+30").await;
                let mut players = tokens.clone().map(|t| client(channel.clone(), &t));
                let mut ply = 0usize;
                let mut pos = Position::startpos();
                while !stop.load(Ordering::Relaxed) {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        finished.fetch_add(1, Ordering::Relaxed);
                        continue 'games;
                    }
                    let m = moves[(rng.next() % moves.len() as u64) as usize];
                    let side = usize::from(pos.turn() == Color::Black);
                    let t = match (due, interval) {
                        (Some(d), Some(iv)) => {
                            tokio::time::sleep_until(d).await;
                            due = Some(d + iv);
                            d.into_std()
                        }
                        _ => Instant::now(),
                    };
                    if spread {
                        // The next replica after the previous move's.
                        ply += 1;
                        let next = all[(i + ply) % all.len()].clone();
                        players = tokens.clone().map(|t| client(next.clone(), &t));
                    }
                    let reply = players[side]
                        .make_move(pb::MakeMoveRequest {
                            name: name.clone(),
                            r#move: pos.uci(m).to_string(),
                            view,
                            ..Default::default()
                        })
                        .await;
                    let latency = t.elapsed().as_micros() as u32;
                    if t < measured_from.into_std() {
                        warmup.push(latency)
                    } else {
                        lat.push(latency)
                    }
                    let game = reply.expect("move accepted").into_inner().game.expect("game");
                    if game.status == pb::GameStatus::Finished as i32 {
                        finished.fetch_add(1, Ordering::Relaxed);
                        continue 'games;
                    }
                    pos = pos.after(m);
                }
            }
            (warmup, lat)
        }));
    }
    let mut processes = server.processes();
    // This process: the clients (and the server, when it runs in here).
    let here =
        if matches!(server, Server::InProcess(_)) { "load generator and server" } else { "load generator" };
    processes.push((here, std::process::id()));
    tokio::time::sleep_until(measured_from).await;
    let cpu_before = cpu_by_kind(&processes);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(a.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let cpu_after = cpu_by_kind(&processes);
    let (mut warmup, mut lat) = (Vec::new(), Vec::new());
    for t in tasks {
        let (w, l) = t.await.expect("task");
        warmup.extend(w);
        lat.extend(l);
    }
    let seconds = started.elapsed().as_secs_f64();
    if a.warmup_seconds > 0 {
        report("MakeMove, warm-up (left out)", &mut warmup, a.warmup_seconds as f64);
    }
    let moves = lat.len() as f64 / seconds;
    let count = lat.len().max(1) as f64;
    report("MakeMove (durable)", &mut lat, seconds);
    // Where the machine's time went, per move acknowledged: with the
    // replicas on machines of their own, the database's share bounds the
    // service.
    for ((kind, after), (_, before)) in cpu_after.iter().zip(&cpu_before) {
        println!(
            "  CPU of {kind}: {:.0} µs per move ({:.2} cores)",
            (after - before) * 1e6 / count,
            (after - before) / seconds
        );
    }
    println!("games finished and replaced during the run: {}", games_finished.load(Ordering::Relaxed));

    // Flags: how late each ruling was recorded, from the game's own log
    // (the SetClock instant plus the time set is the deadline).
    let mut late = Vec::new();
    let mut missing = 0;
    for name in &flag_names {
        let events = arbiter
            .list_game_events(pb::ListGameEventsRequest {
                parent: name.clone(),
                page_size: 100,
                ..Default::default()
            })
            .await
            .expect("events")
            .into_inner()
            .events;
        let set = events.iter().find(|e| e.act == "SET_CLOCK");
        let flag =
            events.iter().find(|e| e.actor == "timer" && e.rulings.iter().any(|r| r.decision == "GAME_OVER"));
        match (set, flag) {
            (Some(set), Some(flag)) => {
                let remaining: i64 =
                    set.details.get("remaining_ms").and_then(|v| v.parse().ok()).unwrap_or(0);
                let deadline = set.game_time_ms + remaining;
                let record_lateness_ms = flag.game_time_ms - deadline;
                late.push((record_lateness_ms.max(0) * 1000) as u32);
            }
            _ => missing += 1,
        }
    }
    report("flag rulings: lateness", &mut late, 1.0);
    println!("flag games without a flag ruling: {missing}");
    if let Some(text) = arbiter_server::metrics_text() {
        for line in text.lines().filter(|l| l.starts_with("arbiter_deadline_lateness_seconds")) {
            println!("  {line}");
        }
    }
    server.stop().await;
    Rates { noop, moves }
}
