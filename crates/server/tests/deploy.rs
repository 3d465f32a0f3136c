//! The files in `deploy/` against what `arbiterd` really uses: every YAML
//! file parses; every `ARBITER_*` variable they set is one `arbiterd`
//! reads; the ports they expose and probe are the ports the configuration
//! makes `arbiterd` listen on. No container engine runs here, so this is
//! the check that keeps them honest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

fn deploy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

/// The environment variables `arbiterd --help` documents.
fn arbiterd_env() -> BTreeSet<String> {
    let out =
        Command::new(env!("CARGO_BIN_EXE_arbiterd")).arg("--help").output().expect("run arbiterd --help");
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).expect("utf-8 help");
    let mut vars: BTreeSet<String> = help
        .split("[env: ")
        .skip(1)
        .filter_map(|rest| rest.split(['=', ']']).next())
        .map(str::to_string)
        .collect();
    // Read by the tracing filter rather than by a flag.
    vars.insert("RUST_LOG".into());
    assert!(vars.contains("ARBITER_DATABASE_URL"), "{help}");
    vars
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read deploy/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

fn load(path: &Path) -> Vec<Yaml> {
    let text = std::fs::read_to_string(path).expect("read yaml");
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn port_of(addr: &str) -> i64 {
    addr.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {addr}"))
}

/// Every key/value pair under `environment`, `env`, `data` or `stringData`
/// maps anywhere in a document.
fn env_pairs(y: &Yaml, out: &mut Vec<(String, String)>) {
    match y {
        Yaml::Hash(h) => {
            for (k, v) in h {
                let key = k.as_str().unwrap_or("");
                if matches!(key, "environment" | "data" | "stringData")
                    && let Yaml::Hash(vars) = v
                {
                    for (name, value) in vars {
                        let value = match value {
                            Yaml::String(s) => s.clone(),
                            Yaml::Integer(i) => i.to_string(),
                            other => format!("{other:?}"),
                        };
                        out.push((name.as_str().unwrap_or("").to_string(), value));
                    }
                }
                env_pairs(v, out);
            }
        }
        Yaml::Array(a) => a.iter().for_each(|v| env_pairs(v, out)),
        _ => {}
    }
}

#[test]
fn every_yaml_file_parses_and_names_real_variables() {
    let known = arbiterd_env();
    let mut files = Vec::new();
    yaml_files(&deploy(), &mut files);
    assert!(files.len() >= 6, "expected compose and the Kubernetes manifests, found {files:?}");
    for file in &files {
        let docs = load(file);
        assert!(!docs.is_empty(), "{} is empty", file.display());
        let mut pairs = Vec::new();
        docs.iter().for_each(|d| env_pairs(d, &mut pairs));
        for (name, _) in &pairs {
            if name.starts_with("ARBITER_") || name == "RUST_LOG" {
                assert!(known.contains(name), "{} sets {name}, which arbiterd does not read", file.display());
            }
        }
    }
}

#[test]
fn kubernetes_ports_and_probes_match_the_configuration() {
    let dir = deploy().join("kubernetes");
    let config = &load(&dir.join("configmap.yaml"))[0]["data"];
    let grpc = port_of(config["ARBITER_LISTEN"].as_str().expect("ARBITER_LISTEN"));
    let metrics = config["ARBITER_METRICS_LISTEN"].as_str().expect("ARBITER_METRICS_LISTEN");
    assert!(
        metrics.starts_with("127.0.0.1:"),
        "metrics have no authentication: loopback only, not {metrics}"
    );

    let deployment = &load(&dir.join("deployment.yaml"))[0];
    let pod = &deployment["spec"]["template"];
    let container = &pod["spec"]["containers"][0];
    let ports: Vec<(String, i64)> = container["ports"]
        .as_vec()
        .expect("ports")
        .iter()
        .map(|p| (p["name"].as_str().unwrap_or("").to_string(), p["containerPort"].as_i64().unwrap_or(0)))
        .collect();
    assert_eq!(ports, vec![("grpc".to_string(), grpc)], "only gRPC leaves the pod");
    assert!(
        pod["metadata"]["annotations"]["prometheus.io/port"].is_badvalue(),
        "no scrape from outside the pod"
    );

    // The probes check health over TLS, trusting the CA mounted with the
    // certificate the configuration serves.
    let cert = config["ARBITER_TLS_CERT"].as_str().expect("ARBITER_TLS_CERT");
    let tls_dir = cert.rsplit_once('/').map(|(d, _)| d).expect("a path");
    for probe in ["readinessProbe", "livenessProbe"] {
        let command: Vec<&str> = container[probe]["exec"]["command"]
            .as_vec()
            .unwrap_or_else(|| panic!("{probe} must run a command"))
            .iter()
            .filter_map(Yaml::as_str)
            .collect();
        assert_eq!(
            command,
            [
                "arbiter",
                "--url",
                &format!("https://localhost:{grpc}"),
                "--ca",
                &format!("{tls_dir}/ca.crt"),
                "health"
            ],
            "{probe}"
        );
    }
    // The environment comes from the ConfigMap and the Secret defined here;
    // the TLS files and the key file from Secret volumes defined here.
    let sources: Vec<&str> = container["envFrom"]
        .as_vec()
        .expect("envFrom")
        .iter()
        .filter_map(|s| s["configMapRef"]["name"].as_str().or(s["secretRef"]["name"].as_str()))
        .collect();
    let configmap_name =
        load(&dir.join("configmap.yaml"))[0]["metadata"]["name"].as_str().unwrap_or("").to_string();
    let secrets = load(&dir.join("secret.yaml"));
    let secret_names: Vec<&str> = secrets.iter().filter_map(|d| d["metadata"]["name"].as_str()).collect();
    assert!(sources.contains(&configmap_name.as_str()), "{sources:?}");
    assert!(sources.iter().any(|s| secret_names.contains(s)), "{sources:?}");
    let key_file = config["ARBITER_PLAYER_TOKEN_KEY_FILE"].as_str().expect("ARBITER_PLAYER_TOKEN_KEY_FILE");
    let volumes = pod["spec"]["volumes"].as_vec().expect("volumes");
    let mounts = container["volumeMounts"].as_vec().expect("volumeMounts");
    for (file, wanted) in
        [(cert, "tls.crt"), (config["ARBITER_TLS_KEY"].as_str().unwrap(), "tls.key"), (key_file, "")]
    {
        let mount = mounts
            .iter()
            .find(|m| m["mountPath"].as_str().is_some_and(|p| file.starts_with(&format!("{p}/"))))
            .unwrap_or_else(|| panic!("nothing mounted at {file}"));
        assert_eq!(mount["readOnly"].as_bool(), Some(true), "{file}");
        let volume = volumes.iter().find(|v| v["name"] == mount["name"]).expect("the volume of a mount");
        let secret = volume["secret"]["secretName"].as_str().expect("a Secret volume");
        let doc =
            secrets.iter().find(|d| d["metadata"]["name"].as_str() == Some(secret)).expect("defined here");
        let name = file.rsplit('/').next().unwrap();
        assert!(wanted.is_empty() || name == wanted);
        assert!(!doc["stringData"][name].is_badvalue(), "Secret {secret} has no {name}");
    }

    // The Service and the PodDisruptionBudget select the Deployment's pods.
    let labels = &pod["metadata"]["labels"];
    let service = &load(&dir.join("service.yaml"))[0];
    for (k, v) in service["spec"]["selector"].as_hash().expect("selector") {
        assert_eq!(&labels[k.as_str().unwrap_or("")], v);
    }
    let service_ports: Vec<i64> =
        service["spec"]["ports"].as_vec().expect("ports").iter().filter_map(|p| p["port"].as_i64()).collect();
    assert_eq!(service_ports, vec![grpc]);
    let pdb = &load(&dir.join("pdb.yaml"))[0];
    for (k, v) in pdb["spec"]["selector"]["matchLabels"].as_hash().expect("pdb selector") {
        assert_eq!(&labels[k.as_str().unwrap_or("")], v);
    }
    let replicas = deployment["spec"]["replicas"].as_i64().unwrap_or(1);
    let min_available = pdb["spec"]["minAvailable"].as_i64().unwrap_or(0);
    assert!(min_available < replicas, "a PDB with minAvailable >= replicas blocks every voluntary eviction");
}

#[test]
fn the_pod_meets_the_restricted_pod_security_standard() {
    let deployment = &load(&deploy().join("kubernetes/deployment.yaml"))[0];
    let spec = &deployment["spec"]["template"]["spec"];
    let pod = &spec["securityContext"];
    assert_eq!(pod["runAsNonRoot"].as_bool(), Some(true));
    assert!(pod["runAsUser"].as_i64().is_some_and(|u| u > 0));
    assert_eq!(pod["seccompProfile"]["type"].as_str(), Some("RuntimeDefault"));
    for container in spec["containers"].as_vec().expect("containers") {
        let c = &container["securityContext"];
        assert_eq!(c["allowPrivilegeEscalation"].as_bool(), Some(false));
        assert_eq!(c["runAsNonRoot"].as_bool(), Some(true));
        assert_eq!(c["readOnlyRootFilesystem"].as_bool(), Some(true));
        let dropped: Vec<&str> = c["capabilities"]["drop"]
            .as_vec()
            .expect("capabilities.drop")
            .iter()
            .filter_map(Yaml::as_str)
            .collect();
        assert_eq!(dropped, ["ALL"]);
        assert!(c["capabilities"]["add"].is_badvalue(), "no capability added");
        assert!(c["privileged"].as_bool() != Some(true));
    }
    // Restricted also forbids host namespaces and host paths.
    for field in ["hostNetwork", "hostPID", "hostIPC"] {
        assert!(spec[field].as_bool() != Some(true), "{field}");
    }
    assert!(
        spec["volumes"].as_vec().into_iter().flatten().all(|v| v["hostPath"].is_badvalue()),
        "no hostPath volume"
    );
    // The image's user is numeric, so the kubelet can check runAsNonRoot.
    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).expect("Dockerfile");
    assert!(dockerfile.lines().any(|l| l.trim() == "USER 10001"), "USER must be numeric");
}

