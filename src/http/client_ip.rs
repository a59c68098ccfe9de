//! The client's IP: the socket peer, or, when the peer is a trusted proxy, the right-most
//! address of `X-Forwarded-For` that is not itself a trusted proxy.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use ipnet::IpNet;

#[derive(Clone, Copy, Debug)]
pub struct ClientIp {
    pub ip: IpAddr,
    /// The request carried a forwarding header (whether believed or not).
    pub forwarded: bool,
    /// The TCP peer is a loopback address.
    pub peer_is_loopback: bool,
    /// The request reached us over https (told by a trusted proxy's `X-Forwarded-Proto`, or by
    /// an https `base_url` whose host the request names: see `http::middleware`).
    pub https: bool,
}

impl ClientIp {
    /// What the per-address rate limits count for this client.
    pub fn rate_key(&self) -> crate::ratelimit::RateKey {
        self.ip.into()
    }
}

const FORWARDING_HEADERS: [&str; 4] = ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"];

pub fn resolve(peer: SocketAddr, headers: &HeaderMap, trusted: &[IpNet]) -> ClientIp {
    let peer_ip = canonical(peer.ip());
    let forwarded = FORWARDING_HEADERS.iter().any(|h| headers.contains_key(*h));
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    let mut ip = peer_ip;
    let mut https = false;
    if is_trusted(&peer_ip) {
        https = headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
        let hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|s| s.trim().parse::<IpAddr>().ok())
            .map(canonical)
            .collect::<Vec<_>>();
        for hop in hops.iter().rev() {
            ip = *hop;
            if !is_trusted(hop) {
                break;
            }
        }
    }
    ClientIp { ip, forwarded, peer_is_loopback: peer_ip.is_loopback(), https }
}

pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// The IP with its host part dropped: IPv4 to /24, IPv6 to /48 (what logs keep by default).
pub fn anonymize(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            format!("{}.{}.{}.0", o[0], o[1], o[2])
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}::", s[0], s[1], s[2])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_str(xff).unwrap());
        h
    }

    #[test]
    fn untrusted_peer_is_the_client_even_with_xff() {
        let c = resolve("203.0.113.9:5000".parse().unwrap(), &headers("1.2.3.4"), &[]);
        assert_eq!(c.ip.to_string(), "203.0.113.9");
        assert!(c.forwarded);
    }

    #[test]
    fn trusted_proxy_takes_rightmost_untrusted_hop() {
        let trusted = vec!["10.0.0.0/8".parse().unwrap()];
        let c = resolve("10.0.0.2:5000".parse().unwrap(), &headers("6.6.6.6, 1.2.3.4, 10.0.0.7"), &trusted);
        assert_eq!(c.ip.to_string(), "1.2.3.4");
    }

    #[test]
    fn anonymizes_v4_and_v6() {
        assert_eq!(anonymize("192.0.2.77".parse().unwrap()), "192.0.2.0");
        assert_eq!(anonymize("2001:db8:1:2:3::9".parse().unwrap()), "2001:db8:1::");
    }
}
