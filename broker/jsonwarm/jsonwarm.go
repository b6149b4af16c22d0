// Package jsonwarm has encoding/json build what the lab's first moments
// need, on a spare core while the rest of the program starts: what the
// server and the client say to each other when the lab's connection is
// made (the server's INFO, the client's CONNECT, the server's connection
// events), and a stream list (the server's answer, jsm.go's decoding of
// it, the request before it). encoding/json builds each type's encoder
// and decoder on first use, by reflection, and keeps them for every later
// use; built on the lab's first connection and JetStream request instead,
// they would sit on the path to its first answer.
//
// Importing it is the whole of its use (see broker/keytables).
package jsonwarm

import (
	"encoding/json"
	"fmt"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats-server/v2/server"
)

func init() {
	go func() {
		_ = warmConnection()
		_ = warmStreamList()
	}()
}

// warmConnection encodes and decodes what a new connection brings about,
// each as the side that handles it does.
func warmConnection() error {
	var info server.Info
	if err := roundTrip(server.Info{Name: "warm"}, &info); err != nil || info.Name != "warm" {
		return fmt.Errorf("the server's INFO decoded as %+v (%v)", info, err)
	}
	var opts server.ClientOpts
	if err := roundTrip(server.ClientOpts{Name: "warm"}, &opts); err != nil || opts.Name != "warm" {
		return fmt.Errorf("the client's CONNECT decoded as %+v (%v)", opts, err)
	}
	var connect server.ConnectEventMsg
	if err := roundTrip(server.ConnectEventMsg{Client: server.ClientInfo{Name: "warm"}}, &connect); err != nil || connect.Client.Name != "warm" {
		return fmt.Errorf("the connect event decoded as %+v (%v)", connect, err)
	}
	var disconnect server.DisconnectEventMsg
	if err := roundTrip(server.DisconnectEventMsg{Reason: "warm"}, &disconnect); err != nil || disconnect.Reason != "warm" {
		return fmt.Errorf("the disconnect event decoded as %+v (%v)", disconnect, err)
	}
	var conns server.AccountNumConns
	if err := roundTrip(server.AccountNumConns{AccountStat: server.AccountStat{Account: "warm"}}, &conns); err != nil || conns.Account != "warm" {
		return fmt.Errorf("the account's connection count decoded as %+v (%v)", conns, err)
	}
	return nil
}

// warmStreamList encodes a stream list request as jsm.go does and decodes
// it as the server does, then the answer the other way. The stream must be
// one the server could describe: an unset storage type cannot be encoded
// at all.
func warmStreamList() error {
	var req server.JSApiStreamListRequest
	if err := roundTrip(api.JSApiStreamListRequest{Subject: "warm"}, &req); err != nil || req.Subject != "warm" {
		return fmt.Errorf("the stream list request decoded as %+v (%v)", req, err)
	}
	one := &server.StreamInfo{Config: server.StreamConfig{Name: "warm", Storage: server.FileStorage}}
	var got api.JSApiStreamListResponse
	if err := roundTrip(server.JSApiStreamListResponse{Streams: []*server.StreamInfo{one}}, &got); err != nil {
		return err
	}
	if len(got.Streams) != 1 || got.Streams[0].Config.Name != one.Config.Name {
		return fmt.Errorf("the stream list decoded as %+v", got.Streams)
	}
	return nil
}

// roundTrip encodes v and decodes the result into into.
func roundTrip(v, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
