//! Identifiers by role: the values a shell command takes in a role that names a thing
//! of the session (the host of `ssh`, the container of `docker exec`, the database of
//! `psql -d`, a variable it sets, a port a server listens on, an app a process manager
//! runs). Such a value has no distinctive shape (`web`, `safecast`, `3001`), so it is
//! found by where it stands, not by what it looks like. A small table of common
//! commands gives the roles; the analysis counts a value of the learnt classes as an
//! identifier only once two calls used it in its role (docs/transcripts.md).

use crate::model::TokenClass;

/// A value a command takes in a role, and the class of token it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoleValue {
    /// The value, as the command wrote it (without `user@` or `:path`).
    pub text: String,
    /// The class its role gives it.
    pub class: TokenClass,
}

/// Classes whose values are identifiers only when two calls use them in their role:
/// their shape alone says nothing.
pub(crate) fn learnt_from_use(class: TokenClass) -> bool {
    matches!(
        class,
        TokenClass::Container | TokenClass::Database | TokenClass::Variable | TokenClass::Port
    )
}

/// Environment variables every shell has: reading them is no session's identifier.
const WELL_KNOWN_VARIABLES: &[&str] = &[
    "HOME",
    "PATH",
    "USER",
    "PWD",
    "OLDPWD",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "EDITOR",
    "PAGER",
    "HOSTNAME",
    "LOGNAME",
    "DISPLAY",
    "CI",
    "DEBUG",
    "NODE_ENV",
    "PYTHONPATH",
    "GOPATH",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "CARGO_TARGET_DIR",
    "VIRTUAL_ENV",
    "TZ",
    "UID",
    "GID",
    "IFS",
    "PS1",
    "SHLVL",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
];

/// Ports every web server has: no session's identifier.
const WELL_KNOWN_PORTS: &[&str] = &["22", "80", "443"];

/// Options of `ssh` that take a value.
const SSH_VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";
/// Options of `scp` that take a value.
const SCP_VALUED: &str = "cFiJloPS";

