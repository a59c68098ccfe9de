//! No client input may produce a 500: every endpoint of the OpenAPI document, with every
//! method, odd path parameters and hostile bodies, with and without admin access.

use crate::common::{Server, admin_key, client, json};
use reqwest::StatusCode;

const BODIES: &[&str] = &[
    "",
    "{",
    "null",
    "[]",
    "\"just a string\"",
    "{\"key\": null, \"username\": 5, \"password\": {}, \"role\": [\"admin\"], \"isActive\": \"yes\"}",
    "{\"userId\": 99999999999999999999999, \"rating\": 1e400, \"itemId\": -1, \"itemType\": \"command\"}",
    "{\"banner\": {\"backgroundColor\": \"#zzzzzz\"}}",
    "{\"username\": \"\\u0000\\u202e\", \"password\": \"\\ud800\"}",
];

const PARAMS: &[&str] = &["1", "0", "-1", "99999999999999999999", "abc", "%00", "%2e%2e", "1.5", "%F0%9F%92%A9"];

#[tokio::test]
async fn no_hostile_request_gets_a_500() {
    // With a phrase set, the phrase endpoints do their real work instead of answering 503.
    // Roblox lookups go to the fake: a well-formed name is then found or not (2xx/404), never
    // a 502 for an internet this test does not have.
    let roblox = crate::common::fake_roblox::FakeRoblox::start();
    let template = roblox.template();
    let server = Server::with_env(&[
        ("FANHUB_ADMIN_PHRASE", "a phrase nobody guesses"),
        ("FANHUB_ROBLOX_API", template.as_str()),
    ]);
    let key = admin_key(&server);
    let c = client();
    // The admin half of the sweep is only that if the key is accepted, before and after it.
    let admin_accepted =
        || async { c.get(server.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap().status() };
    assert_eq!(admin_accepted().await, StatusCode::OK, "the admin key is accepted before the sweep");
    let doc = json(c.get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    let paths: Vec<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    assert!(paths.len() > 30, "{} paths", paths.len());
    let mut deep = String::new();
    for _ in 0..2000 {
        deep.push('[');
    }
    let mut checked = 0;
    let mut past_the_admin_guard = 0;
    for template in &paths {
        let params: &[&str] = if template.contains('{') { PARAMS } else { &[""] };
        for param in params {
            // Revoking key 1 would revoke the key this sweep uses; every other id is fair game.
            if template == "/api/admin/keys/{id}" && *param == "1" {
                continue;
            }
            let path = template
                .split('/')
                .map(|seg| if seg.starts_with('{') { *param } else { seg })
                .collect::<Vec<_>>()
                .join("/");
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
                for body in BODIES.iter().copied().chain([deep.as_str()]) {
                    for admin in [false, true] {
                        let mut req = c
                            .request(method.parse().unwrap(), server.url(&path))
                            .header("content-type", "application/json")
                            .body(body.to_string());
                        if admin {
                            req = req.header("x-admin-key", &key);
                        }
                        let status = req.send().await.unwrap().status();
                        assert!(status.as_u16() < 500, "{method} {path} body {body:.40} admin={admin}: {status}");
                        checked += 1;
                        if admin && path.starts_with("/api/admin/") && ![401, 403].contains(&status.as_u16()) {
                            past_the_admin_guard += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked} requests");
    assert!(past_the_admin_guard > 100, "only {past_the_admin_guard} admin requests got past the guard");
    assert_eq!(admin_accepted().await, StatusCode::OK, "the admin key is still accepted after the sweep");
    let health = json(c.get(server.url("/api/health")).send().await.unwrap()).await;
    assert_eq!(health["status"], "ok", "still healthy after the barrage");
}

mod slow_clients {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    use crate::common::{Launch, Server, client};

    fn launch(args: &[&str]) -> Server {
        Server::launch(Launch { args: args.iter().map(|a| a.to_string()).collect(), ..Default::default() })
    }

    /// What the server sent before closing the connection or `wait` passing (None: it neither
    /// answered nor closed in time).
    fn read_until_close(stream: &mut TcpStream, wait: Duration) -> Option<String> {
        stream.set_read_timeout(Some(wait)).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                    return Some(String::from_utf8_lossy(&got).into_owned());
                }
                Err(_) => return None,
            }
        }
    }

    /// The first bytes the server answers within `wait`, or None.
    fn first_answer(stream: &mut TcpStream, wait: Duration) -> Option<String> {
        stream.set_read_timeout(Some(wait)).unwrap();
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(n) if n > 0 => Some(String::from_utf8_lossy(&buf[..n]).into_owned()),
            _ => None,
        }
    }

    #[test]
    fn a_client_sending_half_a_header_is_disconnected_after_the_read_timeout() {
        let server = launch(&["--read-timeout-secs", "1"]);
        let started = Instant::now();
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ").unwrap();
        let closed = read_until_close(&mut stream, Duration::from_secs(8));
        assert!(closed.is_some(), "still open after 8 s");
        assert!(started.elapsed() < Duration::from_secs(5), "closed after {:?}", started.elapsed());

        let mut idle = TcpStream::connect(server.addr()).unwrap();
        idle.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let answer = first_answer(&mut idle, Duration::from_secs(5)).expect("an answer");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            read_until_close(&mut idle, Duration::from_secs(8)).is_some(),
            "an idle keep-alive connection is closed"
        );
    }

    #[tokio::test]
    async fn connections_over_the_cap_wait_and_the_cap_is_logged() {
        let server =
            launch(&["--max-connections", "2", "--max-connections-per-address", "2", "--read-timeout-secs", "30"]);
        let holders: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(server.addr()).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(300));
        let mut third = TcpStream::connect(server.addr()).unwrap();
        third.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
        assert_eq!(first_answer(&mut third, Duration::from_millis(1500)), None, "answered over the cap");
        let log = server.stderr();
        assert_eq!(log.matches("the cap (--max-connections)").count(), 1, "{log}");
        drop(holders);
        let answer = first_answer(&mut third, Duration::from_secs(5)).expect("answered once a connection closed");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        let res = client().get(server.url("/api/health")).send().await.unwrap();
        assert!(res.status().is_success());
    }

    /// A connection to `server` from the loopback address `from` (127.0.0.2, ...), as a blocking stream.
    async fn connect_from(server: &Server, from: &str) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        let stream = socket.connect(server.addr().parse().unwrap()).await.unwrap().into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        stream
    }

    const HEALTH: &[u8] = b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

    /// Sends a sign-in's headers announcing `length` bytes of body, and `sent` of them.
    fn start_login(stream: &mut TcpStream, length: usize, sent: &[u8], extra_headers: &str) {
        let head = format!(
            "POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra_headers}Content-Length: {length}\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(sent).unwrap();
    }

    #[tokio::test]
    async fn a_body_trickled_a_byte_every_2_s_is_answered_408_and_closed_within_30_s() {
        let server = launch(&[]);
        let mut slow = connect_from(&server, "127.0.0.1").await;
        start_login(&mut slow, 60_000, b"{", "");
        let started = Instant::now();
        let mut trickle = slow.try_clone().unwrap();
        let feeder = std::thread::spawn(move || {
            for _ in 0..20 {
                std::thread::sleep(Duration::from_secs(2));
                if trickle.write_all(b" ").is_err() {
                    return;
                }
            }
        });
        let answer = tokio::task::spawn_blocking(move || read_until_close(&mut slow, Duration::from_secs(40)))
            .await
            .unwrap()
            .expect("answered and closed");
        let took = started.elapsed();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("The request body arrived too slowly."), "{answer}");
        assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
        assert!(took >= Duration::from_secs(9) && took < Duration::from_secs(30), "cut off after {took:?}");
        feeder.join().unwrap();
        let res = client().get(server.url("/api/health")).send().await.unwrap();
        assert!(res.status().is_success());
    }

    #[tokio::test]
    async fn an_upload_at_200_kb_a_second_is_read_whole() {
        // The pace of the server, scaled: 2 s of grace; the upload takes 5 s at 200 KB a second.
        let server = launch(&["--read-timeout-secs", "2"]);
        let boundary = "fanhubpace";
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"websiteUrl\"\r\n\r\nhttps://pace.example\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"big.png\"\r\nContent-Type: image/png\r\n\r\n"
        )
        .into_bytes();
        body.extend(std::iter::repeat_n(b'x', 1_000_000));
        body.extend(format!("\r\n--{boundary}--\r\n").into_bytes());
        let mut stream = connect_from(&server, "127.0.0.1").await;
        let head = format!(
            "POST /api/advertise HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let started = Instant::now();
        let answer = tokio::task::spawn_blocking(move || {
            stream.write_all(head.as_bytes()).unwrap();
            for chunk in body.chunks(20_000) {
                stream.write_all(chunk).unwrap();
                std::thread::sleep(Duration::from_millis(100));
            }
            read_until_close(&mut stream, Duration::from_secs(10))
        })
        .await
        .unwrap()
        .expect("an answer");
        assert!(started.elapsed() >= Duration::from_secs(4), "the upload took {:?}", started.elapsed());
        let status = answer.get(9..12).unwrap_or_default().to_string();
        assert_ne!(status, "408", "{answer}");
        assert!(status.starts_with('4') || status.starts_with('2'), "the form was read and judged: {answer}");
    }

    /// The third review's reproduction, scaled: four addresses fill every connection with large
    /// answers they never read (a tiny receive window, requests pipelined far past the kernel's
    /// buffers); a fifth address is still answered within seconds, not never.
    #[tokio::test]
    async fn clients_that_never_read_their_answers_cannot_hold_every_connection() {
        let server = launch(&["--max-connections", "8", "--read-timeout-secs", "2"]);
        let mut hoarders = Vec::new();
        for n in 2..6 {
            for _ in 0..2 {
                let socket = tokio::net::TcpSocket::new_v4().unwrap();
                socket.set_recv_buffer_size(1024).unwrap();
                socket.bind(format!("127.0.0.{n}:0").parse().unwrap()).unwrap();
                let stream = socket.connect(server.addr().parse().unwrap()).await.unwrap().into_std().unwrap();
                stream.set_nonblocking(false).unwrap();
                let mut writer = stream.try_clone().unwrap();
                // Fifty requests for the API document (a few hundred KB each), never read.
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        if writer.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n").is_err() {
                            return;
                        }
                    }
                });
                hoarders.push(stream);
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let started = Instant::now();
        let mut fifth = connect_from(&server, "127.0.0.6").await;
        fifth.write_all(HEALTH).unwrap();
        let answer = tokio::task::spawn_blocking(move || first_answer(&mut fifth, Duration::from_secs(20)))
            .await
            .unwrap()
            .expect("a fifth address is answered while the others never read");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(15), "answered after {:?}", started.elapsed());
        drop(hoarders);
    }

    #[tokio::test]
    async fn one_address_holds_a_quarter_of_the_connections_and_others_still_get_in() {
        // The review's reproduction: 8 connections at most, one address trickling sign-in bodies.
        let server = launch(&["--max-connections", "8"]);
        let mut held = Vec::new();
        for _ in 0..2 {
            let mut s = connect_from(&server, "127.0.0.1").await;
            start_login(&mut s, 60_000, b"{", "");
            held.push(s);
        }
        let mut refused = Vec::new();
        for _ in 0..6 {
            let mut s = connect_from(&server, "127.0.0.1").await;
            s.write_all(HEALTH).unwrap();
            refused.push(read_until_close(&mut s, Duration::from_secs(5)).expect("answered at once"));
        }
        for answer in &refused {
            assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
            assert!(answer.contains("At most 2 connections at once from one address."), "{answer}");
            assert!(answer.to_ascii_lowercase().contains("retry-after:"), "{answer}");
        }
        for other in ["127.0.0.2", "127.0.0.3"] {
            let mut s = connect_from(&server, other).await;
            s.write_all(HEALTH).unwrap();
            let answer = first_answer(&mut s, Duration::from_secs(2)).expect("another address is answered at once");
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        }
        drop(held);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut again = connect_from(&server, "127.0.0.1").await;
        again.write_all(HEALTH).unwrap();
        let answer = first_answer(&mut again, Duration::from_secs(2)).expect("answered once its connections closed");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }

    #[tokio::test]
    async fn through_a_trusted_proxy_requests_are_counted_by_the_address_it_forwards() {
        let server = launch(&["--trusted-proxy", "127.0.0.1/32", "--max-connections-per-address", "1"]);
        let mut first = connect_from(&server, "127.0.0.1").await;
        start_login(&mut first, 60_000, b"{", "X-Forwarded-For: 203.0.113.5\r\n");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let forwarded =
            |who: &str| client().get(server.url("/api/health")).header("x-forwarded-for", who.to_string()).send();
        let same = forwarded("203.0.113.5").await.unwrap();
        assert_eq!(
            same.status(),
            reqwest::StatusCode::TOO_MANY_REQUESTS,
            "the proxy's connections are not capped, its client is"
        );
        assert_eq!(
            forwarded("203.0.113.6").await.unwrap().status(),
            reqwest::StatusCode::OK,
            "another client of the proxy"
        );
        drop(first);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(forwarded("203.0.113.5").await.unwrap().status(), reqwest::StatusCode::OK, "its request ended");
    }

    #[tokio::test]
    async fn an_advertisement_over_a_limit_is_refused_before_its_body_is_read() {
        let server = launch(&[]);
        let headers = |length: usize| {
            format!(
                "POST /api/advertise HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: {length}\r\n\r\n"
            )
        };
        let mut huge = TcpStream::connect(server.addr()).unwrap();
        huge.write_all(headers(7 * 1024 * 1024).as_bytes()).unwrap();
        let answer = first_answer(&mut huge, Duration::from_secs(5)).expect("answered without the body");
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

        for _ in 0..5 {
            let form = reqwest::multipart::Form::new().text("websiteUrl", "https://a.example");
            let res = client().post(server.url("/api/advertise")).multipart(form).send().await.unwrap();
            assert_eq!(res.status(), reqwest::StatusCode::BAD_REQUEST);
        }
        let mut sixth = TcpStream::connect(server.addr()).unwrap();
        sixth.write_all(headers(1024 * 1024).as_bytes()).unwrap();
        let answer = first_answer(&mut sixth, Duration::from_secs(5)).expect("answered without the body");
        assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
        assert!(answer.to_ascii_lowercase().contains("retry-after:"), "{answer}");
    }
}

