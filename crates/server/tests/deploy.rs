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
    let metrics = port_of(config["ARBITER_METRICS_LISTEN"].as_str().expect("ARBITER_METRICS_LISTEN"));

    let deployment = &load(&dir.join("deployment.yaml"))[0];
    let pod = &deployment["spec"]["template"];
    let container = &pod["spec"]["containers"][0];
    let ports: Vec<(String, i64)> = container["ports"]
        .as_vec()
        .expect("ports")
        .iter()
        .map(|p| (p["name"].as_str().unwrap_or("").to_string(), p["containerPort"].as_i64().unwrap_or(0)))
        .collect();
    assert!(ports.contains(&("grpc".into(), grpc)), "{ports:?}");
    assert!(ports.contains(&("metrics".into(), metrics)), "{ports:?}");
    for probe in ["readinessProbe", "livenessProbe"] {
        assert_eq!(
            container[probe]["grpc"]["port"].as_i64(),
            Some(grpc),
            "{probe} must be a gRPC probe on {grpc}"
        );
    }
    assert_eq!(
        pod["metadata"]["annotations"]["prometheus.io/port"].as_str().and_then(|p| p.parse().ok()),
        Some(metrics)
    );
    // The environment comes from the ConfigMap and the Secret defined here.
    let sources: Vec<&str> = container["envFrom"]
        .as_vec()
        .expect("envFrom")
        .iter()
        .filter_map(|s| s["configMapRef"]["name"].as_str().or(s["secretRef"]["name"].as_str()))
        .collect();
    let configmap_name =
        load(&dir.join("configmap.yaml"))[0]["metadata"]["name"].as_str().unwrap_or("").to_string();
    let secret_name =
        load(&dir.join("secret.yaml"))[0]["metadata"]["name"].as_str().unwrap_or("").to_string();
    assert!(
        sources.contains(&configmap_name.as_str()) && sources.contains(&secret_name.as_str()),
        "{sources:?}"
    );

    // The Service and the PodDisruptionBudget select the Deployment's pods.
    let labels = &pod["metadata"]["labels"];
    let service = &load(&dir.join("service.yaml"))[0];
    for (k, v) in service["spec"]["selector"].as_hash().expect("selector") {
        assert_eq!(&labels[k.as_str().unwrap_or("")], v);
    }
    let service_ports: Vec<i64> =
        service["spec"]["ports"].as_vec().expect("ports").iter().filter_map(|p| p["port"].as_i64()).collect();
    assert!(service_ports.contains(&grpc) && service_ports.contains(&metrics), "{service_ports:?}");
    let pdb = &load(&dir.join("pdb.yaml"))[0];
    for (k, v) in pdb["spec"]["selector"]["matchLabels"].as_hash().expect("pdb selector") {
        assert_eq!(&labels[k.as_str().unwrap_or("")], v);
    }
    let replicas = deployment["spec"]["replicas"].as_i64().unwrap_or(1);
    let min_available = pdb["spec"]["minAvailable"].as_i64().unwrap_or(0);
    assert!(min_available < replicas, "a PDB with minAvailable >= replicas blocks every voluntary eviction");
}

#[test]
fn compose_and_dockerfile_agree_with_arbiterd() {
    let compose = &load(&deploy().join("compose.yaml"))[0];
    let env = &compose["services"]["arbiterd"]["environment"];
    let grpc = port_of(env["ARBITER_LISTEN"].as_str().expect("ARBITER_LISTEN"));
    let metrics = port_of(env["ARBITER_METRICS_LISTEN"].as_str().expect("ARBITER_METRICS_LISTEN"));
    let published: Vec<String> = compose["services"]["arbiterd"]["ports"]
        .as_vec()
        .expect("ports")
        .iter()
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect();
    assert!(published.iter().any(|p| p.ends_with(&format!(":{grpc}"))), "{published:?}");
    assert!(published.iter().any(|p| p.ends_with(&format!(":{metrics}"))), "{published:?}");
    assert!(env["ARBITER_DATABASE_URL"].as_str().is_some_and(|u| u.starts_with("postgres://")));

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
    assert!(dockerfile.contains(&format!("EXPOSE {grpc} {metrics}")), "Dockerfile exposes other ports");

    let unit = std::fs::read_to_string(deploy().join("systemd/arbiterd.service")).expect("unit");
    for line in unit.lines().filter_map(|l| l.strip_prefix("Environment=")) {
        let name = line.split('=').next().unwrap_or("");
        assert!(known.contains(name), "the systemd unit sets {name}, which arbiterd does not read");
    }
}
