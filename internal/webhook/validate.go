package webhook

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// CheckURL is the configuration-time check of a webhook url: https, a
// host, no user info; unless private destinations are allowed, no literal
// non-public address and no localhost name. Names are checked again, after
// DNS, at every dial.
func CheckURL(raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "must be an absolute https:// URL"
	}
	if u.Scheme != "https" {
		return "must use https://"
	}
	if u.User != nil {
		return "must not carry user information"
	}
	if allowPrivate {
		return ""
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "must not point at loopback"
	}
	if ip, err := netip.ParseAddr(host); err == nil && !public(ip) {
		return "must not point at a loopback, private, link-local or metadata address"
	}
	return ""
}

func public(ip netip.Addr) bool {
	a := net.IP(ip.AsSlice())
	return !(a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || ip.Is4() && ip.As4()[0] == 100 && ip.As4()[1]&0xc0 == 64)
}