#[test]
fn compose_and_dockerfile_agree_with_arbiterd() {
    let compose = &load(&deploy().join("compose.yaml"))[0];
    let env = &compose["services"]["arbiterd"]["environment"];
    let grpc = port_of(env["ARBITER_LISTEN"].as_str().expect("ARBITER_LISTEN"));
    let published: Vec<String> = compose["services"]["arbiterd"]["ports"]
        .as_vec()
        .expect("ports")
        .iter()
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect();
    assert!(
        published.iter().all(|p| p.ends_with(&format!(":{grpc}"))),
        "only gRPC is published: {published:?}"
    );
    assert!(env["ARBITER_DATABASE_URL"].as_str().is_some_and(|u| u.starts_with("postgres://")));
    assert!(
        env["ARBITER_PLAYER_TOKEN_KEY_FILE"].as_str().is_some(),
        "replicas on PostgreSQL share a key file"
    );
    let health: Vec<&str> = compose["services"]["arbiterd"]["healthcheck"]["test"]
        .as_vec()
        .expect("healthcheck")
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(health.contains(&format!("https://localhost:{grpc}").as_str()), "{health:?}");

    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).expect("Dockerfile");
    let known = arbiterd_env();
    for word in dockerfile.split(|c: char| c.is_whitespace() || c == '\\') {
        if let Some((name, _)) = word.split_once('=')
            && name.starts_with("ARBITER_")
        {
            assert!(known.contains(name), "Dockerfile sets {name}, which arbiterd does not read");
        }
    }
    assert!(dockerfile.contains(&format!("ARBITER_LISTEN=0.0.0.0:{grpc}")), "Dockerfile listens elsewhere");
    assert!(dockerfile.contains(&format!("EXPOSE {grpc}\n")), "Dockerfile exposes other ports");

    let unit = std::fs::read_to_string(deploy().join("systemd/arbiterd.service")).expect("unit");
    for line in unit.lines().filter_map(|l| l.strip_prefix("Environment=")) {
        let name = line.split('=').next().unwrap_or("");
        assert!(known.contains(name), "the systemd unit sets {name}, which arbiterd does not read");
    }
}

