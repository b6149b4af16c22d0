package broker

import (
	"net"
	"strconv"
	"strings"
)

// Access is how real clients reach a deployment, for showing to people:
// where to connect from this machine, where from a room, and what a client
// must present. Nothing in it is a secret.
type Access struct {
	// Local is the URL that works on this machine; "" when nothing outside
	// the process can connect (--listen none).
	Local string
	// Room lists the URLs other machines use: the listener's addresses
	// beyond loopback (every address of this host's for 0.0.0.0). Empty
	// for a loopback listener.
	Room []string
	// Needs says what a client must present: NeedsToken, NeedsUserPassword,
	// NeedsCreds, or "" for nothing.
	Needs string
	// User is the user name that goes with NeedsUserPassword, when the lab
	// knows it (a user name is not a secret; its password is).
	User string
}

// What clients must present, as Access.Needs says it.
const (
	NeedsToken        = "a token"
	NeedsUserPassword = "a user and password"
	NeedsCreds        = "a credentials file"
)

// URL is the one address to show where there is room for one: the room's,
// when there is a room, else this machine's.
func (a Access) URL() string {
	if len(a.Room) > 0 {
		return a.Room[0]
	}
	return a.Local
}

// Needed is the short remark that goes after a URL: "token needed",
// "user and password needed"…, or "".
func (a Access) Needed() string {
	if a.Needs == "" {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(a.Needs, "a "), "an ") + " needed"
}

// Flags are what to add to a nats command line for it, with the secret
// left for the person to type: "--token …", "--user alice --password …".
func (a Access) Flags() string {
	switch a.Needs {
	case NeedsToken:
		return "--token …"
	case NeedsUserPassword:
		user := a.User
		if user == "" {
			user = "…"
		}
		return "--user " + user + " --password …"
	case NeedsCreds:
		return "--creds FILE"
	}
	return ""
}

// Access implements Deployment.
func (s *Server) Access() Access {
	a := Access{Local: s.ClientURL()}
	if a.Local == "" {
		return Access{}
	}
	switch {
	case s.opts.Token != "":
		a.Needs = NeedsToken
	case s.opts.User != "":
		a.Needs, a.User = NeedsUserPassword, s.opts.User
	}
	s.mu.Lock()
	port := s.port
	if s.cluster != nil {
		port = s.cluster.nodes[0].port // only n1 listens where --listen says
	}
	s.mu.Unlock()
	for _, host := range roomHosts(s.listen.host) {
		a.Room = append(a.Room, "nats://"+net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return a
}

// roomHosts are the addresses other machines reach a listener on host by:
// none for loopback; for an unspecified address (0.0.0.0, ::), this
// host's own addresses, IPv4 first (a 0.0.0.0 listener takes IPv4 only);
// any other host as it was given.
func roomHosts(host string) []string {
	ip := net.ParseIP(host)
	switch {
	case strings.EqualFold(host, "localhost"), ip != nil && ip.IsLoopback():
		return nil
	case ip == nil || !ip.IsUnspecified():
		return []string{host}
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var v4, v6 []string
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, addr := range addrs {
			n, ok := addr.(*net.IPNet)
			if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsMulticast() {
				continue
			}
			if n.IP.To4() != nil {
				v4 = append(v4, n.IP.String())
			} else if ip.To4() == nil { // "::" takes IPv6 as well
				v6 = append(v6, n.IP.String())
			}
		}
	}
	return append(v4, v6...)
}

// Access implements Deployment: the URL as given (user info masked), and
// what the lab presents to it.
func (e *External) Access() Access {
	a := Access{Local: e.ClientURL()}
	switch {
	case e.opts.Creds != "":
		a.Needs = NeedsCreds
	case e.opts.User != "":
		a.Needs, a.User = NeedsUserPassword, e.opts.User
	case e.opts.Token != "":
		a.Needs = NeedsToken
	}
	// User info in the URL shows in it, masked: alice:xxxxx@, xxxxx@.
	return a
}
