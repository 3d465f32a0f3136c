//! The player-token keys and the files that hold secrets.
//!
//! Player tokens are HMACs under a service key. The keys live in a key file
//! outside the database (a backup or a reader of the database cannot forge
//! tokens), one key a line:
//!
//! ```text
//! # comment
//! <id> <64 hex digits>
//! ```
//!
//! Every key listed verifies the tokens made with it (a token names its
//! key's id); the **last** key signs new tokens. Rotation appends a new key
//! (`arbiterd key rotate`); removing a line revokes every token made with
//! that key. On several replicas, a new key is first added *above* the
//! signing key everywhere (it verifies but does not sign), then moved last.
//!
//! A key moved out of the database of an earlier release keeps the id
//! [`LEGACY_KEY_ID`]: the tokens of that release name no key and are
//! checked with it.
//!
//! Secret files (key file, first-start token file, a new SQLite database)
//! are created with `O_EXCL`, mode 0600 and without following a symlink
//! (nothing is ever written through one); an existing one is narrowed to
//! 0600 when read.

use std::io::Write;
use std::path::{Path, PathBuf};

use rand::Rng;

/// The id of the key an earlier release kept in the database
/// (`meta.player_token_key`); tokens without a key id use it.
pub const LEGACY_KEY_ID: &str = "legacy";

/// Longest key id: ids are written into every player token.
const MAX_ID_LEN: usize = 16;

/// Fewest bytes of a key (a generated key has 32).
const MIN_KEY_BYTES: usize = 16;

/// One player-token key.
#[derive(Clone, PartialEq, Eq)]
pub struct PlayerKey {
    pub id: String,
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for PlayerKey {
    /// The secret is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayerKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// The player-token keys, in file order: the last one signs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRing {
    keys: Vec<PlayerKey>,
}

/// What is wrong with keys or a secret file.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{path}: line {line}: {problem}")]
    Malformed { path: String, line: usize, problem: String },
    #[error("{0}: holds no key")]
    Empty(String),
    #[error("{0} is a symbolic link; refusing to read or write a secret through it")]
    Symlink(String),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{0}")]
    Refused(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KeyError + '_ {
    move |source| KeyError::Io { path: path.display().to_string(), source }
}

/// Whether `id` may name a key: 1 to 16 lower-case letters, digits or `-`
/// (no `_`, the separator of a player token).
pub fn valid_key_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl KeyRing {
    /// A ring of one fresh key with a random id.
    pub fn generate() -> KeyRing {
        KeyRing { keys: vec![fresh_key()] }
    }

    /// A ring of one key (the key of an earlier release, for example).
    pub fn single(id: &str, secret: Vec<u8>) -> KeyRing {
        KeyRing { keys: vec![PlayerKey { id: id.to_string(), secret }] }
    }

    /// The key that signs new tokens.
    pub fn signing(&self) -> &PlayerKey {
        // A ring is never empty: `parse` refuses an empty file and every
        // constructor adds a key.
        self.keys.last().expect("a key ring holds a key")
    }

    /// The key with this id.
    pub fn get(&self, id: &str) -> Option<&PlayerKey> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// The ids, in file order.
    pub fn ids(&self) -> Vec<&str> {
        self.keys.iter().map(|k| k.id.as_str()).collect()
    }

    /// Appends a fresh key, which becomes the signing key; returns its id.
    pub fn rotate(&mut self) -> String {
        let mut key = fresh_key();
        while self.get(&key.id).is_some() {
            key = fresh_key();
        }
        let id = key.id.clone();
        self.keys.push(key);
        id
    }

    /// Appends `key`, which becomes the signing key.
    ///
    /// # Errors
    /// [`KeyError::Refused`] if its id is taken.
    pub fn push(&mut self, key: PlayerKey) -> Result<(), KeyError> {
        if self.get(&key.id).is_some() {
            return Err(KeyError::Refused(format!("key id {} is taken", key.id)));
        }
        self.keys.push(key);
        Ok(())
    }

    /// Removes a key (its tokens stop verifying).
    ///
    /// # Errors
    /// [`KeyError::Refused`] for an unknown id or the signing key.
    pub fn remove(&mut self, id: &str) -> Result<(), KeyError> {
        if self.signing().id == id {
            return Err(KeyError::Refused(format!("key {id} signs new tokens; rotate first")));
        }
        let before = self.keys.len();
        self.keys.retain(|k| k.id != id);
        if self.keys.len() == before {
            return Err(KeyError::Refused(format!("no key {id}")));
        }
        Ok(())
    }

    /// Parses a key file (`path` only names it in errors).
    ///
    /// # Errors
    /// [`KeyError::Malformed`] or [`KeyError::Empty`].
    pub fn parse(text: &str, path: &str) -> Result<KeyRing, KeyError> {
        let mut keys: Vec<PlayerKey> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |problem: &str| KeyError::Malformed {
                path: path.to_string(),
                line: n + 1,
                problem: problem.to_string(),
            };
            let mut words = line.split_whitespace();
            let (Some(id), Some(hex), None) = (words.next(), words.next(), words.next()) else {
                return Err(bad("expected `<id> <hex key>`"));
            };
            if !valid_key_id(id) {
                return Err(bad("a key id has 1 to 16 lower-case letters, digits or '-'"));
            }
            let secret = crate::auth::from_hex(hex).ok_or_else(|| bad("the key is not hex"))?;
            if secret.len() < MIN_KEY_BYTES {
                return Err(bad("the key is shorter than 16 bytes"));
            }
            if keys.iter().any(|k| k.id == id) {
                return Err(bad("this key id is listed twice"));
            }
            keys.push(PlayerKey { id: id.to_string(), secret });
        }
        if keys.is_empty() {
            return Err(KeyError::Empty(path.to_string()));
        }
        Ok(KeyRing { keys })
    }