/// The role values of a shell command. Words are split as a shell splits them; a
/// command that does not split (an open quote) gives none.
pub(crate) fn command_roles(command: &str) -> Vec<RoleValue> {
    let mut out = Vec::new();
    roles_into(command, 0, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.retain(|r| seen.insert((r.text.clone(), r.class)));
    out
}

fn roles_into(command: &str, depth: u8, out: &mut Vec<RoleValue>) {
    let Some(words) = shlex::split(command) else {
        return;
    };
    for word in &words {
        variables_read(word, out);
        local_port(word, out);
    }
    for segment in segments(&words) {
        segment_roles(&segment, depth, out);
    }
}

/// The simple commands of a command line, split at `&&`, `||`, `|` and `;`.
fn segments(words: &[String]) -> Vec<Vec<&str>> {
    let mut out = vec![Vec::new()];
    for word in words {
        let (word, ends) = match word.strip_suffix(';') {
            Some(stripped) => (stripped, true),
            None => (word.as_str(), false),
        };
        if matches!(word, "&&" | "||" | "|" | ";" | "&") {
            out.push(Vec::new());
            continue;
        }
        if let Some(last) = out.last_mut() {
            if !word.is_empty() {
                last.push(word);
            }
        }
        if ends {
            out.push(Vec::new());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn push(out: &mut Vec<RoleValue>, text: &str, class: TokenClass) {
    let ok = match class {
        TokenClass::Port => is_port(text),
        TokenClass::Variable => is_variable(text),
        TokenClass::Host => is_host(text),
        _ => is_name(text),
    };
    if ok {
        out.push(RoleValue {
            text: text.to_owned(),
            class,
        });
    }
}

/// One simple command: its prefix (`sudo`, `VAR=value`, `timeout 5`), then its program.
fn segment_roles(words: &[&str], depth: u8, out: &mut Vec<RoleValue>) {
    let mut rest = words;
    loop {
        match rest {
            [first, tail @ ..] if first.contains('=') && !first.starts_with('-') => {
                assignment(first, out);
                rest = tail;
            }
            ["export", tail @ ..] => {
                for word in tail.iter().filter(|w| w.contains('=')) {
                    assignment(word, out);
                }
                return;
            }
            ["sudo", tail @ ..] => rest = skip_options(tail, "ugCDhpRrTt"),
            ["timeout" | "nohup" | "time" | "exec" | "env", tail @ ..] => {
                rest = tail;
                if let [n, tail @ ..] = rest {
                    if n.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                        rest = tail;
                    }
                }
            }
            _ => break,
        }
    }
    let Some((&program, args)) = rest.split_first() else {
        return;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    match program {
        "ssh" => ssh(args, depth, out),
        "scp" | "rsync" | "sftp" => copy_hosts(args, out),
        "docker" | "podman" => docker(args, out),
        "docker-compose" => compose(args, out),
        "kubectl" | "oc" => kubectl(args, out),
        "psql" | "pg_dump" | "pg_restore" => db_client(&PSQL, args, out),
        "mysql" | "mysqldump" => db_client(&MYSQL, args, out),
        "createdb" | "dropdb" => {
            if let Some(db) = positionals(args, "hpUW").first() {
                push(out, db, TokenClass::Database);
            }
        }
        "pm2" => pm2(args, out),
        "printenv" | "unset" => args.iter().for_each(|a| push(out, a, TokenClass::Variable)),
        _ => {}
    }
    ports_of_options(args, out);
}

/// `NAME=value`: a variable set for the session, and a port when it is `PORT`'s.
fn assignment(word: &str, out: &mut Vec<RoleValue>) {
    let Some((name, value)) = word.split_once('=') else {
        return;
    };
    push(out, name, TokenClass::Variable);
    if name.ends_with("PORT") {
        push(out, value, TokenClass::Port);
    }
}

/// `$NAME` and `${NAME}` in a word.
fn variables_read(word: &str, out: &mut Vec<RoleValue>) {
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let braced = rest.strip_prefix('{');
        let body = braced.unwrap_or(rest);
        let end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        push(out, &body[..end], TokenClass::Variable);
        rest = &body[end..];
    }
}

/// `localhost:3001`, `127.0.0.1:8000/health`, `0.0.0.0:5173`: a port of this machine.
fn local_port(word: &str, out: &mut Vec<RoleValue>) {
    for host in ["localhost:", "127.0.0.1:", "0.0.0.0:"] {
        let mut rest = word;
        while let Some(at) = rest.find(host) {
            rest = &rest[at + host.len()..];
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            push(out, &rest[..end], TokenClass::Port);
        }
    }
}

/// `--port N`, `--port=N`, and `lsof -i :N`.
fn ports_of_options(args: &[&str], out: &mut Vec<RoleValue>) {
    for (i, arg) in args.iter().enumerate() {
        if let Some(value) = arg.strip_prefix("--port=") {
            push(out, value, TokenClass::Port);
        } else if *arg == "--port" {
            if let Some(value) = args.get(i + 1) {
                push(out, value, TokenClass::Port);
            }
        } else if let Some(value) = arg.strip_prefix("-i:").or_else(|| arg.strip_prefix(':')) {
            push(out, value, TokenClass::Port);
        }
    }
}

/// The words from the first that is no option on (`valued` lists the one-letter
/// options that take the next word).
fn skip_options<'a, 'w>(args: &'a [&'w str], valued: &str) -> &'a [&'w str] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let Some(short) = arg.strip_prefix('-') else {
            break;
        };
        i += 1;
        if short.len() == 1 && valued.contains(short) {
            i += 1;
        }
    }
    args.get(i..).unwrap_or_default()
}

