//! The `arbiterd` binary and its secrets: the first-start token file (0600,
//! never through a symlink, an existing file replaced by a private one),
//! private data files, role tokens listed and revoked from the command
//! line with the server flags after the subcommand, tokens from a file,
//! a warning for a token on the command line, weak tokens refused naming
//! their flag, and the key subcommands.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const STRONG: &str = "binary-test-token-7Fq2Lx9Wm4Rt8Kz3Vb6N";

fn arbiterd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbiterd"));
    // Nothing from the environment of the test run leaks in.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("ARBITER_") {
            c.env_remove(&name);
        }
    }
    c.env("RUST_LOG", "info");
    c
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o777
}

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("arbiter.db").display())
}

/// `arbiterd` serving in `dir` with `args` added; returns once it listens,
/// with everything it printed so far.
fn serve(dir: &Path, args: &[&str]) -> (Child, String) {
    let mut child = arbiterd()
        .current_dir(dir)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "off",
            "--http-listen",
            "off",
            "--database-url",
            &db_url(dir),
        ])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn arbiterd");
    let seen = started(&mut child);
    (child, seen)
}

/// What a starting daemon printed, standard output (its addresses) and
/// standard error (its logs) together, up to its `tokens: ` line and the
/// log lines that come with it.
fn started(child: &mut Child) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = out.send(line);
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = String::new();
    let mut ready = false;
    loop {
        let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            if ready {
                return seen;
            }
            let _ = child.kill();
            let _ = child.wait();
            panic!("arbiterd did not start: {seen}");
        };
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("tokens: ") && !ready {
            // The logs come on another pipe: let those written before it arrive.
            ready = true;
            deadline = Instant::now() + Duration::from_millis(300);
        }
    }
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn run(dir: &Path, args: &[&str]) -> Output {
    arbiterd().current_dir(dir).args(args).output().expect("run arbiterd")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_first_start_writes_private_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let (child, out) = serve(dir.path(), &[]);
    assert!(out.contains("first-start tokens written to"), "{out}");
    // The journal appears once the server proper opens the database.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !dir.path().join("arbiter.db-shm").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for file in ["arbiter.db", "arbiter.db-wal", "arbiter.db-shm", "arbiter.db.keys", "arbiterd-tokens.txt"] {
        assert_eq!(mode(&dir.path().join(file)), 0o600, "{file}");
    }
    stop(child);
    let tokens = std::fs::read_to_string(dir.path().join("arbiterd-tokens.txt")).unwrap();
    assert!(tokens.contains("arbiter=arb_") && tokens.contains("service=arb_"), "{tokens}");
}

#[test]
fn an_existing_token_file_is_replaced_by_a_private_one_and_a_symlink_is_refused() {
    // A readable file prepared beforehand: replaced, mode 0600.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("arbiterd-tokens.txt");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (child, _) = serve(dir.path(), &[]);
    stop(child);
    assert_eq!(mode(&file), 0o600);
    assert!(std::fs::read_to_string(&file).unwrap().contains("arbiter=arb_"));

    // A symlink: never written through; the start fails and says why.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.txt");
    std::fs::write(&target, "untouched").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("arbiterd-tokens.txt")).unwrap();
    let o = run(
        dir.path(),
        &[
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "off",
            "--http-listen",
            "off",
            "--database-url",
            &db_url(dir.path()),
        ],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("symbolic link"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
}

#[test]
fn role_tokens_are_listed_and_revoked_with_the_flags_after_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    let issued = run(
        dir.path(),
        &["token", "issue", "--role", "viewer", "--label", "scoreboard", "--database-url", &url],
    );
    assert!(issued.status.success(), "{}", text(&issued));
    let token = String::from_utf8(issued.stdout).unwrap().trim().to_string();
    let id = token.strip_prefix("arb_").unwrap().split('_').next().unwrap().to_string();

    let list = run(dir.path(), &["token", "list", "--database-url", &url]);
    let listed = text(&list);
    assert!(list.status.success(), "{listed}");
    let row = listed.lines().find(|l| l.starts_with(&id)).unwrap_or_else(|| panic!("{listed}"));
    assert!(row.contains("viewer") && row.contains("scoreboard") && row.contains(" - "), "{row}");
    assert!(!listed.contains(token.rsplit('_').next().unwrap()), "the secret is never listed");

    let revoked = run(dir.path(), &["token", "revoke", &id, "--database-url", &url]);
    assert!(revoked.status.success(), "{}", text(&revoked));
    assert!(text(&revoked).contains("within 5 s"), "{}", text(&revoked));
    let listed = text(&run(dir.path(), &["token", "list", "--database-url", &url]));
    let row = listed.lines().find(|l| l.starts_with(&id)).unwrap();
    assert!(!row.contains(" - "), "a revocation time is shown: {row}");
    // Twice, or an unknown id: an error.
    assert!(!run(dir.path(), &["token", "revoke", &token, "--database-url", &url]).status.success());
    assert!(
        !run(dir.path(), &["token", "revoke", "0011223344556677", "--database-url", &url]).status.success()
    );
    // The database is where the flag after the subcommand said, not ./arbiter.db's default... which is the
    // same folder here; a second folder proves it.
    let other = tempfile::tempdir().unwrap();
    let listed = text(&run(other.path(), &["token", "list", "--database-url", &url]));
    assert!(listed.contains(&id), "{listed}");
}