    /// The key file's text.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# arbiterd player-token keys: keep secret (mode 0600), never in the database.\n\
             # `<id> <hex key>` a line; every key verifies its tokens, the last one signs.\n",
        );
        for k in &self.keys {
            text.push_str(&format!("{} {}\n", k.id, crate::auth::to_hex(&k.secret)));
        }
        text
    }

    /// Reads a key file, refusing a symlink and narrowing its mode to 0600.
    ///
    /// # Errors
    /// [`KeyError`].
    pub fn load(path: &Path) -> Result<KeyRing, KeyError> {
        let text = read_private(path)?;
        KeyRing::parse(&text, &path.display().to_string())
    }

    /// Writes the key file anew (a new file renamed over the old one, so a
    /// crash leaves either file whole).
    ///
    /// # Errors
    /// [`KeyError`].
    pub fn save(&self, path: &Path) -> Result<(), KeyError> {
        replace_private(path, &self.to_text())
    }
}

fn fresh_key() -> PlayerKey {
    let mut id = [0u8; 4];
    let mut secret = vec![0u8; 32];
    rand::rng().fill_bytes(&mut id);
    rand::rng().fill_bytes(&mut secret);
    PlayerKey { id: format!("k{}", crate::auth::to_hex(&id)), secret }
}

/// Fails if `path` is a symbolic link.
fn refuse_symlink(path: &Path) -> Result<(), KeyError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(KeyError::Symlink(path.display().to_string())),
        _ => Ok(()),
    }
}

/// Narrows an existing file to mode 0600 (owner only).
///
/// # Errors
/// [`KeyError::Symlink`] or [`KeyError::Io`].
pub fn make_private(path: &Path) -> Result<(), KeyError> {
    refuse_symlink(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_err(io(path))?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io(path))?;
            tracing::warn!(file = %path.display(), mode = format!("{mode:o}"), "narrowed a secret file to mode 0600");
        }
    }
    Ok(())
}

/// Reads a secret file. A file of ours that others may read is narrowed
/// to 0600 (or, if it cannot be, a warning is logged). A symbolic link is
/// followed but left as it is: a Kubernetes Secret volume is made of links
/// into a read-only folder.
///
/// # Errors
/// [`KeyError::Io`].
pub fn read_private(path: &Path) -> Result<String, KeyError> {
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !linked && let Err(e) = make_private(path) {
        tracing::warn!(file = %path.display(), error = %e, "a secret file others may read could not be narrowed to 0600");
    }
    std::fs::read_to_string(path).map_err(io(path))
}

fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    // O_EXCL: never write into a file (or through a link) someone else
    // prepared; with O_CREAT it also refuses a symlink, dangling or not.
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates `path` with `text`, mode 0600, failing if anything exists there.
///
/// # Errors
/// [`KeyError::Io`] (`AlreadyExists` when the path is taken).
pub fn write_new_private(path: &Path, text: &str) -> Result<(), KeyError> {
    let mut f = private_options().open(path).map_err(io(path))?;
    f.write_all(text.as_bytes()).map_err(io(path))?;
    f.sync_all().map_err(io(path))
}

/// Replaces `path` with `text` (mode 0600): written to a new file beside it,
/// then renamed over it.
///
/// # Errors
/// [`KeyError`].
pub fn replace_private(path: &Path, text: &str) -> Result<(), KeyError> {
    refuse_symlink(path)?;
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(format!(".new-{}", uuid::Uuid::new_v4().simple()));
    let temp = path.with_file_name(name);
    write_new_private(&temp, text)?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        KeyError::Io { path: path.display().to_string(), source: e }
    })
}