/// `NAME=value` settings of every deploy example: the Dockerfile's `ENV`,
/// the unit's `Environment=`, compose's and the ConfigMap's maps.
fn settings_of_every_example() -> Vec<(&'static str, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).expect("Dockerfile");
    let docker = dockerfile
        .split(|c: char| c.is_whitespace() || c == '\\')
        .filter_map(|w| w.split_once('='))
        .filter(|(n, _)| n.starts_with("ARBITER_"))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    out.push(("Dockerfile", docker));
    let unit = std::fs::read_to_string(deploy().join("systemd/arbiterd.service")).expect("unit");
    let systemd = unit
        .lines()
        .filter_map(|l| l.strip_prefix("Environment="))
        .filter_map(|l| l.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    out.push(("systemd unit", systemd));
    for file in ["compose.yaml", "kubernetes/configmap.yaml"] {
        let mut pairs = Vec::new();
        load(&deploy().join(file)).iter().for_each(|d| env_pairs(d, &mut pairs));
        out.push((if file == "compose.yaml" { "compose" } else { "Kubernetes" }, pairs));
    }
    out
}

#[test]
fn every_example_serves_tls_and_keeps_metrics_on_loopback() {
    for (example, settings) in settings_of_every_example() {
        let get = |name: &str| settings.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert!(get("ARBITER_LISTEN").is_some(), "{example}: {settings:?}");
        for flag in ["ARBITER_TLS_CERT", "ARBITER_TLS_KEY"] {
            assert!(get(flag).is_some_and(|v| v.starts_with('/')), "{example} must serve TLS: {flag} unset");
        }
        let metrics = get("ARBITER_METRICS_LISTEN").unwrap_or("127.0.0.1:9464");
        assert!(
            metrics == "off" || metrics.starts_with("127.0.0.1:") || metrics.starts_with("[::1]:"),
            "{example}: metrics have no authentication, yet listen on {metrics}"
        );
    }
}

#[test]
fn the_shipped_secrets_do_not_work() {
    let secrets = load(&deploy().join("kubernetes/secret.yaml"));
    let mut tokens = 0;
    for doc in &secrets {
        let Some(data) = doc["stringData"].as_hash() else { continue };
        for (k, v) in data {
            let (name, value) = (k.as_str().unwrap_or(""), v.as_str().unwrap_or(""));
            if name.ends_with("_TOKEN") {
                tokens += 1;
                assert!(
                    arbiter_server::auth::check_token_strength(value).is_err(),
                    "the placeholder of {name} would work as a real token"
                );
            }
            if name.ends_with(".keys") {
                assert!(
                    arbiter_server::keys::KeyRing::parse(value, name).is_err(),
                    "{name} holds a working key"
                );
            }
        }
    }
    assert_eq!(tokens, 3, "the three role tokens");
    // The placeholders of the first releases too.
    for old in ["CHANGE-ME-arbiter-token-at-least-16-chars", "aaaaaaaaaaaaaaaa"] {
        assert!(arbiter_server::auth::check_token_strength(old).is_err(), "{old}");
    }
    // And a real one passes.
    assert!(
        arbiter_server::auth::check_token_strength(
            "5b0e4c4f2f0f7d0f9a7e3c1b8d6a4f2e0c9b7a5d3f1e8c6b4a2d0f9e7c5b3a1d"
        )
        .is_ok()
    );
}

#[test]
fn the_docker_build_context_leaves_build_output_and_secrets_out() {
    let ignore = std::fs::read_to_string(deploy().join("../.dockerignore")).expect(".dockerignore");
    let patterns: Vec<&str> =
        ignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    for needed in ["target/", "*.db", "*.db-*", "*.keys", "arbiterd-tokens.txt", "*.key", ".git/"] {
        assert!(patterns.contains(&needed), ".dockerignore lacks {needed}: {patterns:?}");
    }
    assert!(!patterns.iter().any(|p| p.starts_with('!')), "nothing is let back in");
}

/// The directives of the unit's `[Service]` section.
fn unit_directives() -> Vec<(String, String)> {
    let unit = std::fs::read_to_string(deploy().join("systemd/arbiterd.service")).expect("unit");
    unit.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn the_systemd_unit_is_hardened() {
    let d = unit_directives();
    let has = |k: &str, v: &str| d.iter().any(|(dk, dv)| dk == k && dv == v);
    for (k, v) in [
        ("UMask", "0077"),
        ("StateDirectoryMode", "0700"),
        ("NoNewPrivileges", "true"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "true"),
        ("PrivateTmp", "true"),
        ("PrivateDevices", "true"),
        ("CapabilityBoundingSet", ""),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
        ("SystemCallFilter", "@system-service"),
        ("MemoryDenyWriteExecute", "true"),
        ("RestrictNamespaces", "true"),
    ] {
        assert!(has(k, v), "the unit lacks {k}={v}");
    }
    assert!(has("User", "arbiter"), "runs as its own user");
}

#[test]
fn systemd_analyze_rates_the_unit_3_or_lower() {
    let unit = deploy().join("systemd/arbiterd.service");
    let out = match Command::new("systemd-analyze").args(["security", "--offline=yes"]).arg(&unit).output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("systemd-analyze is not installed ({e}): the exposure score is not checked here");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(line) = text.lines().find(|l| l.contains("Overall exposure level")) else {
        // Older systemd without --offline: nothing to rate.
        eprintln!("systemd-analyze gave no score: {}", String::from_utf8_lossy(&out.stderr));
        return;
    };
    let score: f64 = line
        .split(':')
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no score in {line:?}"));
    assert!(score <= 3.0, "systemd-analyze security rates the unit {score} (at most 3.0):\n{text}");
}

#[test]
fn the_certificate_steps_make_a_certificate_arbiterd_serves() {
    if Command::new("openssl").arg("version").output().is_err() {
        eprintln!("openssl is not installed: the certificate steps are not run here");
        return;
    }
    let readme = std::fs::read_to_string(deploy().join("README.md")).expect("deploy/README.md");
    let section = readme.split("## 1. A certificate").nth(1).expect("the certificate section");
    let script = section.split("```sh\n").nth(1).and_then(|s| s.split("```").next()).expect("its commands");
    let dir = tempfile::tempdir().unwrap();
    let ran = Command::new("bash").args(["-euc", script]).current_dir(dir.path()).output().expect("bash");
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let tls = dir.path().join("deploy/tls");

    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiterd"))
        .current_dir(dir.path())
        .env_remove("ARBITER_LISTEN")
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "off",
            "--http-listen",
            "off",
            "--database-url",
        ])
        .arg(format!("sqlite://{}", dir.path().join("a.db").display()))
        .arg("--tls-cert")
        .arg(tls.join("tls.crt"))
        .arg("--tls-key")
        .arg(tls.join("tls.key"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("arbiterd");
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let addr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("arbiterd listening on https://").map(str::to_string))
        .expect("serves TLS");
    // Keep reading what it prints next: a closed pipe would make its next
    // line fail (and the server with it) before the client connects.
    std::thread::spawn(move || lines.for_each(drop));
    let ca = std::fs::read(tls.join("ca.crt")).unwrap();
    let checked =
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
            use tonic::transport::{Certificate, Channel, ClientTlsConfig};
            let channel = Channel::from_shared(format!("https://{addr}"))
                .unwrap()
                .tls_config(
                    ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)).domain_name("localhost"),
                )
                .unwrap()
                .connect()
                .await?;
            let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
            health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await?;
            Ok::<_, Box<dyn std::error::Error>>(())
        });
    let _ = child.kill();
    let _ = child.wait();
    checked.expect("a client trusting ca.crt checks health over TLS");
}
