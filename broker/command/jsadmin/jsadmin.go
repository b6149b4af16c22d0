// Package jsadmin sends the JetStream API requests the stream commands need
// straight over a *nats.Conn, with jsm.go's api types for every request and
// response.
//
// It stands in for the few parts of jsm.go's Manager and Stream (v0.5.0)
// that the stream commands used, and does what they did request for
// request: the same subjects and bodies, the same pagination, the same
// sorting, and the same errors (an API error is the api.ApiError value,
// a timeout is the request context's error). It exists because importing
// jsm.go's root package links jsm.go/registry, all of jsm.go's advisory and
// metric schemas and expr-lang, whose package init cost about 5 ms of every
// start of natslab; jsm.go/api alone costs next to nothing.
//
// Only what the stream commands call is here. There is no API prefix or
// domain: the lab's manager never set one.
//
// It imports nothing of natslab.
package jsadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"
)

// Manager sends JetStream API requests on one connection.
type Manager struct {
	nc      *nats.Conn
	timeout time.Duration
}

// New is a manager whose requests wait at most timeout, but never less than
// 500ms, jsm.go's floor.
func New(nc *nats.Conn, timeout time.Duration) *Manager {
	return &Manager{nc: nc, timeout: max(timeout, 500*time.Millisecond)}
}

// IsValidName is whether n may name a stream (or consumer): not empty, and
// none of the characters that would break the API's subjects.
func IsValidName(n string) bool {
	return n != "" && !strings.ContainsAny(n, ">*. /\\\x00")
}

// IsInternalStream is whether a stream backs a KV bucket, an object store
// or MQTT state, which listings hide unless asked.
func IsInternalStream(s string) bool {
	return strings.HasPrefix(s, "KV_") || strings.HasPrefix(s, "OBJ_") || strings.HasPrefix(s, "$MQTT_")
}

// serverMetadata are the metadata keys the server (not the user) sets.
var serverMetadata = []string{
	api.JSMetaCurrentServerVersion,
	api.JSMetaCurrentServerLevel,
	api.JsMetaRequiredServerLevel,
	api.JsMetaMirrorStreamName,
	api.JsMetaMirrorDomainName,
	api.JsMetaMirrorAccountName,
	api.JsMetaSourceStreamName,
	api.JsMetaSourceDomainName,
	api.JsMetaSourceAccountName,
}

// FilterServerMetadata is a copy of metadata without the keys the server
// sets; nil stays nil, anything else is a (possibly empty) map.
func FilterServerMetadata(metadata map[string]string) map[string]string {
	if metadata == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range metadata {
		if !slices.Contains(serverMetadata, k) {
			out[k] = v
		}
	}
	return out
}

func invalidName(name string) error {
	return fmt.Errorf("%q is not a valid stream name", name)
}

// request sends req (nil for an empty body) to subj and decodes the answer
// into resp, returning the server's error if it sent one.
func (m *Manager) request(subj string, req any, resp interface{ ToError() error }) error {
	// A request using newer fields says which API level it needs, so an
	// older server refuses it instead of dropping what it does not know.
	var hdr nats.Header
	if lvl, _ := api.RequiredApiLevel(req); lvl > 0 {
		hdr = nats.Header{}
		hdr.Add(api.JSRequiredApiLevel, strconv.Itoa(lvl))
	}
	var body []byte
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			return err
		}
		if string(b) != "null" { // a nil request pointer: empty body
			body = b
		}
	}
	msg := nats.NewMsg(subj)
	msg.Data = body
	msg.Header = hdr
	// Not the command's context: like jsm.go, a request runs to its answer
	// or its timeout.
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	defer cancel()
	res, err := m.nc.RequestMsgWithContext(ctx, msg)
	if err != nil {
		return err
	}
	if err := errorResponse(res.Data); err != nil {
		return err
	}
	if err := json.Unmarshal(res.Data, resp); err != nil {
		return err
	}
	return resp.ToError()
}

// errorResponse is the error an answer holds, if any: an old-style "-ERR
// 'text'" line, or a JSON response with an error, as its api.ApiError.
func errorResponse(data []byte) error {
	d := string(data)
	if strings.HasPrefix(d, api.ErrPrefix) {
		return errors.New(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(d, api.ErrPrefix), " '"), "'"))
	}
	var resp api.JSApiResponse
	if json.Unmarshal(data, &resp) != nil {
		return nil // not JSON: decoding it as the response will say so
	}
	return resp.ToError()
}

// listing is a response that is one page of a longer list.
type listing interface {
	ToError() error
	LastPage() bool
	ItemsLimit() int
}

