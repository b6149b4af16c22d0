// Package jsonwarm has encoding/json build what a stream's description
// needs, on a spare core while the rest of the program starts: the
// server's encoder for its answers about streams and the client's decoder
// for them. encoding/json builds both on first use, by reflection, and
// keeps them for every later use; built on the lab's first JetStream
// request instead, they would sit on the path to its first answer.
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
	go func() { _ = warm() }()
}

// warm encodes a stream list as the server does and decodes it as the
// client does. The stream must be one the server could describe: an
// unset storage type cannot be encoded at all.
func warm() error {
	one := &server.StreamInfo{Config: server.StreamConfig{Name: "warm", Storage: server.FileStorage}}
	answer, err := json.Marshal(server.JSApiStreamListResponse{Streams: []*server.StreamInfo{one}})
	if err != nil {
		return err
	}
	var got api.JSApiStreamListResponse
	if err := json.Unmarshal(answer, &got); err != nil {
		return err
	}
	if len(got.Streams) != 1 || got.Streams[0].Config.Name != one.Config.Name {
		return fmt.Errorf("the stream list decoded as %+v", got.Streams)
	}
	return nil
}
