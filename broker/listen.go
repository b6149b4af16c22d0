package broker

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultListen is where real clients reach the lab unless told otherwise:
// the port every NATS tool tries first, on loopback only.
const DefaultListen = "127.0.0.1:4222"

// listenSpec is a parsed --listen value.
type listenSpec struct {
	none     bool   // in-process only
	host     string // an IP or host name
	port     int    // 0 means any free port
	fallback bool   // the default: a busy port moves to a free one
}

// parseListen understands "none", "HOST:PORT", ":PORT" and "PORT".
func parseListen(s string) (listenSpec, error) {
	switch strings.TrimSpace(s) {
	case "":
		return listenSpec{host: "127.0.0.1", port: 4222, fallback: true}, nil
	case "none", "off":
		return listenSpec{none: true}, nil
	}
	host, portStr, err := net.SplitHostPort(s)
	if err != nil {
		// A bare port number is a loopback port.
		if p, perr := strconv.Atoi(s); perr == nil {
			host, portStr = "127.0.0.1", strconv.Itoa(p)
		} else {
			return listenSpec{}, fmt.Errorf("--listen %q: want HOST:PORT (for example 127.0.0.1:4222), a port, or none", s)
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return listenSpec{}, fmt.Errorf("--listen %q: the port must be a number from 0 to 65535", s)
	}
	return listenSpec{host: host, port: port}, nil
}

// loopback reports whether clients can only reach host from this machine.
func (l listenSpec) loopback() bool {
	if l.none {
		return true
	}
	if strings.EqualFold(l.host, "localhost") {
		return true
	}
	ip := net.ParseIP(l.host)
	return ip != nil && ip.IsLoopback()
}

// portFree reports whether a TCP listener can bind host:port right now.
func portFree(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