// pages asks for a listing page by page, from offset 0, passing each page to
// each, until the server says it sent the last.
func pages[T any, P interface {
	*T
	listing
}](m *Manager, subj string, req interface{ SetOffset(int) }, each func(P)) error {
	offset := 0
	for {
		req.SetOffset(offset)
		page := P(new(T))
		if err := m.request(subj, req, page); err != nil {
			return err
		}
		each(page)
		if page.LastPage() {
			return nil
		}
		if page.ItemsLimit() == 0 {
			return fmt.Errorf("invalid response: server indicated more pages but returned zero item limit")
		}
		offset += page.ItemsLimit()
	}
}

// StreamNames lists the names of the streams capturing subject (all streams
// when it is ""), sorted.
func (m *Manager) StreamNames(subject string) ([]string, error) {
	var names []string
	req := &api.JSApiStreamNamesRequest{Subject: subject}
	err := pages(m, api.JSApiStreamNames, req, func(page *api.JSApiStreamNamesResponse) {
		names = append(names, page.Streams...)
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Streams lists the streams capturing subject (all when ""), each page
// sorted by name, with the names of those the server knows of but could not
// describe (missing) and of those offline, with the reason. Missing leaves
// out the offline ones. On an error it returns what it had so far.
func (m *Manager) Streams(subject string) (streams []*Stream, missing []string, offline map[string]string, err error) {
	req := &api.JSApiStreamListRequest{Subject: subject}
	err = pages(m, api.JSApiStreamList, req, func(page *api.JSApiStreamListResponse) {
		sort.Slice(page.Streams, func(i, j int) bool { return page.Streams[i].Config.Name < page.Streams[j].Config.Name })
		for _, info := range page.Streams {
			streams = append(streams, &Stream{mgr: m, cfg: &info.Config, info: info})
		}
		missing = append(missing, page.Missing...)
		for k, v := range page.Offline {
			if offline == nil {
				offline = map[string]string{}
			}
			offline[k] = v
		}
	})
	var notOffline []string
	for _, name := range missing {
		if _, ok := offline[name]; !ok {
			notOffline = append(notOffline, name)
		}
	}
	return streams, notOffline, offline, err
}

// LoadStream fetches a stream's information.
func (m *Manager) LoadStream(name string) (*Stream, error) {
	if !IsValidName(name) {
		return nil, invalidName(name)
	}
	s := &Stream{mgr: m, cfg: &api.StreamConfig{Name: name}}
	if err := s.Reset(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewStreamFromDefault creates stream name with configuration cfg (its name
// set to name) and returns it with the information the server answered.
func (m *Manager) NewStreamFromDefault(name string, cfg api.StreamConfig) (*Stream, error) {
	if !IsValidName(name) {
		return nil, invalidName(name)
	}
	cfg.Name = name
	var resp api.JSApiStreamCreateResponse
	if err := m.request(fmt.Sprintf(api.JSApiStreamCreateT, name), &api.JSApiStreamCreateRequest{StreamConfig: cfg}, &resp); err != nil {
		return nil, err
	}
	if resp.StreamInfo == nil {
		return nil, fmt.Errorf("the server created stream %s but answered without its information", name)
	}
	return &Stream{mgr: m, cfg: &resp.Config, info: resp.StreamInfo}, nil
}

// DeleteStream removes a stream.
func (m *Manager) DeleteStream(name string) error {
	if !IsValidName(name) {
		return invalidName(name)
	}
	var resp api.JSApiStreamDeleteResponse
	if err := m.request(fmt.Sprintf(api.JSApiStreamDeleteT, name), nil, &resp); err != nil {
		return err
	}
	if !resp.Success {
		return fmt.Errorf("deleting stream %s failed", name)
	}
	return nil
}

// StreamContainedSubjects counts a stream's messages per subject matching
// filter (">" when ""). The server sends long subject lists in pages.
func (m *Manager) StreamContainedSubjects(name, filter string) (map[string]uint64, error) {
	if !IsValidName(name) {
		return nil, invalidName(name)
	}
	if filter == "" {
		filter = ">"
	}
	subjects := map[string]uint64{}
	req := &api.JSApiStreamInfoRequest{SubjectsFilter: filter}
	err := pages(m, fmt.Sprintf(api.JSApiStreamInfoT, name), req, func(page *api.JSApiStreamInfoResponse) {
		if page.StreamInfo == nil {
			return
		}
		for s, n := range page.State.Subjects {
			subjects[s] = n
		}
	})
	if err != nil {
		return nil, err
	}
	return subjects, nil
}