/// serde reads a struct from a JSON array by position; every body of the API must be an object, so
/// `["bob", "secret"]` is a 400 and never a sign-in or a key named "name". Driven by the document, so
/// a new route with a JSON body is covered by being in it.
#[tokio::test]
async fn json_bodies_must_be_objects() {
    let server = Server::start();
    let c = crate::common::browser(&server);
    let res = c
        .post(server.url("/api/auth/register"))
        .json(&serde_json::json!({"username": "array_bob", "password": "a long enough password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED, "the object form registers");
    for (path, body) in [
        ("/api/auth/login", r#"["array_bob", "a long enough password"]"#),
        ("/api/auth/register", r#"["array_eve", "a long enough password"]"#),
        ("/api/generate-key", r#"["name"]"#),
        ("/api/generate-key", r#""name""#),
        ("/api/auth/login", "42"),
    ] {
        let res = c.post(server.url(path)).header("content-type", "application/json").body(body).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{path} {body}");
        let err = json(res).await;
        assert!(err["message"].as_str().unwrap().contains("JSON object"), "{path} {body}: {err}");
    }
    // The array did not sign in: the session is still anonymous.
    let me = c.get(server.url("/api/auth/user")).send().await.unwrap();
    assert_eq!(me.status(), StatusCode::UNAUTHORIZED);

    // Every operation that takes a JSON body refuses an array, with the admin key at hand so that
    // admin routes reach their body.
    let key = admin_key(&server);
    let doc = json(c.get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["post", "put", "patch", "delete"] {
            let Some(op) = item.get(method) else { continue };
            if op["requestBody"]["content"].get("application/json").is_none() {
                continue;
            }
            let url = server.url(
                &path.split('/').map(|seg| if seg.starts_with('{') { "1" } else { seg }).collect::<Vec<_>>().join("/"),
            );
            let res = c
                .request(method.to_uppercase().parse().unwrap(), &url)
                .header("x-admin-key", &key)
                .header("content-type", "application/json")
                .body(r#"["x", 1]"#)
                .send()
                .await
                .unwrap();
            assert!(!res.status().is_success(), "{method} {path} took an array: {}", res.status());
            assert!(res.status().as_u16() < 500, "{method} {path}: {}", res.status());
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} operations take a JSON body");
}
