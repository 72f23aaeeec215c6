package report

import (
	"net"
	"strings"
)

// Hosts are the Host headers serve answers: the host of --addr and the
// localhost forms (localhost, 127.0.0.1, [::1]), each with the port it
// listens on. Any other name gets 421: a page that rebinds its own DNS
// name to 127.0.0.1 (DNS rebinding) sends that name, so it cannot read
// the store through the user's browser. When --addr binds every address
// (0.0.0.0, [::] or no host), the machine's own addresses count as its
// hosts: an IP literal is never a rebound name.
type Hosts struct {
	names map[string]bool // lower-case, without the port
	port  string
}

// NewHosts derives the answered hosts from addr (the --addr flag) and
// bound, the address the listener got (its port, when addr asked for 0).
func NewHosts(addr string, bound net.Addr) Hosts {
	h := Hosts{names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}}
	if _, p, err := net.SplitHostPort(bound.String()); err == nil {
		h.port = p
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					h.names[n.IP.String()] = true
				}
			}
		}
	} else if ip != nil {
		h.names[ip.String()] = true
	} else {
		h.names[host] = true
	}
	return h
}

// Allow reports whether a request's Host header names this server.
func (h Hosts) Allow(hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		host, port = hostHeader, "80" // no port: HTTP's default
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return h.names[host] && port == h.port
}