/// Creates an empty file for a new SQLite database with mode 0600 (SQLite
/// gives its `-wal` and `-shm` files the database's mode), or narrows an
/// existing database and its `-wal` and `-shm` to 0600.
///
/// # Errors
/// [`KeyError`].
pub fn private_database(path: &Path) -> Result<(), KeyError> {
    refuse_symlink(path)?;
    match private_options().open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.as_os_str().to_os_string();
                name.push(suffix);
                let file = PathBuf::from(name);
                if file.exists() {
                    make_private(&file)?;
                }
            }
            Ok(())
        }
        Err(e) => Err(KeyError::Io { path: path.display().to_string(), source: e }),
    }
}

/// The file of an SQLite URL (`sqlite://FILE?...`, `sqlite:FILE`), or
/// `None` for an in-memory database or another backend.
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let file = rest.split('?').next().unwrap_or("");
    if file.is_empty() || file == ":memory:" || rest.contains("mode=memory") {
        return None;
    }
    Some(PathBuf::from(file))
}

/// Where an embedded database keeps its key file when none is given:
/// beside it, `<database>.keys`.
pub fn default_key_file(database_url: &str) -> Option<PathBuf> {
    sqlite_file(database_url).map(|db| {
        let mut name = db.as_os_str().to_os_string();
        name.push(".keys");
        PathBuf::from(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_write_round_trip() {
        let mut ring = KeyRing::generate();
        let first = ring.signing().id.clone();
        let second = ring.rotate();
        assert_ne!(first, second);
        assert_eq!(ring.signing().id, second, "the newest key signs");
        let back = KeyRing::parse(&ring.to_text(), "f").unwrap();
        assert_eq!(back, ring);
        assert!(ring.get(&first).is_some());
        ring.remove(&first).unwrap();
        assert!(ring.get(&first).is_none());
        assert!(ring.remove(&second).is_err(), "the signing key stays");
    }

    #[test]
    fn malformed_key_files_are_refused_with_the_line() {
        let key = "ab".repeat(32);
        for (text, needle) in [
            (String::new(), "holds no key"),
            ("# only a comment\n".to_string(), "holds no key"),
            (format!("k1 {key} extra"), "line 1"),
            (format!("K_1 {key}"), "key id"),
            ("k1 zz".to_string(), "not hex"),
            ("k1 abcd".to_string(), "shorter"),
            (format!("k1 {key}\nk1 {key}"), "twice"),
        ] {
            let e = KeyRing::parse(&text, "keys").unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn secret_files_are_private_exclusive_and_never_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let file = dir.path().join("keys");
        write_new_private(&file, "x").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert!(write_new_private(&file, "y").is_err(), "O_EXCL");

        // A link is neither written through nor read.
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_new_private(&link, "secret").is_err());
        assert!(matches!(replace_private(&link, "secret"), Err(KeyError::Symlink(_))));
        assert!(matches!(make_private(&link), Err(KeyError::Symlink(_))));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        // Read through it (a Kubernetes Secret volume), leaving its target's mode.
        assert_eq!(read_private(&link).unwrap(), "old");

        // An existing readable file is narrowed.
        let open = dir.path().join("open");
        std::fs::write(&open, "k").unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(read_private(&open).unwrap(), "k");
        assert_eq!(mode(&open), 0o600);

        // Replacing keeps 0600 and leaves no temporary file.
        replace_private(&open, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&open).unwrap(), "new");
        assert_eq!(mode(&open), 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4, "keys, elsewhere, link, open");

        // A database file is created 0600, and an existing one narrowed.
        let db = dir.path().join("a.db");
        private_database(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
        let wal = dir.path().join("a.db-wal");
        std::fs::write(&wal, "").unwrap();
        std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o644)).unwrap();
        private_database(&db).unwrap();
        assert_eq!((mode(&db), mode(&wal)), (0o600, 0o600));
    }

    #[test]
    fn database_urls_name_their_file() {
        assert_eq!(sqlite_file("sqlite://data/a.db?mode=rwc"), Some(PathBuf::from("data/a.db")));
        assert_eq!(sqlite_file("sqlite:a.db"), Some(PathBuf::from("a.db")));
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("sqlite://x?mode=memory&cache=shared"), None);
        assert_eq!(sqlite_file("postgres://h/db"), None);
        assert_eq!(default_key_file("sqlite:///var/lib/a.db"), Some(PathBuf::from("/var/lib/a.db.keys")));
    }
}
