//! The config file: named contexts, each a server with its token file and
//! CA, one of them current, as kubectl's kubeconfig has them.
//!
//! ```yaml
//! current-context: hall
//! contexts:
//! - name: hall
//!   url: https://arbiter.hall.example:50051
//!   token-file: /home/arbiter/.config/arbiter/hall.token
//!   ca: /home/arbiter/.config/arbiter/hall-ca.pem
//! - name: local
//!   url: http://127.0.0.1:50051
//!   token-file: /home/arbiter/src/arbiter/arbiterd-tokens.txt
//! ```
//!
//! The file is `$ARBITER_CONFIG`, or `arbiter/config.yaml` under
//! `$XDG_CONFIG_HOME` (default `~/.config`). A context keeps the path of a
//! token file, never the token: the secret stays in one file with its own
//! permissions. Written with mode 0600, replaced atomically.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use arbiter_client::{Error, exit};
use serde::{Deserialize, Serialize};

use crate::args::{ConfigCommand, GlobalArgs};
use crate::output;
use crate::session::{DEFAULT_URL, out};
use crate::table::Table;

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Config {
    /// The context used when none is named (`arbiter config use-context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_context: Option<String>,
    /// The contexts, by name.
    #[serde(default)]
    pub contexts: Vec<Context>,
}

/// A server and how to reach it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Context {
    /// Its name (`--context NAME`).
    pub name: String,
    /// The server address (`https://` for TLS).
    pub url: String,
    /// A file whose first line is the token (a role token file such as
    /// `arbiterd-tokens.txt` works too: see [`read_token`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_file: Option<PathBuf>,
    /// PEM file of the CA to trust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<PathBuf>,
    /// The name to check the server's certificate against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_domain: Option<String>,
}

/// Where the config file is: `$ARBITER_CONFIG`, else
/// `$XDG_CONFIG_HOME/arbiter/config.yaml`, else
/// `~/.config/arbiter/config.yaml`; `None` without a home.
pub fn path() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = var("ARBITER_CONFIG") {
        return Some(p);
    }
    let base = var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))?;
    Some(base.join("arbiter").join("config.yaml"))
}

impl Config {
    /// The file at `path`; an empty config when there is none.
    ///
    /// # Errors
    /// A file that cannot be read or is not a config (the message names
    /// the file and the line).
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read the config file {}", path.display()));
            }
        };
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let config: Config = serde_yaml_ng::from_str(&text).map_err(|e| {
            Error::invalid("config", format!("{} is not an arbiter config file: {e}", path.display()))
        })?;
        let mut seen = std::collections::HashSet::new();
        for c in &config.contexts {
            if !seen.insert(c.name.as_str()) {
                return Err(Error::invalid(
                    "config",
                    format!("{}: the context {:?} is defined twice", path.display(), c.name),
                )
                .into());
            }
        }
        Ok(config)
    }

    /// Writes the file (mode 0600, its folder created), replacing the old
    /// one at once: a reader sees the old file or the new, never half.
    ///
    /// # Errors
    /// The file system's.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = serde_yaml_ng::to_string(self)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot write in {}", dir.display()))?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        file.as_file().sync_all()?;
        file.persist(path).with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    }

    /// The context named `name`.
    ///
    /// # Errors
    /// [`Error::Invalid`] (exit 2) naming the contexts there are.
    pub fn context(&self, name: &str) -> Result<&Context, Error> {
        self.contexts.iter().find(|c| c.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.contexts.iter().map(|c| c.name.as_str()).collect();
            Error::invalid(
                "context",
                if known.is_empty() {
                    format!("no context {name:?}: there are none yet (`arbiter config set-context`)")
                } else {
                    format!("no context {name:?}; the contexts are: {}", known.join(", "))
                },
            )
        })
    }

    /// The current context, if one is set.
    ///
    /// # Errors
    /// A current context that no longer exists.
    pub fn current(&self) -> Result<Option<&Context>, Error> {
        self.current_context.as_deref().map(|name| self.context(name)).transpose()
    }
}

/// The token in `path`: its first non-empty line, trimmed. A line
/// `role=TOKEN` (the form of `arbiterd-tokens.txt`) gives the token of the
/// first such line.
///
/// # Errors
/// A file that cannot be read or holds no token.
pub fn read_token(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the token file {}", path.display()))?;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .ok_or_else(|| Error::invalid("token-file", format!("{} holds no token", path.display())))?;
    Ok(match line.split_once('=') {
        Some((role, token)) if !role.is_empty() && role.bytes().all(|b| b.is_ascii_alphabetic()) => {
            token.trim()
        }
        _ => line,
    }
    .to_owned())
}