/// The words after the options, skipping each option's value where it takes one
/// (`valued` lists the one-letter options that do).
fn positionals<'w>(args: &[&'w str], valued: &str) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            out.extend(args.get(i..).unwrap_or_default());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && long_takes_value(long) {
                i += 1;
            }
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-p 22` takes the next word; `-p22` and `-tt` do not.
            let mut letters = short.chars();
            if let (Some(first), None) = (letters.next(), letters.next()) {
                if valued.contains(first) {
                    i += 1;
                }
            }
        } else {
            out.push(arg);
        }
    }
    out
}

/// Long options the commands here take a value with.
fn long_takes_value(option: &str) -> bool {
    matches!(
        option,
        "dbname"
            | "username"
            | "host"
            | "port"
            | "user"
            | "workdir"
            | "env"
            | "namespace"
            | "context"
            | "file"
            | "project-name"
            | "tail"
            | "since"
            | "until"
            | "name"
            | "container"
            | "database"
            | "output"
            | "selector"
            | "lines"
    )
}

/// The value of `-x V`, `-xV`, `--long V` or `--long=V`.
fn option_value<'w>(args: &[&'w str], short: &str, long: &str) -> Option<&'w str> {
    let long_eq = format!("--{long}=");
    let long = format!("--{long}");
    let short = format!("-{short}");
    args.iter().enumerate().find_map(|(i, &arg)| {
        if arg == short || arg == long {
            args.get(i + 1).copied()
        } else if let Some(v) = arg.strip_prefix(&*long_eq) {
            Some(v)
        } else {
            arg.strip_prefix(&*short)
                .filter(|v| !v.is_empty() && short.len() == 2)
        }
    })
}

fn ssh(args: &[&str], depth: u8, out: &mut Vec<RoleValue>) {
    if let Some(port) = option_value(args, "p", "port") {
        push(out, port, TokenClass::Port);
    }
    let words = positionals(args, SSH_VALUED);
    let Some((destination, remote)) = words.split_first() else {
        return;
    };
    let destination = destination.strip_prefix("ssh://").unwrap_or(destination);
    let host = destination.rsplit('@').next().unwrap_or(destination);
    push(out, host, TokenClass::Host);
    // The remote command is a command line of its own: ssh joins its words with
    // spaces, and the remote shell splits them again.
    if depth == 0 && !remote.is_empty() {
        roles_into(&remote.join(" "), 1, out);
    }
}

/// `[user@]host:path` arguments of `scp`, `rsync` and `sftp`.
fn copy_hosts(args: &[&str], out: &mut Vec<RoleValue>) {
    for arg in positionals(args, SCP_VALUED) {
        let Some((remote, _)) = arg.split_once(':') else {
            continue;
        };
        if remote.contains('/') || remote.is_empty() {
            continue;
        }
        let host = remote.rsplit('@').next().unwrap_or(remote);
        push(out, host, TokenClass::Host);
    }
}

fn docker(args: &[&str], out: &mut Vec<RoleValue>) {
    let words = positionals(args, "eupwHc");
    match words.as_slice() {
        ["compose", ..] => compose(args.get(1..).unwrap_or_default(), out),
        ["exec" | "logs" | "restart" | "stop" | "start" | "inspect" | "rm" | "kill" | "attach"
        | "top" | "port" | "pause" | "unpause" | "stats", names @ ..] => {
            let take = if matches!(words.first(), Some(&"exec")) {
                1
            } else {
                names.len()
            };
            for name in names.iter().take(take) {
                push(out, name, TokenClass::Container);
            }
        }
        ["cp", paths @ ..] => {
            for path in paths {
                if let Some((name, _)) = path.split_once(':') {
                    push(out, name, TokenClass::Container);
                }
            }
        }
        ["run", ..] => {
            if let Some(name) = option_value(args, "-name", "name") {
                push(out, name, TokenClass::Container);
            }
        }
        _ => {}
    }
}

/// `docker compose SUBCOMMAND SERVICE…`: the services it names.
fn compose(args: &[&str], out: &mut Vec<RoleValue>) {
    let words = positionals(args, "fpeuw");
    let Some((&sub, names)) = words.split_first() else {
        return;
    };
    let take = match sub {
        "exec" | "run" => 1,
        "logs" | "restart" | "stop" | "start" | "up" | "rm" | "kill" | "build" | "pull" | "ps" => {
            names.len()
        }
        _ => 0,
    };
    for name in names.iter().take(take) {
        push(out, name, TokenClass::Container);
    }
}

fn kubectl(args: &[&str], out: &mut Vec<RoleValue>) {
    if let Some(namespace) = option_value(args, "n", "namespace") {
        push(out, namespace, TokenClass::Container);
    }
    let words = positionals(args, "ncloCf");
    let Some((&verb, rest)) = words.split_first() else {
        return;
    };
    let names: Vec<&str> = match verb {
        "logs" | "exec" | "port-forward" | "attach" => rest.iter().take(1).copied().collect(),
        "get" | "describe" | "delete" | "edit" | "scale" | "rollout" | "restart" => {
            let rest = if verb == "rollout" {
                rest.get(1..).unwrap_or_default()
            } else {
                rest
            };
            match rest {
                // `get pods` names a kind; `get deploy/api` a workload.
                [one] if one.contains('/') => vec![*one],
                [_kind, names @ ..] if !names.is_empty() => names.to_vec(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    for name in names {
        // `deployment/api` names `api`, as `deployment api` does.
        if let Some((_, name)) = name.split_once('/') {
            push(out, name, TokenClass::Container);
        } else if name.contains('.') || !name.contains('/') {
            push(out, name, TokenClass::Container);
        }
    }
}

/// How a database client names what it connects to: the short options of its port
/// and database, the long one of its database, and the one-letter options that take
/// a value (so its first other word, the database, can be found).
struct DbClient {
    port: &'static str,
    database: &'static str,
    database_long: &'static str,
    valued: &'static str,
}

const PSQL: DbClient = DbClient {
    port: "p",
    database: "d",
    database_long: "dbname",
    valued: "cdfhpUvFoTLPn",
};

const MYSQL: DbClient = DbClient {
    port: "P",
    database: "D",
    database_long: "database",
    valued: "hPuDeS",
};

/// The host, port and database of a `psql` or `mysql` command line.
fn db_client(client: &DbClient, args: &[&str], out: &mut Vec<RoleValue>) {
    if let Some(host) = option_value(args, "h", "host") {
        push(out, host, TokenClass::Host);
    }
    if let Some(port) = option_value(args, client.port, "port") {
        push(out, port, TokenClass::Port);
    }
    let database = option_value(args, client.database, client.database_long)
        .or_else(|| positionals(args, client.valued).first().copied());
    // A connection URL is read as a URL, not as a name.
    if let Some(db) = database.filter(|db| !db.contains("://")) {
        push(out, db, TokenClass::Database);
    }
}

/// `pm2 restart api`, `pm2 start server.js --name api`.
fn pm2(args: &[&str], out: &mut Vec<RoleValue>) {
    if let Some(name) = option_value(args, "n", "name") {
        push(out, name, TokenClass::Service);
    }
    let words = positionals(args, "n");
    if let ["restart" | "stop" | "delete" | "logs" | "reload" | "describe" | "show", names @ ..] =
        words.as_slice()
    {
        for name in names {
            push(out, name, TokenClass::Service);
        }
    }
}

fn is_port(text: &str) -> bool {
    (2..=5).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_digit())
        && !text.starts_with('0')
        && text.parse::<u32>().is_ok_and(|p| p <= 65_535)
        && !WELL_KNOWN_PORTS.contains(&text)
}

/// An upper-case name of three characters or more (`DATABASE_URL`, `API_KEY`): a
/// lower-case one is a shell's local, not the environment's.
fn is_variable(text: &str) -> bool {
    text.len() >= 3
        && text.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && text
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && !WELL_KNOWN_VARIABLES.contains(&text)
}

/// A machine's name or address (letters, digits, `.` and `-`) the extractor would
/// keep as a host: not loopback, nor a forge everyone pushes to (`git@github.com`).
fn is_host(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && text
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && crate::analysis::extract::is_host_to_keep(text)
}

/// A name a command takes (`web`, `safecast_prod`, `api-1`): no option, no variable,
/// no path, no placeholder.
fn is_name(text: &str) -> bool {
    (2..=128).contains(&text.len())
        && text
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenClass::{Container, Database, Host, Port, Service, Variable};

    fn roles(command: &str) -> Vec<(String, TokenClass)> {
        command_roles(command)
            .into_iter()
            .map(|r| (r.text, r.class))
            .collect()
    }

    fn of(list: &[(&str, TokenClass)]) -> Vec<(String, TokenClass)> {
        list.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect()
    }

    #[test]
    fn a_host_in_the_role_of_ssh_scp_and_rsync() {
        assert_eq!(
            roles(r#"ssh simplemap.safecast.org "sudo systemctl stop safecast-mcp""#),
            of(&[("simplemap.safecast.org", Host)])
        );
        assert_eq!(
            roles("scp mcp-server root@65.108.24.131:/root/srv/mcp.new"),
            of(&[("65.108.24.131", Host)])
        );
        assert_eq!(
            roles("ssh -i ~/.ssh/key -p 2222 deploy@cdn.example.com uptime"),
            of(&[("2222", Port), ("cdn.example.com", Host)])
        );
        assert_eq!(
            roles("rsync -az dist/ web1:/srv/app/"),
            of(&[("web1", Host)])
        );
    }

    #[test]
    fn a_remote_command_is_read_for_roles_too() {
        assert_eq!(
            roles(r#"ssh root@10.0.0.5 'sudo -u postgres psql -d safecast -c "select 1"'"#),
            of(&[("10.0.0.5", Host), ("safecast", Database)])
        );
    }

    #[test]
    fn containers_databases_apps_and_variables() {
        assert_eq!(
            roles("docker exec -it -e X=1 adelie-backend-1 python manage.py"),
            of(&[("adelie-backend-1", Container)])
        );
        assert_eq!(
            roles("docker compose -f prod.yml logs --tail 50 api worker"),
            of(&[("api", Container), ("worker", Container)])
        );
        assert_eq!(
            roles("kubectl get pods -n payments && kubectl get deploy/api"),
            of(&[("payments", Container), ("api", Container)])
        );
        assert_eq!(
            roles("kubectl -n payments logs deploy/checkout"),
            of(&[("payments", Container), ("checkout", Container)])
        );
        assert_eq!(
            roles("PGPASSWORD=x psql -h db.internal -U app -d orders_prod -c 'select 1'"),
            of(&[
                ("PGPASSWORD", Variable),
                ("db.internal", Host),
                ("orders_prod", Database)
            ])
        );
        assert_eq!(
            roles("pm2 restart chkit-api && pm2 logs chkit-api --lines 20"),
            of(&[("chkit-api", Service)])
        );
        assert_eq!(
            roles("export OPENAI_API_KEY=sk && echo $DATABASE_URL ${HOME}"),
            of(&[("DATABASE_URL", Variable), ("OPENAI_API_KEY", Variable)])
        );
    }

    #[test]
    fn ports_a_server_takes_or_a_probe_asks() {
        assert_eq!(
            roles("PORT=3001 npm run dev"),
            of(&[("PORT", Variable), ("3001", Port)])
        );
        assert_eq!(
            roles("curl -s http://localhost:8765/health"),
            of(&[("8765", Port)])
        );
        assert_eq!(
            roles("uvicorn app:api --port 8000 && lsof -i :8000"),
            of(&[("8000", Port)])
        );
        assert!(roles("curl https://localhost:443/").is_empty());
    }

    #[test]
    fn no_role_in_what_is_not_a_name() {
        for command in [
            "ssh",
            "docker exec",
            "docker ps -a",
            "echo $1 $x",
            "psql postgres://u@h/db",
            "cat 'open",
            "ssh -o ConnectTimeout=5",
            "ssh -T git@github.com",
        ] {
            assert!(roles(command).is_empty(), "{command}: {:?}", roles(command));
        }
    }
}