#[test]
fn weak_and_placeholder_tokens_are_refused_naming_their_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (weak, needle) in [
        ("CHANGE-ME-arbiter-token-at-least-16-chars", "placeholder"),
        ("aaaaaaaaaaaaaaaa", "fewer than 32"),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "distinct"),
    ] {
        let o = arbiterd()
            .current_dir(dir.path())
            .env("ARBITER_ARBITER_TOKEN", weak)
            .args([
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "off",
                "--http-listen",
                "off",
                "--database-url",
                &db_url(dir.path()),
            ])
            .output()
            .unwrap();
        let said = text(&o);
        assert!(!o.status.success(), "{weak} accepted");
        assert!(said.contains("--arbiter-token (ARBITER_ARBITER_TOKEN)") && said.contains(needle), "{said}");
        assert!(!said.contains(weak), "the token is not echoed: {said}");
    }
}

#[test]
fn tokens_come_from_a_file_and_one_on_the_command_line_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{STRONG}\n")).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (child, out) = serve(dir.path(), &["--arbiter-token-file", token_file.to_str().unwrap()]);
    stop(child);
    // A configured token: no first-start tokens; the file was narrowed.
    assert!(out.contains("issue a token"), "{out}");
    assert_eq!(mode(&token_file), 0o600);

    let (child, out) = serve(dir.path(), &["--service-token", STRONG]);
    stop(child);
    assert!(out.contains("visible to every local user") && out.contains("--service-token"), "{out}");
    assert!(!out.contains(STRONG), "the token is not logged");
    // From the environment: no warning.
    let mut c = arbiterd();
    c.env("ARBITER_SERVICE_TOKEN", STRONG);
    let (child, out) = serve_with(c, dir.path());
    stop(child);
    assert!(!out.contains("visible to every local user"), "{out}");
}

fn serve_with(mut c: Command, dir: &Path) -> (Child, String) {
    let o = c
        .current_dir(dir)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "off",
            "--http-listen",
            "off",
            "--database-url",
            &db_url(dir),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = o;
    let seen = started(&mut child);
    (child, seen)
}

#[test]
fn the_key_subcommands_generate_rotate_list_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("player.keys");
    let f = file.to_str().unwrap();
    let o = run(dir.path(), &["key", "generate", "--player-token-key-file", f]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(mode(&file), 0o600);
    assert!(!run(dir.path(), &["key", "generate", "--player-token-key-file", f]).status.success(), "O_EXCL");
    let first = text(&run(dir.path(), &["key", "list", "--player-token-key-file", f]));
    let first_id = first.split_whitespace().next().unwrap().to_string();
    assert!(run(dir.path(), &["key", "rotate", "--player-token-key-file", f]).status.success());
    let listed = text(&run(dir.path(), &["key", "list", "--player-token-key-file", f]));
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[0].starts_with(&first_id) && lines[1].ends_with("(signs)"), "{listed}");
    assert_eq!(mode(&file), 0o600);
    // The signing key cannot be removed; an older one can.
    let signing = lines[1].split_whitespace().next().unwrap();
    assert!(!run(dir.path(), &["key", "remove", signing, "--player-token-key-file", f]).status.success());
    assert!(run(dir.path(), &["key", "remove", &first_id, "--player-token-key-file", f]).status.success());
    let listed = text(&run(dir.path(), &["key", "list", "--player-token-key-file", f]));
    assert_eq!(listed.lines().count(), 1, "{listed}");

    // A server started with it uses it and leaves it as it is.
    let before = std::fs::read_to_string(&file).unwrap();
    let (child, _) = serve(dir.path(), &["--player-token-key-file", f, "--service-token", STRONG]);
    stop(child);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert!(!dir.path().join("arbiter.db.keys").exists(), "no second key file");
}

#[test]
fn a_postgres_database_needs_a_key_file() {
    // Refused before connecting: the URL need not answer.
    let dir = tempfile::tempdir().unwrap();
    let o = arbiterd()
        .current_dir(dir.path())
        .env("ARBITER_SERVICE_TOKEN", STRONG)
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", "off", "--http-listen", "off"])
        .args(["--database-url", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let said = text(&o);
    assert!(said.contains("--player-token-key-file"), "{said}");
}
