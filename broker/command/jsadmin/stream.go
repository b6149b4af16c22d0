package jsadmin

import (
	"fmt"

	"github.com/nats-io/jsm.go/api"
)

// Stream is one stream: its configuration and the information last fetched,
// which the commands print without asking again.
type Stream struct {
	mgr  *Manager
	cfg  *api.StreamConfig
	info *api.StreamInfo
}

// What the stream's configuration, as last fetched, says.
func (s *Stream) Name() string                    { return s.cfg.Name }
func (s *Stream) Description() string             { return s.cfg.Description }
func (s *Stream) Subjects() []string              { return s.cfg.Subjects }
func (s *Stream) Configuration() api.StreamConfig { return *s.cfg }

// IsInternal is whether the stream backs a KV bucket, object store or MQTT.
func (s *Stream) IsInternal() bool { return IsInternalStream(s.Name()) }

// LatestInformation is the information last fetched, fetched now if none was.
func (s *Stream) LatestInformation() (*api.StreamInfo, error) {
	if s.info != nil {
		return s.info, nil
	}
	return s.Information()
}

// Information fetches the stream's information now (with at most one
// request, for its options) and keeps it as the latest.
func (s *Stream) Information(req ...api.JSApiStreamInfoRequest) (*api.StreamInfo, error) {
	if len(req) > 1 {
		return nil, fmt.Errorf("only one request info is accepted")
	}
	var ireq api.JSApiStreamInfoRequest
	if len(req) == 1 {
		ireq = req[0]
	}
	info, err := s.mgr.streamInfo(s.Name(), &ireq)
	if err != nil {
		return nil, err
	}
	s.info = info
	return info, nil
}

// Reset fetches the stream's configuration and information again.
func (s *Stream) Reset() error {
	info, err := s.mgr.streamInfo(s.Name(), nil)
	if err != nil {
		return err
	}
	s.cfg, s.info = &info.Config, info
	return nil
}

// streamInfo asks for a stream's information; a nil req sends an empty body.
func (m *Manager) streamInfo(name string, req *api.JSApiStreamInfoRequest) (*api.StreamInfo, error) {
	var resp api.JSApiStreamInfoResponse
	if err := m.request(fmt.Sprintf(api.JSApiStreamInfoT, name), req, &resp); err != nil {
		return nil, err
	}
	if resp.StreamInfo == nil {
		return nil, fmt.Errorf("the server answered a request for stream %s's information without it", name)
	}
	return resp.StreamInfo, nil
}

// UpdateConfiguration replaces the stream's configuration with cfg, then
// fetches what the server made of it.
func (s *Stream) UpdateConfiguration(cfg api.StreamConfig) error {
	var resp api.JSApiStreamUpdateResponse
	if err := s.mgr.request(fmt.Sprintf(api.JSApiStreamUpdateT, s.Name()), &api.JSApiStreamUpdateRequest{StreamConfig: cfg}, &resp); err != nil {
		return err
	}
	return s.Reset()
}

// PurgeExt removes the messages req selects; a nil req removes them all.
func (s *Stream) PurgeExt(req *api.JSApiStreamPurgeRequest) (*api.JSApiStreamPurgeResponse, error) {
	var resp api.JSApiStreamPurgeResponse
	if err := s.mgr.request(fmt.Sprintf(api.JSApiStreamPurgeT, s.Name()), req, &resp); err != nil {
		return nil, err
	}
	if !resp.Success {
		return &resp, fmt.Errorf("unknown failure")
	}
	return &resp, nil
}

// ReadMessage fetches message seq with the stream's get API (never a direct
// get, so it works whether or not the stream allows those).
func (s *Stream) ReadMessage(seq uint64) (*api.StoredMsg, error) {
	return s.mgr.readMessage(s.Name(), api.JSApiMsgGetRequest{Seq: seq})
}

// ReadLastMessageForSubject fetches the last message on subject, as
// ReadMessage does.
func (s *Stream) ReadLastMessageForSubject(subject string) (*api.StoredMsg, error) {
	return s.mgr.readMessage(s.Name(), api.JSApiMsgGetRequest{LastFor: subject})
}

func (m *Manager) readMessage(name string, req api.JSApiMsgGetRequest) (*api.StoredMsg, error) {
	var resp api.JSApiMsgGetResponse
	if err := m.request(fmt.Sprintf(api.JSApiMsgGetT, name), req, &resp); err != nil {
		return nil, err
	}
	if resp.Message == nil {
		return nil, fmt.Errorf("the server answered a message request without a message")
	}
	return resp.Message, nil
}

// DeleteMessageRequest removes one message as req says (overwriting its
// data unless req.NoErase).
func (s *Stream) DeleteMessageRequest(req api.JSApiMsgDeleteRequest) error {
	if req.Seq == 0 {
		return fmt.Errorf("sequence number is required")
	}
	var resp api.JSApiMsgDeleteResponse
	if err := s.mgr.request(fmt.Sprintf(api.JSApiMsgDeleteT, s.Name()), req, &resp); err != nil {
		return err
	}
	if !resp.Success {
		return fmt.Errorf("unknown error while deleting message %d", req.Seq)
	}
	return nil
}

// LeaderStepDown asks the stream's leader to stand down; placement (may be
// nil) says which replica the lab would prefer next.
func (s *Stream) LeaderStepDown(placement *api.Placement) error {
	var resp api.JSApiStreamLeaderStepDownResponse
	if err := s.mgr.request(fmt.Sprintf(api.JSApiStreamLeaderStepDownT, s.Name()), api.JSApiStreamLeaderStepDownRequest{Placement: placement}, &resp); err != nil {
		return err
	}
	if !resp.Success {
		return fmt.Errorf("unknown error while requesting leader step down")
	}
	return nil
}
