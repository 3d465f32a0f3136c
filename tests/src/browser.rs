//! A headless Chromium driven over the W3C WebDriver protocol (Debian's
//! `chromium` and `chromium-driver`), for the console's tests.
//!
//! Without the driver the tests are skipped with a message, except under CI
//! (`CI` set), where `.ci/run` installs it and its absence is a failure.
//!
//! `ARBITER_BROWSER=firefox` runs the same tests in a headless Firefox
//! through `geckodriver` instead (`apt-get install firefox-esr`, `cargo
//! install geckodriver`): the console is checked in both engines.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A browser session; the driver is stopped when it is dropped.
#[derive(Debug)]
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
}

fn find_program(name: &str) -> Option<String> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| format!("{dir}/{name}"))
        .find(|path| std::path::Path::new(path).is_file())
}

impl Browser {
    /// A new headless browser at 1280x800; `None` (after saying why) when
    /// Chromium's driver is not installed and this is not CI.
    pub async fn start() -> Option<Browser> {
        let firefox = std::env::var("ARBITER_BROWSER").is_ok_and(|b| b == "firefox");
        let (driver_name, install) = if firefox {
            ("geckodriver", "apt-get install firefox-esr; cargo install geckodriver")
        } else {
            ("chromedriver", "apt-get install chromium chromium-driver")
        };
        let Some(driver_path) = find_program(driver_name) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{driver_name} is not installed: `{install}` (.ci/run installs Chromium's)"
            );
            eprintln!("skipped: no {driver_name} ({install})");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {driver_name}: {e}"));
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let started = Instant::now();
        while TcpStream::connect(addr).await.is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "{driver_name} did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let capabilities = if firefox {
            json!({ "browserName": "firefox", "moz:firefoxOptions": { "args": ["-headless"] } })
        } else {
            let binary = find_program("chromium").unwrap_or_else(|| "/usr/bin/chromium".into());
            json!({
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": binary,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--window-size=1280,800"]
                }
            })
        };
        let mut browser = Browser { driver, addr, session: String::new() };
        let created = browser
            .command("POST", "/session", Some(json!({ "capabilities": { "alwaysMatch": capabilities } })))
            .await;
        browser.session = created["sessionId"].as_str().expect("a session id").to_owned();
        // The laptop of the issue: 1280x800.
        browser
            .command("POST", &browser.at("/window/rect"), Some(json!({ "width": 1280, "height": 800 })))
            .await;
        Some(browser)
    }

    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut socket = TcpStream::connect(self.addr).await.expect("connect to the WebDriver");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        socket.write_all(request.as_bytes()).await.unwrap();
        // The driver may keep the connection open whatever the request says:
        // read the head, then the body its length announces.
        let mut answer = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        let (head_end, length) = loop {
            let n = socket.read(&mut chunk).await.expect("read from the WebDriver");
            assert!(n > 0, "the WebDriver closed the connection: {}", String::from_utf8_lossy(&answer));
            answer.extend_from_slice(&chunk[..n]);
            if let Some(i) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&answer[..i]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .expect("the WebDriver answers with a content-length");
                break (i + 4, length);
            }
        };
        while answer.len() < head_end + length {
            let n = socket.read(&mut chunk).await.expect("read from the WebDriver");
            assert!(n > 0, "the WebDriver closed the connection early");
            answer.extend_from_slice(&chunk[..n]);
        }
        let json = String::from_utf8_lossy(&answer[head_end..head_end + length]).into_owned();
        let value: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("WebDriver: {e}: {json}"));
        let value = value.get("value").cloned().unwrap_or(Value::Null);
        assert!(value.get("error").is_none(), "WebDriver {method} {path}: {value}");
        value
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Opens `url`.
    pub async fn goto(&self, url: &str) {
        self.command("POST", &self.at("/url"), Some(json!({ "url": url }))).await;
    }

    /// Runs `script` (a function body) in the page with `args`.
    pub async fn run(&self, script: &str, args: Value) -> Value {
        self.command("POST", &self.at("/execute/sync"), Some(json!({ "script": script, "args": args }))).await
    }

    /// Runs `script` until it returns something other than `null` or
    /// `false`, at most `limit`; that value, or `None`.
    pub async fn wait_for(&self, script: &str, args: Value, limit: Duration) -> Option<Value> {
        let started = Instant::now();
        loop {
            let value = self.run(script, args.clone()).await;
            if !value.is_null() && value != Value::Bool(false) {
                return Some(value);
            }
            if started.elapsed() > limit {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The WebDriver id of the element `css` selects.
    async fn element(&self, css: &str) -> String {
        let found = self
            .command("POST", &self.at("/element"), Some(json!({ "using": "css selector", "value": css })))
            .await;
        let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str);
        id.unwrap_or_else(|| panic!("no element {css}")).to_owned()
    }

    /// Types `text` into the element `css` selects.
    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css).await;
        self.command("POST", &self.at(&format!("/element/{id}/value")), Some(json!({ "text": text }))).await;
    }

    /// Clicks the element `css` selects.
    pub async fn click(&self, css: &str) {
        let id = self.element(css).await;
        self.command("POST", &self.at(&format!("/element/{id}/click")), Some(json!({}))).await;
    }

    /// Sets the window's size (a tablet, a laptop).
    pub async fn resize(&self, width: u32, height: u32) {
        self.command("POST", &self.at("/window/rect"), Some(json!({ "width": width, "height": height })))
            .await;
    }

    /// A PNG of the window, base64 as WebDriver gives it.
    pub async fn screenshot_base64(&self) -> String {
        self.command("GET", &self.at("/screenshot"), None).await.as_str().unwrap_or_default().to_owned()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // End the session first, so that Chromium goes with the driver.
        if let Ok(mut socket) = std::net::TcpStream::connect(self.addr) {
            use std::io::{Read as _, Write as _};
            let _ = socket.set_read_timeout(Some(Duration::from_secs(5)));
            let request = format!(
                "DELETE /session/{} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
                self.session, self.addr
            );
            if socket.write_all(request.as_bytes()).is_ok() {
                let _ = socket.read_to_end(&mut Vec::new());
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
