//! A real `nats-server` with JetStream, started by the test on a free loopback port
//! with a store folder of its own, and stopped when dropped.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct NatsServer {
    bin: PathBuf,
    child: Child,
    pub port: u16,
    store: tempfile::TempDir,
}

/// The server binary: `$CTXLENS_NATS_SERVER`, or `nats-server` on the PATH, at least
/// 2.10 (the client speaks its JetStream API). `None` prints why the test is skipped.
fn server_binary(test: &str) -> Option<PathBuf> {
    let bin = std::env::var_os("CTXLENS_NATS_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("nats-server"));
    let version = Command::new(&bin).arg("--version").output().ok();
    let text = version
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let Some(text) = text else {
        super::skip(
            test,
            "no nats-server (install it with scripts/install-nats-server)",
        );
        return None;
    };
    let numbers: Vec<u32> = text
        .trim()
        .rsplit('v')
        .next()
        .unwrap_or("")
        .split('.')
        .filter_map(|n| n.parse().ok())
        .collect();
    if numbers.as_slice() < [2, 10].as_slice() {
        super::skip(
            test,
            &format!(
                "{} is older than 2.10 (install a newer one with scripts/install-nats-server)",
                text.trim()
            ),
        );
        return None;
    }
    Some(bin)
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts a server on `port` and waits until it listens. `None` when it exited instead:
/// another test's server took the port between `free_port` and this start, and what
/// answered on it was that one (tests run at once, each with a server of its own).
fn spawn(bin: &Path, port: u16, store: &Path, jetstream: bool) -> Option<Child> {
    let mut command = Command::new(bin);
    command.args(["-a", "127.0.0.1", "-p", &port.to_string()]);
    if jetstream {
        command.arg("-js").arg("-sd").arg(store);
    }
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server starts");
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nats-server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // A server that could not take the port exits as it tries to: past that moment
    // and still running, it is the one listening.
    std::thread::sleep(Duration::from_millis(200));
    match child.try_wait() {
        Ok(None) => Some(child),
        _ => None,
    }
}

impl NatsServer {
    /// A server for `test`, or `None` (with a skip notice) when none is installed.
    pub fn start(test: &str) -> Option<NatsServer> {
        NatsServer::start_with(test, true)
    }

    fn start_with(test: &str, jetstream: bool) -> Option<NatsServer> {
        let bin = server_binary(test)?;
        let store = tempfile::tempdir().unwrap();
        for _ in 0..5 {
            let port = free_port();
            if let Some(child) = spawn(&bin, port, store.path(), jetstream) {
                return Some(NatsServer {
                    bin,
                    child,
                    port,
                    store,
                });
            }
        }
        panic!("nats-server found no free port in five tries");
    }

    /// A server of the same binary with JetStream off (`-js` left out).
    pub fn start_without_jetstream(test: &str) -> Option<NatsServer> {
        NatsServer::start_with(test, false)
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// `kill -9`: no chance to flush anything.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.kill();
        self.child = spawn(&self.bin, self.port, self.store.path(), true)
            .expect("nats-server starts again on its port");
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Three `nats-server`s with JetStream routed to each other on loopback, each with a
/// store folder of its own: a cluster as operators run one.
pub struct NatsCluster {
    bin: PathBuf,
    pub nodes: Vec<Node>,
    /// One cluster at a time: three servers and their elections per test, side by
    /// side on two cores, made elections slower than the tests wait for.
    _one_at_a_time: std::sync::MutexGuard<'static, ()>,
}

static ONE_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub struct Node {
    pub name: String,
    child: Option<Child>,
    pub port: u16,
    cluster_port: u16,
    store: tempfile::TempDir,
}

fn spawn_node(bin: &Path, node: &Node, routes: &str) -> Child {
    Command::new(bin)
        .args(["-js", "-a", "127.0.0.1", "-p", &node.port.to_string()])
        .args(["-n", &node.name, "--cluster_name", "ctxlens-test"])
        .args([
            "--cluster",
            &format!("nats://127.0.0.1:{}", node.cluster_port),
        ])
        .args(["--routes", routes, "-sd"])
        .arg(node.store.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server starts")
}

impl NatsCluster {
    /// A cluster of `size` servers for `test`, or `None` (with a skip notice) when no
    /// server is installed.
    pub fn start(test: &str, size: usize) -> Option<NatsCluster> {
        let bin = server_binary(test)?;
        // A test that failed while it held the lock poisoned it; the next may go on.
        let one_at_a_time = ONE_CLUSTER
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let nodes: Vec<Node> = (0..size)
            .map(|i| Node {
                name: format!("n{i}"),
                child: None,
                port: free_port(),
                cluster_port: free_port(),
                store: tempfile::tempdir().unwrap(),
            })
            .collect();
        let mut cluster = NatsCluster {
            bin,
            nodes,
            _one_at_a_time: one_at_a_time,
        };
        for i in 0..size {
            cluster.start_node(i);
        }
        for node in &cluster.nodes {
            let started = Instant::now();
            while TcpStream::connect(("127.0.0.1", node.port)).is_err() {
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "{} did not listen",
                    node.name
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Some(cluster)
    }

    fn routes(&self) -> String {
        self.nodes
            .iter()
            .map(|n| format!("nats://127.0.0.1:{}", n.cluster_port))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn start_node(&mut self, i: usize) {
        let routes = self.routes();
        let child = spawn_node(&self.bin, &self.nodes[i], &routes);
        self.nodes[i].child = Some(child);
    }

    /// Every node's client URL, separated by commas, as `--nats` takes them.
    pub fn urls(&self) -> String {
        self.nodes
            .iter()
            .map(|n| format!("nats://127.0.0.1:{}", n.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The process ids of the nodes that run.
    pub fn pids(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter_map(|n| n.child.as_ref().map(Child::id))
            .collect()
    }

    /// `kill -9` the node named `name`.
    pub fn kill(&mut self, name: &str) {
        for node in &mut self.nodes {
            if node.name == name {
                if let Some(mut child) = node.child.take() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
    }

    /// Starts the node named `name` again on its ports and store.
    pub fn restart(&mut self, name: &str) {
        self.kill(name);
        if let Some(i) = self.nodes.iter().position(|n| n.name == name) {
            self.start_node(i);
        }
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        let names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        for name in names {
            self.kill(&name);
        }
    }
}

/// The local port of the server process `pid` has a connection open to, among
/// `ports`: its sockets (`/proc/PID/fd`) looked up in the kernel's TCP table. `None`
/// where there is no `/proc`.
pub fn connected_port(pid: u32, ports: &[u16]) -> Option<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|table| table.lines().skip(1).map(str::to_owned).collect::<Vec<_>>())
        .find_map(|row| {
            let fields: Vec<&str> = row.split_whitespace().collect();
            let (remote, inode) = (fields.get(2)?, fields.get(9)?);
            let port = u16::from_str_radix(remote.rsplit(':').next()?, 16).ok()?;
            (inodes.iter().any(|i| i == inode) && ports.contains(&port)).then_some(port)
        })
}

/// The outputs of deciders that raced on one compaction: exactly one recorded its
/// decision (exit 0), and every other was told that one (exit 1). Returns it.
pub fn the_one_standing_decision(outputs: &[std::process::Output]) -> serde_json::Value {
    let winners: Vec<_> = outputs
        .iter()
        .filter(|o| o.status.code() == Some(0))
        .collect();
    assert_eq!(winners.len(), 1, "exactly one decision stands");
    let standing: serde_json::Value = serde_json::from_slice(&winners[0].stdout).unwrap();
    for out in outputs.iter().filter(|o| o.status.code() != Some(0)) {
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let told: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(told, standing, "every other decider is told which stands");
    }
    standing
}