/// An `arbiter config` command.
///
/// # Errors
/// An unreadable or invalid config file, an unknown context, a failed
/// write.
pub fn run(global: &GlobalArgs, command: ConfigCommand) -> anyhow::Result<u8> {
    let path = path().ok_or_else(|| anyhow::anyhow!("no config file: set ARBITER_CONFIG or HOME"))?;
    let mut config = Config::load(&path)?;
    match command {
        ConfigCommand::GetContexts => {
            if global.structured() {
                output::document(global, &serde_json::to_value(&config)?)?;
            } else if config.contexts.is_empty() {
                out(&format!("no contexts in {} (`arbiter config set-context`)\n", path.display()))?;
            } else {
                let mut t = Table::new(["CURRENT", "NAME", "URL", "TOKEN FILE", "CA"]);
                for c in &config.contexts {
                    let current = config.current_context.as_deref() == Some(c.name.as_str());
                    let shown =
                        |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
                    t.row(vec![
                        if current { "*".into() } else { String::new() },
                        c.name.clone(),
                        c.url.clone(),
                        shown(&c.token_file),
                        shown(&c.ca),
                    ]);
                }
                out(&t.render())?;
            }
        }
        ConfigCommand::CurrentContext => match &config.current_context {
            Some(name) => out(&format!("{name}\n"))?,
            None => {
                eprintln!(
                    "arbiter: no current context in {} (`arbiter config use-context NAME`)",
                    path.display()
                );
                return Ok(exit::INVALID);
            }
        },
        ConfigCommand::UseContext(a) => {
            config.context(&a.name)?;
            config.current_context = Some(a.name.clone());
            config.save(&path)?;
            out(&format!("current context: {}\n", a.name))?;
        }
        ConfigCommand::SetContext(a) => {
            if global.token.is_some() {
                return Err(Error::invalid(
                    "token",
                    "a context keeps the path of a token file, not the token: give --token-file",
                )
                .into());
            }
            if a.name.trim().is_empty() {
                return Err(Error::invalid("name", "a context needs a name").into());
            }
            let existing = config.contexts.iter().position(|c| c.name == a.name);
            let mut context = existing.map(|i| config.contexts[i].clone()).unwrap_or_else(|| Context {
                name: a.name.clone(),
                url: DEFAULT_URL.to_owned(),
                ..Context::default()
            });
            if let Some(url) = &global.url {
                context.url = url.clone();
            }
            // Paths are kept absolute: the context is used from anywhere.
            if let Some(file) = &global.token_file {
                context.token_file = Some(std::path::absolute(file)?);
            }
            if let Some(ca) = &global.ca {
                context.ca = Some(std::path::absolute(ca)?);
            }
            if let Some(domain) = &global.tls_domain {
                context.tls_domain = Some(domain.clone());
            }
            match existing {
                Some(i) => config.contexts[i] = context,
                None => config.contexts.push(context),
            }
            if a.use_it || config.current_context.is_none() {
                config.current_context = Some(a.name.clone());
            }
            config.save(&path)?;
            let verb = if existing.is_some() { "changed" } else { "created" };
            out(&format!("context {} {verb} in {}\n", a.name, path.display()))?;
        }
        ConfigCommand::DeleteContext(a) => {
            config.context(&a.name)?;
            config.contexts.retain(|c| c.name != a.name);
            if config.current_context.as_deref() == Some(a.name.as_str()) {
                config.current_context = None;
            }
            config.save(&path)?;
            out(&format!("context {} deleted from {}\n", a.name, path.display()))?;
        }
        ConfigCommand::View => {
            if global.structured() {
                output::document(global, &serde_json::to_value(&config)?)?;
            } else {
                out(&format!("# {}\n{}", path.display(), serde_yaml_ng::to_string(&config)?))?;
            }
        }
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.yaml");
        assert_eq!(Config::load(&path).unwrap(), Config::default());
        let config = Config {
            current_context: Some("hall".into()),
            contexts: vec![Context {
                name: "hall".into(),
                url: "https://h:50051".into(),
                token_file: Some("/t".into()),
                ..Context::default()
            }],
        };
        config.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("current-context: hall"), "{text}");
        assert!(text.contains("token-file: /t"), "{text}");
        assert!(!text.contains("tls-domain"), "{text}");
        let back = Config::load(&path).unwrap();
        assert_eq!(back, config);
        assert_eq!(back.current().unwrap().unwrap().url, "https://h:50051");
        let e = back.context("nope").unwrap_err();
        assert!(e.message().contains("the contexts are: hall"), "{}", e.message());
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn bad_files_name_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, "contexts:\n- name: a\n  url: x\n  colour: red\n").unwrap();
        let e = Config::load(&path).unwrap_err().to_string();
        assert!(e.contains("config.yaml") && e.contains("colour"), "{e}");
        std::fs::write(&path, "contexts:\n- name: a\n  url: x\n- name: a\n  url: y\n").unwrap();
        assert!(Config::load(&path).unwrap_err().to_string().contains("defined twice"));
    }

    #[test]
    fn token_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, "\n  abc-123 \n").unwrap();
        assert_eq!(read_token(&path).unwrap(), "abc-123");
        std::fs::write(&path, "# first-start tokens\narbiter=arb_x_1\nservice=svc_y_2\n").unwrap();
        assert_eq!(read_token(&path).unwrap(), "arb_x_1");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_token(&path).unwrap_err().to_string().contains("holds no token"));
    }
}
